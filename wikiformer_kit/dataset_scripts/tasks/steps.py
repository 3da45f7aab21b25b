"""The datatrove steps that build the task datasets from a Parquet corpus, and where they write.

Stage 1 (:class:`ArticleTasksStep`, one task per process) samples SRR, RWI and ATI unit by unit and writes each
unit's LTM index shard, See also links and titles cut into the join's buckets (and the redirect files, cut the
same way); the join stage (:class:`SeeAlsoJoinStep`) builds each bucket of the title join on disk; the LTM stage
(:class:`LtmStep`) samples LTM over the whole corpus, resolving See also targets in the join; the last stage
(:class:`FinalizeStep`, one task) merges the statistics and writes the dataset cards. Every unit writes its files under a temporary name, renames them, and only then writes its marker, so an
interrupted build resumes at the first unit without a marker and never duplicates or loses rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from datatrove.pipeline.base import PipelineStep
from datatrove.utils.logging import logger
from tqdm.auto import tqdm

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write, clear_partial
from wikiformer_kit.dataset_scripts.fingerprint import file_digest, stamp
from wikiformer_kit.dataset_scripts.tasks import ltm
from wikiformer_kit.dataset_scripts.tasks.card import write_card
from wikiformer_kit.dataset_scripts.tasks.common import TaskOutput, task_rng
from wikiformer_kit.dataset_scripts.tasks.corpus_units import WST_COLUMNS, Unit, rank_units, read_unit
from wikiformer_kit.dataset_scripts.tasks.free_memory import rare_collections
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.registry import get_task
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import ArticleIndex, edge_table, index_table, write_index
from wikiformer_kit.dataset_scripts.tasks.see_also_join import (
    TitleJoin,
    build_bucket,
    write_redirect_parts,
    write_title_parts,
)
from wikiformer_kit.dataset_scripts.tasks.spec import Features
from wikiformer_kit.dataset_scripts.tasks.stats import TaskStats

LTM_TARGETS_PER_BATCH = 50_000
"""See also targets the LTM stage resolves at once (whole units, at least one): what bounds the memory of the
targets in Python and their rows, whatever the unit and corpus sizes (a count of units held ~60 MiB at 64 units of
1,000 articles)."""


@dataclass(frozen=True)
class BuildLayout:
    """Where a build writes: ``<root>/wikiformer-<task>/`` (the datasets) and ``<root>/.build/`` (work files)."""

    root: Path

    def task_dir(self, task: str) -> Path:
        """The dataset folder of a task."""
        return self.root / f"wikiformer-{task}"

    def shard(self, task: str, unit: int, units: int) -> Path:
        """The Parquet shard a unit writes for a task."""
        return self.task_dir(task) / "data" / f"train-{unit:05d}-of-{units:05d}.parquet"

    @property
    def work(self) -> Path:
        """Work files: markers, LTM index, See also links, executor logs."""
        return self.root / ".build"

    def marker(self, stage: str, unit: int) -> Path:
        """The file whose presence says a unit is done for a stage (it holds the unit's statistics)."""
        return self.work / stage / f"{unit:05d}.json"

    def unit_done(self, stage: str, unit: int, units: int) -> bool:
        """Whether a unit is done for a stage: its marker exists and so does every file the marker accounts for
        (a shard deleted by hand since is rebuilt rather than silently missing)."""
        path = self.marker(stage, unit)
        if not path.exists():
            return False
        marker = json.loads(path.read_text("utf-8"))
        shards = [self.shard(t, unit, units) for t, stats in marker["tasks"].items() if stats["rows"]]
        extra = [self.index_file(unit), self.edges_file(unit)] if "see_also" in marker else []
        return all(p.exists() for p in shards + extra)

    def index_file(self, unit: int) -> Path:
        """A unit's LTM index shard (Arrow IPC)."""
        return self.work / "ltm-index" / f"{unit:05d}.arrow"

    def edges_file(self, unit: int) -> Path:
        """A unit's See also links (Parquet)."""
        return self.work / "see-also" / f"{unit:05d}.parquet"

    def join_dir(self, buckets: int) -> Path:
        """The See also title join's files for ``buckets`` buckets (see :mod:`.see_also_join`)."""
        return self.work / f"see-also-join-{buckets}"

    def title_parts(self, unit: int, buckets: int) -> Path:
        """A unit's titles and corpus rows cut into the join's buckets (Arrow IPC, one record batch a bucket)."""
        return self.join_dir(buckets) / "titles" / f"{unit:05d}.arrow"

    def redirect_parts(self, number: int, buckets: int) -> Path:
        """Corpus redirect file ``number`` cut into the join's buckets."""
        return self.join_dir(buckets) / "redirects" / f"{number:05d}.arrow"

    def bucket_file(self, bucket: int, buckets: int) -> Path:
        """One bucket of the join (SQLite: titles and redirects of that bucket)."""
        return self.join_dir(buckets) / "buckets" / f"{bucket:05d}.sqlite"

    def logs(self, stage: str, world_size: int) -> Path:
        """datatrove's logging folder of a stage (per world size, since its completions are per rank; ``-sized``:
        ranks given their units by size (:func:`.corpus_units.rank_units`), so that a build begun when every rank
        took every world-size-th unit does not skip, as completed, ranks whose units have changed)."""
        return self.work / "logs" / f"{stage}-w{world_size}-sized"


def write_rows(rows: Sequence[dict[str, Any]], schema: pa.Schema, path: Path) -> None:
    """Write rows as a Parquet shard of ``schema`` (a task's :attr:`~.spec.TaskSpec.arrow_schema`) atomically
    (temporary file, then rename), byte-reproducibly."""
    table = pa.Table.from_pylist(list(rows), schema=schema)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))


EMPTY_SHARD = "train-empty.parquet"
"""The shard of a task without rows: no row group, the task's full schema."""


def write_empty_shard(path: Path, features: Features) -> None:
    """An empty Parquet shard with the task's schema and no row group (``datasets`` would read a 0-row row group
    with batch size 0 and fail); ``load_dataset(..., streaming=True)`` reads it as 0 rows with every column."""
    atomic_write(path, lambda tmp: pq.ParquetWriter(tmp, features.arrow_schema).close())


NO_SEE_ALSO_FORMATS = {"structured-contents": "Wikimedia's Structured Contents leave the See also section out"}
"""Input formats that never carry a See also section, and what LTM's empty dataset says of them."""


def empty_task_reason(
    task: str, stats: TaskStats, statistics: dict[str, Any], formats: Sequence[str] | None = None
) -> str:
    """Why a task has no rows, from the build statistics and the corpus's input ``formats`` (one sentence without a
    final period)."""
    if not statistics["articles"]:
        return "the corpus has no articles"
    if task == "ltm" and not statistics["see_also"]["links"]:
        reason = f"none of the {statistics['articles']:,} articles has a See also link"
        causes = [NO_SEE_ALSO_FORMATS[name] for name in formats or () if name in NO_SEE_ALSO_FORMATS]
        if causes and len(causes) == len(formats):
            reason += f" ({'; '.join(causes)}: build LTM from an XML or Enterprise HTML dump of the same wiki)"
        return reason
    reasons = ", ".join(f"{k}: {v:,}" for k, v in sorted(stats.skipped.items(), key=lambda item: -item[1]))
    return f"none of the {statistics['articles']:,} articles gave a group ({reasons or 'no candidate'})"


def write_json(data: Any, path: Path) -> None:
    """Write JSON atomically, with sorted keys."""
    atomic_write(path, lambda tmp: tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8"))


class ArticleTasksStep(PipelineStep):
    """Stage 1: the rows of every per-article task (SRR/RWI/ATI: a spec with a sampler), LTM index shard and See
    also links, for this rank's units.

    Args:
        root: the build's output folder.
        units: all units of the corpus (this rank takes :func:`.corpus_units.rank_units`).
        tasks: the tasks being built.
        options: sampling options.
        redirect_files: the corpus redirect shards (cut into the join's buckets when LTM is built; this rank
            takes ``redirect_files[rank::world_size]``).
        buckets: the number of buckets of the See also title join.
    """

    name = "SRR/RWI/ATI + See also links"
    type = "Wikiformer"

    def __init__(
        self,
        root: Path,
        units: Sequence[Unit],
        tasks: Sequence[str],
        options: TaskOptions,
        redirect_files: Sequence[Path] = (),
        buckets: int = 1,
    ):
        super().__init__()
        self.layout, self.units, self.tasks, self.options = BuildLayout(Path(root)), list(units), tuple(tasks), options
        self.redirect_files, self.buckets = [Path(p) for p in redirect_files], buckets
        self.first_rows = [0]  # corpus row of each unit's first article
        for unit in self.units:
            self.first_rows.append(self.first_rows[-1] + unit.stop - unit.start)

    def _done(self, unit: Unit) -> bool:
        if not self.layout.unit_done("units", unit.number, len(self.units)):
            return False
        return "ltm" not in self.tasks or self.layout.title_parts(unit.number, self.buckets).exists()

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        """Process this rank's units that are not done yet (and cut its redirect files into buckets)."""
        todo = [u for u in rank_units(self.units, rank, world_size) if not self._done(u)]
        with (
            rare_collections(),
            tqdm(total=sum(u.stop - u.start for u in todo), desc=f"articles (rank {rank})", unit="art") as bar,
        ):
            for unit in todo:
                self._unit(unit, bar)
        if "ltm" in self.tasks:
            for number in range(rank, len(self.redirect_files), world_size):
                path = self.layout.redirect_parts(number, self.buckets)
                if not path.exists():
                    clear_partial([path])
                    source = self.redirect_files[number]
                    atomic_write(path, lambda tmp, source=source: write_redirect_parts(source, self.buckets, tmp))
        if data:
            yield from data

    def _unit(self, unit: Unit, bar: tqdm) -> None:
        units, number = len(self.units), unit.number
        shards = [self.layout.shard(t, number, units) for t in self.tasks if get_task(t).sampler]
        titles = self.layout.title_parts(number, self.buckets)
        clear_partial([*shards, self.layout.index_file(number), self.layout.edges_file(number), titles])
        samplers = {task: get_task(task).sampler for task in self.tasks if get_task(task).sampler}
        links = any(get_task(task).reads_links for task in samplers)
        articles = read_unit(unit, None if links else WST_COLUMNS)
        outputs = {task: TaskOutput() for task in samplers}
        for article in articles:
            for task, output in outputs.items():
                sampled = samplers[task](article, task_rng(self.options.seed, task, article.id), self.options)
                output.groups.extend(sampled.groups)
                output.skipped.update(sampled.skipped)
            bar.update()
        marker: dict[str, Any] = {"articles": len(articles), "tasks": {}}
        for task, output in outputs.items():
            stats = TaskStats()
            spec = get_task(task)
            stats.add(output, spec.fixed_side)
            marker["tasks"][task] = stats.to_dict()
            if output.groups:
                shard = self.layout.shard(task, unit.number, len(self.units))
                write_rows(output.groups, spec.arrow_schema, shard)
                marker.setdefault("files", {})[task] = file_digest(shard)
            self.stat_update(f"{task}_rows", value=len(output.groups))
        if "ltm" in self.tasks:
            self.layout.index_file(unit.number).parent.mkdir(parents=True, exist_ok=True)
            index = index_table(articles, self.options)
            atomic_write(self.layout.index_file(unit.number), lambda tmp: write_index(index, tmp))
            first_row = self.first_rows[number]
            atomic_write(titles, lambda tmp: write_title_parts(index.column("title"), first_row, self.buckets, tmp))
            edges = edge_table(articles)
            atomic_write(self.layout.edges_file(unit.number), lambda tmp: pq.write_table(edges, tmp))
            marker["see_also"] = {"articles": sum(1 for a in articles if a.see_also), "links": edges.num_rows}
        self.stat_update("articles", value=len(articles))
        write_json(marker, self.layout.marker("units", unit.number))


class SeeAlsoJoinStep(PipelineStep):
    """The join stage: build the buckets of the See also title join (``range(rank, buckets, world_size)``) from
    the parts stage 1 wrote; a bucket whose file exists is done.

    Args:
        root: the build's output folder (stage 1 must be complete).
        units: all units of the corpus.
        redirect_count: the number of corpus redirect shards.
        buckets: the number of buckets.
    """

    name = "See also title join"
    type = "Wikiformer"

    def __init__(self, root: Path, units: Sequence[Unit], redirect_count: int, buckets: int):
        super().__init__()
        self.layout, self.units = BuildLayout(Path(root)), list(units)
        self.redirect_count, self.buckets = redirect_count, buckets

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        """Build this rank's buckets that are not built yet."""
        layout, buckets = self.layout, self.buckets
        titles = [layout.title_parts(u.number, buckets) for u in self.units]
        redirects = [layout.redirect_parts(n, buckets) for n in range(self.redirect_count)]
        missing = [p for p in titles + redirects if not p.exists()]
        if missing:
            raise FileNotFoundError(
                f"{len(missing)} part files of the See also join are missing, e.g. {missing[0]}: stage 1 of this "
                f"build was run by a version without the join; delete {layout.work / 'logs'} and rerun the same "
                "command (finished units are not sampled again)"
            )
        for bucket in range(rank, buckets, world_size):
            path = layout.bucket_file(bucket, buckets)
            if path.exists():
                continue
            clear_partial([path])
            atomic_write(path, lambda tmp, bucket=bucket: build_bucket(bucket, buckets, titles, redirects, tmp))
            self.stat_update("buckets", value=1)
        if data:
            yield from data


class LtmStep(PipelineStep):
    """The LTM stage: LTM rows for the See also links of this rank's units, against the whole corpus index and
    the title join (the join stage must be complete).

    Args:
        root: the build's output folder.
        units: all units of the corpus.
        options: sampling options.
        buckets: the number of buckets of the title join.
    """

    name = "LTM over the See Also Graph"
    type = "Wikiformer"

    def __init__(self, root: Path, units: Sequence[Unit], options: TaskOptions, buckets: int = 1):
        super().__init__()
        self.layout, self.units, self.options, self.buckets = BuildLayout(Path(root)), list(units), options, buckets

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        """Process this rank's units that are not done yet for LTM."""
        todo = [
            u
            for u in rank_units(self.units, rank, world_size)
            if not self.layout.unit_done("ltm-units", u.number, len(self.units))
        ]
        if todo:
            index = ArticleIndex([self.layout.index_file(u.number) for u in self.units])
            join = self.title_join()
            with rare_collections(), tqdm(total=len(todo), desc=f"LTM units (rank {rank})", unit="unit") as bar:
                # links are resolved a batch of units at a time: only that batch's link targets in memory
                for batch in self._batches(todo):
                    resolved = join.resolve([t for _, e in batch for t in e.column("target").to_pylist()])
                    start = 0
                    for unit, unit_edges in batch:
                        self._unit(unit, index, unit_edges, resolved[start : start + unit_edges.num_rows])
                        index.release_pages()  # a unit's negatives touch pages all over the index
                        start += unit_edges.num_rows
                        bar.update()
        if data:
            yield from data

    def _batches(self, todo: Sequence[Unit]) -> Iterator[list[tuple[Unit, pa.Table]]]:
        """``todo``'s units with their See also edges, in batches of whole units of at most
        ``LTM_TARGETS_PER_BATCH`` targets (a larger unit alone)."""
        batch: list[tuple[Unit, pa.Table]] = []
        targets = 0
        for unit in todo:
            edges = pq.read_table(self.layout.edges_file(unit.number))
            if batch and targets + edges.num_rows > LTM_TARGETS_PER_BATCH:
                yield batch
                batch, targets = [], 0
            batch.append((unit, edges))
            targets += edges.num_rows
        if batch:
            yield batch

    def title_join(self) -> TitleJoin:
        """What resolves See also targets to corpus rows: the join stage's bucket files."""
        return TitleJoin([self.layout.bucket_file(b, self.buckets) for b in range(self.buckets)])

    def _unit(self, unit: Unit, index: ArticleIndex, edges: pa.Table, resolved: list[int | None]) -> None:
        clear_partial([self.layout.shard("ltm", unit.number, len(self.units))])
        offset = int(index.offsets[unit.number])
        by_source: dict[int, list[int | None]] = {}
        for source, target in zip(edges.column("source").to_pylist(), resolved, strict=True):
            by_source.setdefault(offset + source, []).append(target)
        planned, skipped = [], TaskOutput()
        for source, targets in by_source.items():
            rows, out = ltm.plan_groups(source, targets, index, self.options)
            planned.extend(rows)
            skipped.skipped.update(out.skipped)
        output = ltm.materialise(planned, index)
        output.skipped.update(skipped.skipped)
        stats = TaskStats()
        stats.add(output, ltm.SPEC.fixed_side)
        marker: dict[str, Any] = {"tasks": {"ltm": stats.to_dict()}}
        if output.groups:
            shard = self.layout.shard("ltm", unit.number, len(self.units))
            write_rows(output.groups, ltm.SPEC.arrow_schema, shard)
            marker["files"] = {"ltm": file_digest(shard)}
        self.stat_update("ltm_rows", value=len(output.groups))
        write_json(marker, self.layout.marker("ltm-units", unit.number))


def merge_statistics(layout: BuildLayout, units: Sequence[Unit], tasks: Sequence[str]) -> dict[str, Any]:
    """The whole build's statistics from the unit markers: ``{"articles", "see_also", "tasks": {task: TaskStats},
    "files": {task: {shard path in the task's folder: (size, digest)}}}`` (``files``: the shards whose writer
    recorded their :func:`~dataset_scripts.fingerprint.file_digest`)."""
    merged = {task: TaskStats() for task in tasks}
    files: dict[str, dict[str, tuple[int, str]]] = {task: {} for task in tasks}
    articles, see_also = 0, {"articles": 0, "links": 0}
    for unit in units:
        first = layout.marker("units", unit.number)
        if not first.exists():  # a build of corpus-wide tasks only (PROP, HARP): their first stage counted articles
            first = layout.marker("baseline-stats", unit.number)
        marker = json.loads(first.read_text(encoding="utf-8"))
        marker.setdefault("tasks", {})
        written = marker.get("files", {})
        articles += marker["articles"]
        for key in see_also:
            see_also[key] += marker.get("see_also", {}).get(key, 0)
        if "ltm" in tasks:
            ltm_marker = json.loads(layout.marker("ltm-units", unit.number).read_text("utf-8"))
            marker["tasks"].update(ltm_marker["tasks"])
            written = {**written, **ltm_marker.get("files", {})}
        baseline = layout.marker("baseline-units", unit.number)
        if baseline.exists():
            marker["tasks"].update(json.loads(baseline.read_text("utf-8"))["tasks"])
        for task in tasks:
            merged[task].merge(TaskStats.from_dict(marker["tasks"][task]))
            if task in written:
                size, digest = written[task]
                files[task][f"data/{layout.shard(task, unit.number, len(units)).name}"] = (size, digest)
    return {"articles": articles, "see_also": see_also, "tasks": merged, "files": files}


class FinalizeStep(PipelineStep):
    """The last stage: merge statistics and write each task's dataset card; a task without rows gets an empty
    dataset with its full schema and a card saying why it is empty. Run as ``w`` tasks, rank ``r`` writes the
    datasets ``tasks[r::w]`` and rank 0 also ``.build/summary.json`` (the build runs it as one task).

    Args:
        root: the build's output folder.
        units: all units of the corpus.
        tasks: the tasks being built.
        build_info: build parameters and source description, passed to the card writer.
    """

    name = "statistics + dataset cards"
    type = "Wikiformer"

    def __init__(self, root: Path, units: Sequence[Unit], tasks: Sequence[str], build_info: dict[str, Any]):
        super().__init__()
        self.layout, self.units, self.tasks, self.build_info = (
            BuildLayout(Path(root)),
            list(units),
            tuple(tasks),
            build_info,
        )

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        """Write this rank's datasets' fingerprinted names and cards (and, rank 0, the build summary)."""
        statistics = merge_statistics(self.layout, self.units, self.tasks)
        summary: dict[str, Any] = {"articles": statistics["articles"], "see_also": statistics["see_also"]}
        for number, task in enumerate(self.tasks):
            stats: TaskStats = statistics["tasks"][task]
            summary[task] = stats.to_dict()
            reason = None
            if stats.rows == 0:
                reason = empty_task_reason(task, stats, statistics, self.build_info.get("formats"))
                summary[task]["empty_reason"] = reason
            if number % world_size == rank:
                self._dataset(task, stats, statistics, reason)
        if rank == 0:
            write_json(summary, self.layout.work / "summary.json")
        if data:
            yield from data

    def _dataset(self, task: str, stats: TaskStats, statistics: dict[str, Any], reason: str | None) -> None:
        placeholder = self.layout.task_dir(task) / "data" / EMPTY_SHARD
        info = self.build_info
        if reason is not None:
            info = {**info, "empty_reason": reason}
            logger.warning(f"task {task} produced no group ({reason}); an empty dataset is written for it")
            write_empty_shard(placeholder, get_task(task).features)
        else:
            placeholder.unlink(missing_ok=True)  # an earlier empty build of the same folder
        # file names carrying the content's fingerprint: load_dataset(FOLDER) never finds another build's rows
        # cached under the same folder name (see dataset_scripts/fingerprint.py); the shards' digests were recorded
        # by the workers that wrote them
        task_dir = self.layout.task_dir(task)
        fingerprint = stamp(task_dir, [task_dir / "data"], statistics["files"][task])
        write_card(task_dir, task, stats, statistics, {**info, "fingerprint": fingerprint})
