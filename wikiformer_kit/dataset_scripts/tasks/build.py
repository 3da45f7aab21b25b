"""The task-dataset build as a library: :func:`build_datasets` reads (or builds) the corpus, checks the parameters
against an earlier build in the same folder, and runs three chained datatrove stages (per-article tasks ->
corpus-wide LTM -> cards); :func:`push` publishes what it wrote. ``python -m dataset_scripts.build`` is its
command line."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.build_params import record_parameters
from wikiformer_kit.dataset_scripts.corpus.empty import EmptyCorpusError, no_article_message
from wikiformer_kit.dataset_scripts.corpus.folder import corpus_language, is_corpus_dir, read_build_record
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions, chain_executors
from wikiformer_kit.dataset_scripts.fingerprint import unstamp
from wikiformer_kit.dataset_scripts.folder_lock import holding
from wikiformer_kit.dataset_scripts.tasks.anchors import HarpOptions
from wikiformer_kit.dataset_scripts.tasks.article_tasks_step import ArticleTasksStep
from wikiformer_kit.dataset_scripts.tasks.build_layout import BuildLayout
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit, corpus_files, plan_units
from wikiformer_kit.dataset_scripts.tasks.finalize_step import FinalizeStep
from wikiformer_kit.dataset_scripts.tasks.language_model import LANGUAGE_STOPWORDS, STEMMERS, stemmer_algorithm
from wikiformer_kit.dataset_scripts.tasks.ltm_step import LtmStep
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.prop import PropOptions
from wikiformer_kit.dataset_scripts.tasks.qdm import RANK_HASH
from wikiformer_kit.dataset_scripts.tasks.registry import DEFAULT_TASKS, get_task
from wikiformer_kit.dataset_scripts.tasks.see_also_join import bucket_count
from wikiformer_kit.dataset_scripts.tasks.see_also_join_step import SeeAlsoJoinStep


class BuildParametersError(ValueError):
    """The output folder holds a build made with other parameters; the message says what differs."""


@dataclass(frozen=True)
class BuildOptions:
    """One build of task datasets.

    Args:
        inputs: dump/corpus files or folders, or one built corpus folder (used as it is).
        output_dir: where ``wikiformer-<task>/`` (and ``corpus/`` for raw inputs, ``.build/``) are written.
        tasks: the task names, in registry order.
        sampling: the samplers' options (seed, thresholds, variants).
        corpus: how raw inputs are read into the corpus.
        executor: where and how wide the stages run.
        articles_per_unit: articles per work unit (one Parquet shard per task and unit).
        repo_id: ``NS/wikiformer-{task}`` named in the cards' loading example (``None``: a placeholder).
        command: the command line shown in the cards.
        prop: PROP's sampling options (``--tasks prop``).
        harp: HARP's options (``--tasks harp``).
        attention_cache: HARP's attention cache file (``None``: ``.build/harp/attention.sqlite``).
    """

    inputs: tuple[Path, ...]
    output_dir: Path
    tasks: tuple[str, ...] = DEFAULT_TASKS
    sampling: TaskOptions = field(default_factory=TaskOptions)
    corpus: CorpusOptions = field(default_factory=CorpusOptions)
    executor: ExecutorOptions = field(default_factory=ExecutorOptions)
    articles_per_unit: int = 1000
    repo_id: str | None = None
    command: str | None = None
    prop: PropOptions = field(default_factory=PropOptions)
    harp: HarpOptions = field(default_factory=HarpOptions)
    attention_cache: str | None = None

    def __post_init__(self) -> None:
        for task in self.tasks:
            get_task(task)
        if self.articles_per_unit < 1:
            raise ValueError(f"articles_per_unit must be >= 1, got {self.articles_per_unit}")


def prepare_corpus(
    inputs: tuple[Path, ...], layout: BuildLayout, corpus: CorpusOptions, executor: ExecutorOptions
) -> tuple[Path, str]:
    """The corpus folder to read and a description of the source for the cards.

    A single built corpus folder is used directly (its source: the inputs its ``build_stats.json`` records);
    anything else is read by the corpus build into ``<output>/corpus`` (which resumes by itself: finished shards
    are not read again).
    """
    if len(inputs) == 1 and is_corpus_dir(inputs[0]):
        record = read_build_record(inputs[0]) or {}
        names = record.get("inputs")
        return inputs[0], ", ".join(names) if names else f"the Parquet corpus folder {inputs[0].name}"
    from wikiformer_kit.dataset_scripts.corpus.build import (
        build_corpus,  # the dump readers load only when a dump is given
    )

    corpus_dir = layout.root / "corpus"
    build_corpus(list(inputs), corpus_dir, corpus, executor, stage_log=layout.root / "logs" / "corpus.log")
    return corpus_dir, ", ".join(p.name for p in inputs)


def language_stopwords(build: BuildOptions, language: str) -> BuildOptions:
    """PROP's and HARP's stopwords for the corpus language when ``--stopwords`` was not given: the vendored list
    of the language (:data:`~.language_model.LANGUAGE_STOPWORDS`); for another language than English without
    one, a warning that the English INQUERY list is used and which option to set."""
    base = language.split("-")[0]
    baselines = [t for t in build.tasks if get_task(t).origin and get_task(t).origin.name in ("PROP", "HARP")]
    if not baselines or base == "en" or build.prop.stopwords or build.harp.stopwords:
        return build
    if base not in LANGUAGE_STOPWORDS:
        print(
            f"warning: {', '.join(baselines)} use the English INQUERY stopwords on a corpus in {language!r}; "
            "give a stopword list of the language with --stopwords FILE",
            file=sys.stderr,
        )
        return build
    chosen = LANGUAGE_STOPWORDS[base]
    return replace(build, prop=replace(build.prop, stopwords=chosen), harp=replace(build.harp, stopwords=chosen))


def language_stemming(build: BuildOptions, language: str) -> BuildOptions:
    """PROP's ``stem`` for the corpus language: kept for a language with a stemmer (:data:`STEMMERS`: English
    Porter), else turned off with a warning on stderr, so that the build goes on with words rather than stems cut
    by another language's rules, and its recorded parameters (and the dataset card) say ``stem: false``. The
    build is not refused, because ``--prop-variant original`` turns stemming on for any corpus and the other
    choices of that variant still apply."""
    if "prop" not in build.tasks or not build.prop.stem or stemmer_algorithm(language):
        return build
    print(
        f"warning: prop: no stemmer for a corpus in {language!r} (there is one for: {', '.join(STEMMERS)}); "
        "the words are not stemmed (prop.stem is recorded as false)",
        file=sys.stderr,
    )
    return replace(build, prop=replace(build.prop, stem=False))


def source_formats(record: dict[str, Any]) -> list[str] | None:
    """The input formats a corpus build record names (they decide the cards' licence): ``formats``, or for a
    corpus built before they were recorded its ``--format`` when one was forced; ``None`` when unknown."""
    fmt = record.get("options", {}).get("fmt", "auto")
    return record.get("formats") or ([fmt] if fmt != "auto" else None)


def make_executors(executor: ExecutorOptions, layout: BuildLayout, stages: list[tuple[str, list, int]]):
    """The chained executors of the chosen kind for the :meth:`PreparedBuild.stages` (stage 1 -> See also join -> LTM ->
    PROP/HARP -> cards); run the last one."""
    # workers fork from one server that has imported the steps once, instead of each importing them; pandas too,
    # which pyarrow imports on the first rows a process converts (0.3 CPU s in every worker otherwise)
    preload = (
        "wikiformer_kit.dataset_scripts.tasks.article_tasks_step",
        "wikiformer_kit.dataset_scripts.tasks.see_also_join_step",
        "wikiformer_kit.dataset_scripts.tasks.ltm_step",
        "wikiformer_kit.dataset_scripts.tasks.finalize_step",
        "wikiformer_kit.dataset_scripts.tasks.baseline_steps",
        "pandas",
    )
    # the cards (the last stage) are cheap and follow the latest command line
    # one console line a stage, its output in OUT/logs/<stage>.log beside the datasets (not inside one)
    return chain_executors(
        executor, stages, logs=layout.logs, job_prefix="wikiformer", preload=preload, stage_logs=layout.root / "logs"
    )


@dataclass(frozen=True)
class PreparedBuild:
    """A build ready to run its task stages: where it writes, its units and redirect files, its options (stopwords
    and stemming chosen for the corpus language) and what its cards say."""

    layout: BuildLayout
    units: list[Unit]
    redirects: list[Path]
    build: BuildOptions
    build_info: dict[str, Any]

    def stages(self, num_proc: int) -> list[tuple[str, list, int]]:
        """The task build's stages in run order, each ``(name, steps, datatrove tasks)`` for ``num_proc`` processes
        (what :func:`make_executors` chains, and what the build's plan measures stage by stage)."""
        from wikiformer_kit.dataset_scripts.tasks.baseline_steps import baseline_stages

        root, units, redirects, tasks, options = (
            self.layout.root, self.units, self.redirects, self.build.tasks, self.build.sampling
        )  # fmt: skip
        world = max(1, min(num_proc, len(units)))
        buckets = bucket_count(sum(u.stop - u.start for u in units))
        stages = []
        if "ltm" in tasks or any(get_task(t).sampler for t in tasks):
            stages.append(("tasks", [ArticleTasksStep(root, units, tasks, options, redirects, buckets)], world))
        if "ltm" in tasks:
            join = SeeAlsoJoinStep(root, units, len(redirects), buckets)
            stages.append(("see-also-join", [join], max(1, min(num_proc, buckets))))
            stages.append(("ltm", [LtmStep(root, units, options, buckets)], world))
        baselines = (self.build.prop, self.build.harp, self.build.attention_cache)
        stages += baseline_stages(root, units, redirects, tasks, options, *baselines, world)
        # one task: a dataset without rows is announced on the console by the build's own process, and the cards no
        # longer read the shards (their digests come with the unit markers)
        stages.append(("cards", [FinalizeStep(root, units, tasks, self.build_info)], 1))
        return stages


def prepare_build(build: BuildOptions) -> PreparedBuild | None:
    """Read (or build) the corpus, plan its units, check the parameters against an earlier build in the same
    folder and give the build's stale fingerprinted names back; ``None`` when the corpus jobs were submitted to
    Slurm. Raises as :func:`build_datasets`."""
    layout = BuildLayout(Path(build.output_dir))
    corpus_dir, source = prepare_corpus(tuple(map(Path, build.inputs)), layout, build.corpus, build.executor)
    if build.executor.kind == "slurm" and not is_corpus_dir(corpus_dir):
        print(f"corpus jobs submitted to Slurm; rerun the same command when they are done ({corpus_dir})")
        return None
    data_files, redirect_files = corpus_files(corpus_dir)
    if not any(pq.ParquetFile(p).metadata.num_rows for p in data_files):
        raise EmptyCorpusError(no_article_message(corpus_dir))
    layout.work.mkdir(parents=True, exist_ok=True)
    units = plan_units(data_files, build.articles_per_unit)
    corpus = [[p.name, pq.ParquetFile(p).metadata.num_rows] for p in data_files]
    language = corpus_language(data_files[0]) or "en"
    build = language_stemming(language_stopwords(build, language), language)
    options = build.sampling.to_dict()
    params = {"tasks": list(build.tasks), "options": options, "units": len(units), "corpus": corpus}
    if "prop" in build.tasks:
        params["prop"] = build.prop.to_dict()
    if any(get_task(t).origin and get_task(t).origin.name == "HARP" for t in build.tasks):
        params["harp"] = {**build.harp.to_dict(), "occurrence_rank": RANK_HASH}
    # recorded, or refused when an earlier build in the same folder had others
    record_parameters(layout.root, layout.work, params, what="a build", error=BuildParametersError)
    build_info = {
        "formats": source_formats(read_build_record(corpus_dir) or {}),
        "options": {**options, **{f"{m}.{k}": v for m in ("prop", "harp") for k, v in params.get(m, {}).items()}},
        "source": source,
        "language": language,
        "repo_id": build.repo_id,
        "command": build.command,
    }
    # resuming: the stages see the plain shard names they wrote; the last stage stamps them again
    unstamp(layout.task_dir(task) / "data" for task in build.tasks)
    return PreparedBuild(layout, units, redirect_files, build, build_info)


def build_datasets(build: BuildOptions) -> dict[str, Any] | None:
    """Build the task datasets; returns the build summary (``.build/summary.json``: articles, See also counts
    and each task's statistics), or ``None`` when the stages were submitted to Slurm (rerun when they are done).

    Raises:
        BuildParametersError: the output folder holds a build with other parameters.
        CorpusLayoutError: an input folder is not a corpus.
        EmptyCorpusError: the corpus has no article (nothing of the build is written after it).
        Exception: whatever stopped a stage (a rerun resumes).
    """
    with holding(build.output_dir, "a task build"):
        prepared = prepare_build(build)
        if prepared is None:
            return None
        build, layout = prepared.build, prepared.layout
        make_executors(build.executor, layout, prepared.stages(build.executor.num_proc)).run()
        if build.executor.kind == "slurm":
            return None
        return json.loads((layout.work / "summary.json").read_text("utf-8"))


def push(layout: BuildLayout, tasks, namespace: str, private: bool, written: list[str]) -> list[str]:
    """Push every written task dataset; returns the tasks whose push failed (their local output stays)."""
    from wikiformer_kit.dataset_scripts.hub.publish import push_dataset_folder

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
