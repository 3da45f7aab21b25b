"""Stage 1 of the task build: the rows of every per-article task (SRR, RWI, ATI), each unit's LTM index shard,
See also links and titles cut into the join's buckets."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from datatrove.pipeline.base import PipelineStep
from tqdm.auto import tqdm

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write, clear_partial
from wikiformer_kit.dataset_scripts.fingerprint import file_digest
from wikiformer_kit.dataset_scripts.tasks.build_layout import (
    BuildLayout,
    write_json,
    write_rows,
)
from wikiformer_kit.dataset_scripts.tasks.common import TaskOutput, task_rng
from wikiformer_kit.dataset_scripts.tasks.corpus_units import WST_COLUMNS, Unit, rank_units, read_unit
from wikiformer_kit.dataset_scripts.tasks.free_memory import rare_collections
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.registry import get_task
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import edge_table, index_table, write_index
from wikiformer_kit.dataset_scripts.tasks.see_also_join import (
    write_redirect_parts,
    write_title_parts,
)
from wikiformer_kit.dataset_scripts.tasks.stats import TaskStats


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
