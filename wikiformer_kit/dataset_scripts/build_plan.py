"""What a whole build will take, measured on a sample of the user's own input (``python -m dataset_scripts.build
--plan``): the corpus stage's and each task stage's CPU per article, each stage's serial part, and the wall time
predicted for the whole input at N processes and on a cluster of M nodes x C cores, with every figure it used.

The model (:func:`predict`): a process runs one task at a time on one core. A stage cut into ``tasks`` pieces of
work (units of ``articles_per_unit`` articles, buckets of the title join, the four datasets' cards) takes the
longest process's share, the pieces given out largest first to the least loaded process (as the stages share their
units, :func:`.tasks.corpus_units.rank_units`); what runs once per build (start-up, the statistics merge, each
dataset's fingerprint and card) adds whatever the process count. On a cluster every stage's tasks also start their
own Python (the measured start-up, once per stage), and the scheduler's wait is not counted.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from wikiformer_kit.cli.options import options_from, to_argv
from wikiformer_kit.dataset_scripts.corpus.arguments import CorpusArguments, CorpusCommandOptions
from wikiformer_kit.home import kit_environment

BZ2_BYTES_PER_ARTICLE = 3_500
"""Compressed bytes of an English Wikipedia multistream dump per article (redirects and other pages included):
what the article count is estimated from when ``--plan-articles`` is not given."""


@dataclass(frozen=True)
class StageCost:
    """One stage's measured cost: CPU seconds per article for its parallel work, and the number of pieces it is cut
    into for ``articles`` articles (``pieces``: a function name, see :func:`stage_pieces`); ``serial``: CPU seconds
    that run once whatever the process count."""

    name: str
    per_article: float
    serial: float
    pieces: str


@dataclass(frozen=True)
class PlanFigures:
    """Everything a prediction uses, as measured on the sample."""

    sample_articles: int
    startup: float
    corpus_startup: float
    stages: tuple[StageCost, ...]
    articles_per_unit: int
    datasets: int

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlanFigures:
        """Inverse of ``dataclasses.asdict`` (other keys, as the whole input's ``articles`` in ``--plan-json``, ignored)."""
        names = {"sample_articles", "startup", "corpus_startup", "articles_per_unit", "datasets"}
        stages = tuple(StageCost(**stage) for stage in data["stages"])
        return cls(stages=stages, **{key: value for key, value in data.items() if key in names})


def stage_pieces(kind: str, articles: int, articles_per_unit: int, datasets: int) -> list[int]:
    """The articles each piece of a stage covers: ``units`` (the task stage's units), ``buckets`` (the title join's
    buckets, :func:`.tasks.see_also_join.bucket_count`), ``datasets`` (one piece per dataset, each the whole corpus) or
    ``one`` (one piece: work done in one process, as the statistics merge)."""
    if kind == "units":
        full, rest = divmod(articles, articles_per_unit)
        return [articles_per_unit] * full + ([rest] if rest else [])
    if kind == "buckets":
        from wikiformer_kit.dataset_scripts.tasks.see_also_join import bucket_count

        count = bucket_count(articles)
        return [articles // count + (1 if i < articles % count else 0) for i in range(count)]
    if kind == "datasets":
        return [articles] * datasets
    if kind == "one":
        return [articles]
    raise ValueError(f"unknown kind of pieces {kind!r}")


def longest_share(pieces: Sequence[int], processes: int) -> int:
    """The most articles one process gets when ``pieces`` are given out largest first to the least loaded of
    ``processes`` processes."""
    loads = [0] * max(1, min(processes, len(pieces)))
    for size in sorted(pieces, reverse=True):
        loads[loads.index(min(loads))] += size
    return max(loads)


@dataclass(frozen=True)
class Prediction:
    """The predicted wall time (seconds) of a whole build, by stage, at ``processes`` processes."""

    processes: int
    nodes: int
    corpus: float
    stages: dict[str, float]
    serial: float

    @property
    def total(self) -> float:
        """The whole build: corpus stage and task stages."""
        return self.corpus + sum(self.stages.values())


def predict(
    figures: PlanFigures, articles: int, processes: int, *, nodes: int = 1, corpus_stage: bool = True
) -> Prediction:
    """The wall time of a build of ``articles`` articles on ``processes`` processes (over ``nodes`` machines: from 2
    on, each stage's tasks pay the start-up again)."""
    per_stage_startup = figures.startup if nodes > 1 else 0.0
    serial = figures.startup + sum(stage.serial for stage in figures.stages)
    corpus = 0.0
    if corpus_stage:
        corpus_cost = next(s for s in figures.stages if s.name == "corpus")
        corpus = figures.corpus_startup + corpus_cost.per_article * math.ceil(articles / processes)
        serial += figures.corpus_startup
    stages = {"start-up": figures.startup}
    for stage in figures.stages:
        if stage.name == "corpus":
            continue
        pieces = stage_pieces(stage.pieces, articles, figures.articles_per_unit, figures.datasets)
        share = longest_share(pieces, processes)
        stages[stage.name] = stage.serial + stage.per_article * share + per_stage_startup
        if len(pieces) == 1:  # one piece: the whole stage runs in one process
            serial += stage.per_article * share
    return Prediction(processes, nodes, corpus, stages, serial)


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def kit_command(module: str) -> list[str]:
    """``python -m wikiformer_kit.<module>`` as this Python runs the kit (a checkout or an installed kit)."""
    return [sys.executable, "-m", f"wikiformer_kit.{module}"]


def run_measured(command: list[str]) -> float:
    """CPU seconds of a command run to its end in its own process (its waited-for children included); the kit
    importable there as it is here."""
    before = _child_cpu()
    result = subprocess.run(command, capture_output=True, text=True, env=kit_environment())
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()[-2000:]}")
    return _child_cpu() - before


def _corpus_articles(corpus_dir: Path) -> int:
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(p).metadata.num_rows for p in sorted((corpus_dir / "data").glob("*.parquet")))


def sample_corpus(
    inputs: Sequence[Path], sample: int, work: Path, corpus: CorpusArguments
) -> tuple[Path, float, float]:
    """Build the corpus of the first ``sample`` articles of each input shard, read as ``corpus`` says (one process,
    one core) into ``work/corpus``; returns it, the corpus stage's CPU seconds per article past its start-up and
    that start-up (from a build of one article a shard, measured apart)."""

    def measured(limit: int, folder: str) -> float:
        options = options_from(
            CorpusCommandOptions,
            corpus,
            input=[str(path) for path in inputs],
            output_dir=str(work / folder),
            limit=limit,
            num_proc=1,
            read_ahead="off",
        )
        return run_measured([*kit_command("dataset_scripts.corpus"), *to_argv(options)])

    one, many = measured(1, "corpus-one"), measured(sample, "corpus")
    ones, articles = _corpus_articles(work / "corpus-one"), _corpus_articles(work / "corpus")
    per_article = max(0.0, many - one) / max(1, articles - ones)
    return work / "corpus", per_article, max(0.0, one - per_article * ones)


def measure_task_stages(prepared, *, num_proc: int = 1) -> list[dict[str, Any]]:
    """Run a prepared build's task stages in this process, rank after rank as ``num_proc`` processes would share
    them: per stage its name, task count, and each rank's CPU seconds (``cpu``) and articles (``articles``: the
    units it was given, for the stages that go unit by unit)."""
    from wikiformer_kit.dataset_scripts.tasks.corpus_units import rank_units
    from wikiformer_kit.dataset_scripts.tasks.finalize_step import FinalizeStep, merge_statistics

    measured = []
    for name, steps, tasks in prepared.stages(num_proc):
        cpu, articles = [], []
        for rank in range(tasks):
            start = time.process_time()
            for step in steps:
                for _ in step.run(None, rank, tasks):
                    pass
            cpu.append(time.process_time() - start)
            articles.append(sum(u.stop - u.start for u in rank_units(prepared.units, rank, tasks)))
        entry = {"name": name, "tasks": tasks, "cpu": cpu, "articles": articles}
        if any(isinstance(step, FinalizeStep) for step in steps):
            start = time.process_time()
            merge_statistics(prepared.layout, prepared.units, prepared.build.tasks)
            entry["merge"] = time.process_time() - start
        measured.append(entry)
    return measured


def startup_cpu(corpus_dir: Path, work: Path, tasks: str) -> float:
    """CPU seconds of a whole task build of a 5-article slice of the corpus: the start-up every build pays (imports,
    the executors, every stage's fixed work)."""
    tiny = _first_articles(corpus_dir, 5, work / "tiny-corpus", redirects=False)
    command = [*kit_command("dataset_scripts.build"), "--input", str(tiny), "--tasks", tasks]
    return run_measured([*command, "--output-dir", str(work / "tiny-out")])


PIECES = {"tasks": "units", "ltm": "units", "see-also-join": "buckets", "cards": "datasets"}
"""How each task stage is cut (stages not named here: by units)."""


def plan_figures(build, sample: int, corpus: CorpusArguments, work: Path) -> PlanFigures:
    """Measure a build's figures on the first ``sample`` articles of each of its input shards (a built corpus
    folder: its first ``sample`` articles), raw inputs read as ``corpus`` says."""
    from wikiformer_kit.dataset_scripts.corpus.folder import is_corpus_dir
    from wikiformer_kit.dataset_scripts.executors import ExecutorOptions
    from wikiformer_kit.dataset_scripts.tasks.build import prepare_build

    inputs = [Path(p) for p in build.inputs]
    stages: list[StageCost] = []
    corpus_startup = 0.0
    if len(inputs) == 1 and is_corpus_dir(inputs[0]):
        corpus = _first_articles(inputs[0], sample, work / "corpus")
    else:
        corpus, per_article, corpus_startup = sample_corpus(inputs, sample, work, corpus)
        stages.append(StageCost("corpus", per_article, 0.0, "shards"))
    articles = _corpus_articles(corpus)
    options = replace(build, inputs=(corpus,), output_dir=work / "tasks", executor=ExecutorOptions(num_proc=1))
    prepared = prepare_build(options)
    with contextlib.redirect_stderr(io.StringIO()):  # the stages' progress bars and logs: the plan prints figures
        measured = measure_task_stages(prepared)
    for entry in measured:
        kind = PIECES.get(entry["name"], "units")
        total = sum(entry["cpu"])
        if "merge" in entry:  # the cards: the statistics merge grows with the corpus, the rest is fixed
            stages.append(StageCost("statistics merge", entry["merge"] / articles, 0.0, "one"))
            stages.append(StageCost(entry["name"], 0.0, max(0.0, total - entry["merge"]), kind))
        else:
            stages.append(StageCost(entry["name"], total / articles, 0.0, kind))
    startup = startup_cpu(corpus, work, ",".join(build.tasks))
    return PlanFigures(articles, startup, corpus_startup, tuple(stages), build.articles_per_unit, len(build.tasks))


def _first_articles(corpus_dir: Path, count: int, output: Path, redirects: bool = True) -> Path:
    """A corpus folder of the first ``count`` articles of a built corpus (and, with ``redirects``, all its redirects,
    linked)."""
    import pyarrow.parquet as pq

    (output / "data").mkdir(parents=True, exist_ok=True)
    first = sorted((corpus_dir / "data").glob("*.parquet"))[0]
    pq.write_table(pq.read_table(first).slice(0, count), output / "data" / "00000.parquet")
    if redirects and (corpus_dir / "redirects").exists():
        (output / "redirects").symlink_to((corpus_dir / "redirects").resolve())
    return output


def estimated_articles(inputs: Sequence[Path]) -> int:
    """The article count of raw inputs from their size at :data:`BZ2_BYTES_PER_ARTICLE` (a corpus folder: its
    rows)."""
    from wikiformer_kit.dataset_scripts.corpus.folder import is_corpus_dir

    if len(inputs) == 1 and is_corpus_dir(inputs[0]):
        return _corpus_articles(inputs[0])
    files = [f for p in inputs for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file()]
    return max(1, sum(f.stat().st_size for f in files if "index" not in f.name) // BZ2_BYTES_PER_ARTICLE)


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.1f} s"


def plan_table(
    figures: PlanFigures, articles: int, processes: Sequence[int], clusters: Sequence[tuple[int, int]] = ()
) -> list[str]:
    """The prediction as Markdown lines: one row per process count and per cluster (nodes, cores a node)."""
    corpus_stage = any(s.name == "corpus" for s in figures.stages)
    one = predict(figures, articles, 1, corpus_stage=corpus_stage).total
    names = [s.name for s in figures.stages if s.name != "corpus"]
    header = ["processes", "nodes x cores", "corpus stage", "task stage", "total", "speed-up", "serial share"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    runs = [(p, 1, "1 x " + str(p)) for p in processes] + [(n * c, n, f"{n} x {c}") for n, c in clusters]
    for count, nodes, shape in runs:
        p = predict(figures, articles, count, nodes=nodes, corpus_stage=corpus_stage)
        tasks = sum(p.stages[n] for n in ["start-up", *names])
        cells = [str(count), shape, _duration(p.corpus) if corpus_stage else "-", _duration(tasks), _duration(p.total)]
        cells += [f"{one / p.total:.1f}x", f"{p.serial / p.total:.0%}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def figure_lines(figures: PlanFigures, articles: int) -> list[str]:
    """The figures a prediction used, one line each."""
    lines = [
        f"- sample: {figures.sample_articles:,} articles; whole input: {articles:,} articles",
        f"- start-up of a task build (imports, executors, every stage's fixed work): {figures.startup:.2f} CPU s",
    ]
    if figures.corpus_startup:
        lines.append(f"- start-up of the corpus stage: {figures.corpus_startup:.2f} CPU s")
    for stage in figures.stages:
        rate = f"{stage.per_article * 1000:.3f} CPU ms an article"
        serial = f", {stage.serial:.2f} CPU s once" if stage.serial else ""
        lines.append(f"- {stage.name}: {rate} (cut by {stage.pieces}){serial}")
    return lines


def run_plan(
    build,
    *,
    sample: int,
    articles: int | None,
    processes: Sequence[int],
    clusters: Sequence[tuple[int, int]],
    corpus: CorpusArguments,
    figures_json: Path | None,
) -> list[str]:
    """Measure on a sample of the build's inputs (raw ones read as ``corpus`` says) and return the plan's lines
    (figures, then the table)."""
    with tempfile.TemporaryDirectory(prefix="wikiformer-plan-") as folder:
        figures = plan_figures(build, sample, corpus, Path(folder))
    total = articles or estimated_articles([Path(p) for p in build.inputs])
    if figures_json:
        figures_json.write_text(json.dumps({"articles": total, **asdict(figures)}, indent=1) + "\n", "utf-8")
    head = [
        f"Projection of a build of {total:,} articles from figures measured on {figures.sample_articles:,} of them "
        "(one core a process; on a cluster each stage's tasks start again, the scheduler's wait not counted):"
    ]
    return head + figure_lines(figures, total) + [""] + plan_table(figures, total, processes, clusters)
