"""The LTM stage of the task build: LTM sampled over the whole corpus, See also targets resolved in the join."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from wikiformer_kit.dataset_scripts.atomic_files import clear_partial
from wikiformer_kit.dataset_scripts.tasks import ltm
from wikiformer_kit.dataset_scripts.tasks.build_layout import UnitStep, write_json, write_task_rows
from wikiformer_kit.dataset_scripts.tasks.common import TaskOutput
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit, rank_units
from wikiformer_kit.dataset_scripts.tasks.free_memory import rare_collections
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import ArticleIndex
from wikiformer_kit.dataset_scripts.tasks.see_also_join import TitleJoin

LTM_TARGETS_PER_BATCH = 50_000
"""See also targets the LTM stage resolves at once (whole units, at least one): what bounds the memory of the
targets in Python and their rows, whatever the unit and corpus sizes (a count of units held ~60 MiB at 64 units of
1,000 articles)."""


class LtmStep(UnitStep):
    """The LTM stage: LTM rows for the See also links of this rank's units, against the whole corpus index and
    the title join of ``buckets`` buckets (the join stage must be complete)."""

    name = "LTM over the See Also Graph"

    def __init__(self, root: Path, units: Sequence[Unit], options: TaskOptions, buckets: int = 1):
        super().__init__(root, units)
        self.options, self.buckets = options, buckets

    def process(self, rank: int, world_size: int) -> None:
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
        shard = self.layout.shard("ltm", unit.number, len(self.units))
        clear_partial([shard])
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
        marker: dict[str, Any] = {}
        write_task_rows(marker, ltm.SPEC, output, shard)
        self.stat_update("ltm_rows", value=len(output.groups))
        write_json(marker, self.layout.marker("ltm-units", unit.number))
