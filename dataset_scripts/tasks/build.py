"""The task-dataset build as a library: the corpus to read, the parameters check, the three chained executors
(per-article tasks -> corpus-wide tasks -> cards) and the Hub push. ``python -m dataset_scripts.build`` is its
command line."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from ..executors import make_executor
from .corpus_units import Unit
from .registry import get_task
from .steps import ArticleTasksStep, BuildLayout, FinalizeStep, LtmStep, write_json

EXECUTORS = ("local", "slurm", "ray")


class BuildParametersError(ValueError):
    """The output folder holds a build made with other parameters; the message says what differs."""


def is_corpus_dir(path: Path) -> bool:
    """Whether ``path`` is a built corpus folder (``data/*.parquet``)."""
    return path.is_dir() and any((path / "data").glob("*.parquet"))


def prepare_corpus(inputs: list[Path], layout: BuildLayout, args: argparse.Namespace) -> tuple[Path, str]:
    """The corpus folder to read and a description of the source for the cards.

    A single built corpus folder is used directly; anything else is read by the corpus build into
    ``<output>/corpus`` (which resumes by itself: finished shards are not read again).
    """
    if len(inputs) == 1 and is_corpus_dir(inputs[0]):
        return inputs[0], _corpus_source(inputs[0] / "README.md") or f"the Parquet corpus folder {inputs[0].name}"
    from ..corpus.build import build_corpus  # the dump readers load only when a dump is given

    corpus_dir = layout.root / "corpus"
    build_corpus(
        inputs,
        corpus_dir,
        fmt=args.format,
        num_proc=args.num_proc,
        limit=args.limit,
        executor=args.executor,
        slurm_partition=args.slurm_partition,
    )
    return corpus_dir, ", ".join(p.name for p in inputs)


_CORPUS_INPUTS = re.compile(r"from: (.+?)\.?$", re.M)


def _corpus_source(readme: Path) -> str | None:
    """The input files a corpus card names (``... built by python -m dataset_scripts.corpus from: X, Y.``)."""
    match = _CORPUS_INPUTS.search(readme.read_text("utf-8")) if readme.exists() else None
    return match.group(1).replace("`", "").strip() if match else None


def check_parameters(layout: BuildLayout, params: dict[str, Any]) -> None:
    """Record the build parameters, or refuse to mix them with those of an earlier build in the same folder."""
    path = layout.work / "params.json"
    if path.exists():
        previous = json.loads(path.read_text("utf-8"))
        if previous != params:
            changed = sorted(k for k in set(previous) | set(params) if previous.get(k) != params.get(k))
            raise BuildParametersError(
                f"{layout.root} holds a build made with other parameters ({', '.join(changed)} differ); "
                "use another --output-dir, or delete that folder to rebuild"
            )
    else:
        write_json(params, path)


def make_executors(
    args, layout: BuildLayout, units: list[Unit], redirects, tasks, options, build_info, baselines=(None, None, None)
):
    """The chained executors (stage 1 -> LTM -> PROP/HARP -> cards) of the chosen kind; run the last one.

    ``baselines``: the PROP options, HARP options and attention cache (:func:`.baseline_steps.options_from_args`).
    """
    from .baseline_steps import baseline_stages

    world = max(1, min(args.num_proc, len(units)))
    stages = []
    if "ltm" in tasks or any(get_task(t).sampler for t in tasks):
        stages.append(("tasks", [ArticleTasksStep(layout.root, units, tasks, options)], world))
    if "ltm" in tasks:
        stages.append(("ltm", [LtmStep(layout.root, units, redirects, options)], world))
    stages += baseline_stages(layout.root, units, redirects, tasks, options, *baselines, world)
    stages.append(("cards", [FinalizeStep(layout.root, units, tasks, build_info)], 1))
    executor = None
    for name, pipeline, tasks_count in stages:
        executor = make_executor(
            args.executor,
            pipeline,
            tasks=tasks_count,
            workers=args.num_proc,
            logging_dir=str(layout.logs(name, tasks_count)),
            job_name=f"wikiformer-{name}",
            depends=executor,
            skip_completed=name != "cards",  # the cards are cheap and follow the latest command line
            slurm_partition=args.slurm_partition,
            slurm_time=args.slurm_time,
            # workers fork from one server that has imported the steps once, instead of each importing them
            preload=("dataset_scripts.tasks.steps", "dataset_scripts.tasks.baseline_steps"),
        )
    return executor


def push(layout: BuildLayout, tasks, namespace: str, private: bool, written: list[str]) -> list[str]:
    """Push every written task dataset; returns the tasks whose push failed (their local output stays)."""
    from ..hub.publish import push_dataset_folder

    failed = []
    for task in tasks:
        if task not in written:
            continue
        repo_id = f"{namespace}/wikiformer-{task}"
        try:
            url = push_dataset_folder(layout.task_dir(task), repo_id, private=private)
            print(f"pushed {layout.task_dir(task)} -> {repo_id} ({url})")
        except Exception as error:  # any client or network error: keep going, report, say what to rerun
            failed.append(task)
            print(f"push of {task} to {repo_id} failed: {error}", file=sys.stderr)
    return failed


def corpus_language(data_file: Path) -> str:
    """The language of a corpus (its first article's), ``en`` when it names none."""
    batch = next(pq.ParquetFile(data_file).iter_batches(batch_size=1, columns=["language"]), None)
    return (batch.column(0)[0].as_py() if batch is not None and batch.num_rows else "") or "en"
