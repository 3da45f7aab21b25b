"""Stage 1 of the task build: the rows of every per-article task (SRR, RWI, ATI), each unit's LTM index shard,
See also links and titles cut into the join's buckets."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from tqdm.auto import tqdm

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write, clear_partial
from wikiformer_kit.dataset_scripts.tasks.build_layout import (
    UnitStep,
    cut_redirect_files,
    write_json,
    write_task_rows,
)
from wikiformer_kit.dataset_scripts.tasks.common import TaskOutput, task_rng
from wikiformer_kit.dataset_scripts.tasks.corpus_units import WST_COLUMNS, Unit, first_rows, rank_units, read_unit
from wikiformer_kit.dataset_scripts.tasks.free_memory import rare_collections
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.registry import get_task
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import edge_table, index_table, write_index
from wikiformer_kit.dataset_scripts.tasks.see_also_join import write_title_parts


class ArticleTasksStep(UnitStep):
    """Stage 1: the rows of every per-article task (SRR/RWI/ATI: a spec with a sampler), LTM index shard and See
    also links, for this rank's units (:func:`.corpus_units.rank_units` of all the corpus's ``units``); with LTM,
    the corpus ``redirect_files`` are cut into the title join's ``buckets`` too."""

    name = "SRR/RWI/ATI + See also links"

    def __init__(
        self,
        root: Path,
        units: Sequence[Unit],
        tasks: Sequence[str],
        options: TaskOptions,
        redirect_files: Sequence[Path] = (),
        buckets: int = 1,
    ):
        super().__init__(root, units)
        self.tasks, self.options = tuple(tasks), options
        self.redirect_files, self.buckets = [Path(p) for p in redirect_files], buckets
        self.first_rows = first_rows(self.units)

    def _done(self, unit: Unit) -> bool:
        if not self.layout.unit_done("units", unit.number, len(self.units)):
            return False
        return "ltm" not in self.tasks or self.layout.title_parts(unit.number, self.buckets).exists()

    def process(self, rank: int, world_size: int) -> None:
        """Process this rank's units that are not done yet (and cut its redirect files into buckets)."""
        todo = [u for u in rank_units(self.units, rank, world_size) if not self._done(u)]
        with (
            rare_collections(),
            tqdm(total=sum(u.stop - u.start for u in todo), desc=f"articles (rank {rank})", unit="art") as bar,
        ):
            for unit in todo:
                self._unit(unit, bar)
        if "ltm" in self.tasks:
            cut_redirect_files(self.layout, self.redirect_files, self.buckets, rank, world_size)

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
            write_task_rows(marker, get_task(task), output, self.layout.shard(task, number, units))
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
