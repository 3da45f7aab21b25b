"""The last stage of the task build: the statistics merged, each task's dataset card written."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from datatrove.utils.logging import logger

from wikiformer_kit.dataset_scripts.fingerprint import stamp
from wikiformer_kit.dataset_scripts.tasks.build_layout import (
    EMPTY_SHARD,
    BuildLayout,
    UnitStep,
    empty_task_reason,
    write_empty_shard,
    write_json,
)
from wikiformer_kit.dataset_scripts.tasks.card import write_card
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit
from wikiformer_kit.dataset_scripts.tasks.registry import get_task
from wikiformer_kit.dataset_scripts.tasks.stats import TaskStats


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


class FinalizeStep(UnitStep):
    """The last stage: merge statistics and write each task's dataset card; a task without rows gets an empty
    dataset with its full schema and a card saying why it is empty. Run as ``w`` tasks, rank ``r`` writes the
    datasets ``tasks[r::w]`` and rank 0 also ``.build/summary.json`` (the build runs it as one task).
    ``build_info``: build parameters and source description, passed to the card writer."""

    name = "statistics + dataset cards"

    def __init__(self, root: Path, units: Sequence[Unit], tasks: Sequence[str], build_info: dict[str, Any]):
        super().__init__(root, units)
        self.tasks, self.build_info = tuple(tasks), build_info

    def process(self, rank: int, world_size: int) -> None:
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
