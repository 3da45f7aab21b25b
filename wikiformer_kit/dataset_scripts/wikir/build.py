"""Build a WIKIR collection from a dump or a built corpus: the library behind ``python -m dataset_scripts.wikir``."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.build_params import record_parameters
from wikiformer_kit.dataset_scripts.corpus.folder import corpus_language, is_corpus_dir
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions, chain_executors
from wikiformer_kit.dataset_scripts.folder_lock import holding
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit, corpus_files, plan_units
from wikiformer_kit.dataset_scripts.wikir.options import WikirOptions
from wikiformer_kit.dataset_scripts.wikir.steps import AssembleStep, ExtractStep, WikirLayout

logger = logging.getLogger(__name__)


class WikirParametersError(ValueError):
    """The output folder holds a build made with other parameters; the message says which."""


def prepare_corpus(
    inputs: Sequence[Path],
    root: Path,
    corpus: CorpusOptions = CorpusOptions(),
    executor: ExecutorOptions = ExecutorOptions(),
) -> tuple[Path, str]:
    """The corpus folder to read and the source named in the card: a built corpus folder as it is, anything
    else built first into ``<root>/.build/corpus`` by the corpus build."""
    inputs = [Path(p) for p in inputs]
    if len(inputs) == 1 and is_corpus_dir(inputs[0]):
        return inputs[0], f"the corpus folder `{inputs[0].name}`"
    from wikiformer_kit.dataset_scripts.corpus.build import (
        build_corpus,  # the dump readers load only when a dump is given
    )

    corpus_dir = WikirLayout(root).work / "corpus"
    build_corpus(inputs, corpus_dir, corpus, executor, stage_log=WikirLayout(root).work / "logs" / "corpus.log")
    return corpus_dir, ", ".join(f"`{p.name}`" for p in inputs)


def build_wikir(
    corpus_dir: Path,
    output_dir: Path,
    options: WikirOptions = WikirOptions(),
    *,
    executor: ExecutorOptions = ExecutorOptions(),
    articles_per_unit: int = 1000,
    max_articles: int | None = None,
    random_sample: bool = False,
    export_formats: Sequence[str] = (),
    info: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Build the WIKIR collection of a built corpus into ``output_dir``; returns the build summary.

    Args:
        corpus_dir: a folder written by ``python -m dataset_scripts.corpus``.
        output_dir: the collection folder (a Hugging Face dataset + one TREC folder per split).
        articles_per_unit: articles per extraction unit (units, not processes, fix the output).
        max_articles: read only the first articles of the corpus; with ``random_sample``, keep that many articles
            drawn at random (seeded with ``options.seed``) among all that qualify, as the original's ``-m`` does.
        random_sample: how ``max_articles`` picks its articles (see there).
        export_formats: also write the original's layouts (``csv``, ``json``, ``xml``; see :mod:`.export`).
        info: card fields: ``source``, ``command``, ``name``, ``note``.

    Raises:
        WikirParametersError: ``output_dir`` holds a build made with other options or another corpus.
    """
    with holding(output_dir, "a WIKIR build"):
        output_dir = Path(output_dir)
        layout = WikirLayout(output_dir)
        data_files, redirect_files = corpus_files(Path(corpus_dir))
        units = plan_units(data_files, articles_per_unit)
        if not random_sample:
            units = limit_units(units, max_articles)
        elif max_articles is not None and max_articles < 1:
            raise ValueError(f"max_articles must be >= 1, got {max_articles}")
        language = corpus_language(data_files[0])
        params = {
            "options": options.to_dict(),
            "max_articles": max_articles,
            **({"random_sample": True} if random_sample else {}),
            "units": len(units),
            "corpus": [[p.name, pq.ParquetFile(p).metadata.num_rows] for p in data_files],
        }
        _check_parameters(layout, params)
        info = {
            "source": f"the corpus folder `{Path(corpus_dir).name}`",
            "command": "python -m dataset_scripts.wikir",
            "name": f"WIKIR ({language or 'unknown language'})",
            **(info or {}),
            "options": options.to_dict(),
            "language": language,
            "export": list(export_formats),
            **({"random_sample": max_articles} if random_sample and max_articles is not None else {}),
        }
        world = max(1, min(executor.num_proc, len(units)))
        stages = [
            ("extract", [ExtractStep(output_dir, units, options)], world),
            ("assemble", [AssembleStep(output_dir, units, redirect_files, info)], 1),
        ]
        # the outputs (the last stage) follow the latest command line
        # the stages' console logs in the work folder, which a push leaves out
        run = chain_executors(
            executor,
            stages,
            logs=layout.logs,
            job_prefix="wikir",
            preload=("wikiformer_kit.dataset_scripts.wikir.steps", "pandas"),
            stage_logs=layout.work / "logs",
        )
        run.run()
        summary_path = layout.work / "summary.json"
        return json.loads(summary_path.read_text("utf-8")) if summary_path.exists() else {}


def limit_units(units: Sequence[Unit], max_articles: int | None) -> list[Unit]:
    """The units that hold the first ``max_articles`` articles of the corpus (the last one cut); all when None."""
    if max_articles is None:
        return list(units)
    if max_articles < 1:
        raise ValueError(f"max_articles must be >= 1, got {max_articles}")
    kept, left = [], max_articles
    for unit in units:
        if left <= 0:
            break
        size = min(unit.stop - unit.start, left)
        kept.append(Unit(unit.number, unit.file, unit.start, unit.start + size))
        left -= size
    return kept


CORPUS_PARAMETERS = ("corpus", "units")
"""What a changed corpus changes in the parameters record (its files' fingerprinted names and row counts)."""


def _check_parameters(layout: WikirLayout, params: dict[str, Any]) -> None:
    """Record the parameters; where the folder holds a build of another corpus under the same options (its dump was
    replaced, or rebuilt), say so and extract again; other options are refused."""
    record = layout.work / "params.json"
    if record.is_file():
        before = json.loads(record.read_text("utf-8"))
        changed = {k for k in set(before) | set(params) if before.get(k) != params.get(k)}
        if changed and changed <= set(CORPUS_PARAMETERS):
            print(f"[wikir] {layout.root}: the corpus changed since the earlier build there: extracting it again")
            shutil.rmtree(layout.work / "extract", ignore_errors=True)
            for stage_logs in layout.work.joinpath("logs").glob("*-w*"):
                shutil.rmtree(stage_logs, ignore_errors=True)
            record.unlink()
    record_parameters(
        layout.root, layout.work, params, what="a WIKIR build", error=WikirParametersError, expand=("options",)
    )
