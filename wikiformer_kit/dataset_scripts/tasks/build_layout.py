"""Where the task build writes (:class:`BuildLayout`) and how its steps write rows, empty shards and records.

The build's stages, one step per module:

Stage 1 (:class:`ArticleTasksStep`, one task per process) samples SRR, RWI and ATI unit by unit and writes each
unit's LTM index shard, See also links and titles cut into the join's buckets (and the redirect files, cut the
same way); the join stage (:class:`SeeAlsoJoinStep`) builds each bucket of the title join on disk; the LTM stage
(:class:`LtmStep`) samples LTM over the whole corpus, resolving See also targets in the join; the last stage
(:class:`FinalizeStep`, one task) merges the statistics and writes the dataset cards. Every unit writes its files under a temporary name, renames them, and only then writes its marker, so an
interrupted build resumes at the first unit without a marker and never duplicates or loses rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from datatrove.pipeline.base import PipelineStep

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write, clear_partial
from wikiformer_kit.dataset_scripts.fingerprint import file_digest
from wikiformer_kit.dataset_scripts.tasks.common import TaskOutput
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit
from wikiformer_kit.dataset_scripts.tasks.see_also_join import write_redirect_parts
from wikiformer_kit.dataset_scripts.tasks.spec import Features, TaskSpec
from wikiformer_kit.dataset_scripts.tasks.stats import TaskStats


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


class UnitStep(PipelineStep):
    """A datatrove step of the task build over all the corpus's ``units``, writing under ``root``: each rank does
    its share (:meth:`process`), then passes the pipeline's data on."""

    type = "Wikiformer"

    def __init__(self, root: Path, units: Sequence[Unit]):
        super().__init__()
        self.layout, self.units = BuildLayout(Path(root)), list(units)

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        self.process(rank, world_size)
        if data:
            yield from data

    def process(self, rank: int, world_size: int) -> None:
        """This rank's share of the stage."""
        raise NotImplementedError


def write_rows(rows: Sequence[dict[str, Any]], schema: pa.Schema, path: Path) -> None:
    """Write rows as a Parquet shard of ``schema`` (a task's :attr:`~.spec.TaskSpec.arrow_schema`) atomically
    (temporary file, then rename), byte-reproducibly."""
    table = pa.Table.from_pylist(list(rows), schema=schema)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))


def write_task_rows(marker: dict, spec: TaskSpec, output: TaskOutput, shard: Path, stats=None, digest=True) -> None:
    """A unit's rows of a task written as its ``shard`` (when it has rows), their statistics put in the unit's
    ``marker`` (``tasks``; ``stats``: a :class:`TaskStats` already holding the task's measures) and, with
    ``digest``, the shard's :func:`~dataset_scripts.fingerprint.file_digest` (``files``)."""
    stats = TaskStats() if stats is None else stats
    stats.add(output, spec.fixed_side)
    marker.setdefault("tasks", {})[spec.name] = stats.to_dict()
    if output.groups:
        write_rows(output.groups, spec.arrow_schema, shard)
        if digest:
            marker.setdefault("files", {})[spec.name] = file_digest(shard)


def write_missing(path: Path, write: Callable[[Path], Any]) -> bool:
    """Write ``path`` atomically with ``write`` unless it exists (after clearing what an interrupted write left);
    whether it was written."""
    if path.exists():
        return False
    clear_partial([path])
    atomic_write(path, write)
    return True


def cut_redirect_files(layout: BuildLayout, files: Sequence[Path], buckets: int, rank: int, world_size: int) -> None:
    """This rank's corpus redirect files (every ``world_size``-th from ``rank``) cut into the title join's buckets,
    those not cut yet."""
    for number in range(rank, len(files), world_size):
        source = files[number]
        write_missing(
            layout.redirect_parts(number, buckets),
            lambda tmp, source=source: write_redirect_parts(source, buckets, tmp),
        )


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
