"""Task datasets and how batches draw from them: :func:`load_task` opens and checks one task dataset,
:class:`TaskMixtureSampler` decides which (task, row) fills each batch slot, :class:`GroupDataset` turns that into a
group (the positive first, then up to ``group_size - 1`` negatives sampled deterministically in (seed, epoch, task,
row))."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from torch.utils.data import Dataset, Sampler

from wikiformer_kit.dataset_scripts.tasks.registry import TASKS
from wikiformer_kit.training.arguments import TASK_MIXTURES, DataArguments

logger = logging.getLogger("wikiformer.train")


# Why a row is skipped; code 0 = usable. Stored per row as one int8 in a cached ``datasets`` column.
SKIP_REASONS = ("usable", "empty {fixed}", "empty positive", "no usable negative")


@dataclass
class Task:
    """One task dataset: its usable rows, read from the memory-mapped Arrow table by index, and its settings.

    The rows stay in Arrow (``datasets`` memory-maps the cache files, so DDP ranks and dataloader workers share the
    same pages); :meth:`group` reads one row and cleans its negatives (empty ones, duplicates and copies of the
    positive removed). Rows without a usable group were dropped by a cached filter in :func:`load_task`.

    Args:
        rows: the usable rows (a ``datasets.Dataset``; ``None`` for a task used only for its settings).
        candidates_are_queries: True when the candidates are queries and the fixed side is the document (RWI).
        query_max_length, doc_max_length: tokens kept of the query and the document side.
        fixed_column: ``query`` or ``document`` (RWI).
        negatives_column: ``negatives`` (a list) or ``negative`` (one text, MS MARCO triples).
    """

    name: str
    rows: Any
    candidates_are_queries: bool
    query_max_length: int
    doc_max_length: int
    weight: float = 1.0
    fixed_column: str = "query"
    negatives_column: str = "negatives"

    def __len__(self) -> int:
        return 0 if self.rows is None else len(self.rows)

    def group(self, row: int) -> tuple[str, str, list[str]]:
        """``(fixed, positive, negatives)`` of one row, negatives cleaned (see the class docstring)."""
        record = self.rows[row]
        positive = record["positive"]
        return record[self.fixed_column], positive, usable_negatives(record[self.negatives_column], positive)


def usable_negatives(negatives, positive: str) -> list[str]:
    """Non-empty negatives that differ from the positive, first occurrence of each kept, in order."""
    negatives = [negatives] if isinstance(negatives, str) else negatives or []
    return list(dict.fromkeys(n for n in negatives if isinstance(n, str) and n.strip() and n != positive))


def skip_reason(fixed, positive, negatives) -> int:
    """The :data:`SKIP_REASONS` code of one row (0 = usable)."""
    if not isinstance(fixed, str) or not fixed.strip():
        return 1
    if not isinstance(positive, str) or not positive.strip():
        return 2
    return 0 if usable_negatives(negatives, positive) else 3


def _skip_codes(fixed: list, positives: list, negatives: list) -> dict[str, list[int]]:
    return {"_skip": [skip_reason(*row) for row in zip(fixed, positives, negatives, strict=True)]}


def _is_usable(codes: list[int]) -> list[bool]:
    return [code == 0 for code in codes]


def _load_rows(source: str, config: str | None, split: str):
    from datasets import load_dataset

    path = Path(source)
    kinds = {".parquet": "parquet", ".jsonl": "json", ".json": "json", ".csv": "csv"}
    if path.is_file():
        if path.suffix.lower() not in kinds:
            raise ValueError(f"{source}: unsupported file type (use {', '.join(kinds)} or a dataset folder)")
        return load_dataset(kinds[path.suffix.lower()], data_files=str(path), split="train")
    config = None if config in (None, "", "default") else config
    if path.is_dir():  # that folder's files, never rows cached for another folder of the same name
        from wikiformer_kit.eval.collections.local_dataset import load_local_dataset

        return load_local_dataset(path, config, split=split)
    return load_dataset(source, config, split=split)


def load_task(
    source: str,
    name: str,
    query_max_length: int,
    doc_max_length: int,
    weight: float = 1.0,
    config: str | None = None,
    split: str = "train",
    max_rows: int | None = None,
    num_proc: int | None = None,
) -> Task:
    """Open a task dataset (memory-mapped Arrow) and keep its usable rows; skips are counted by reason and logged.

    The fixed side is ``query`` or, for RWI-style data, ``document`` (the candidates are then queries). Negatives
    come from ``negatives`` (a list) or ``negative`` (one text, as in MS MARCO triples). Checking is two cached
    ``datasets`` passes: a one-byte skip code per row, then a filter on that code; a second start (or another DDP
    rank) finds both in the cache and reads no text. No text is copied into Python objects.

    Args:
        source: local folder (Parquet + card), data file, or Hub id.
        name, query_max_length, doc_max_length, weight: the :class:`Task`'s.
        config: dataset config name, if any.
        split: the split to read from a folder or Hub repo.
        max_rows: keep at most the first ``max_rows`` rows (before validation).
        num_proc: processes for the first (uncached) check.

    Raises:
        ValueError: the dataset lacks the group columns (the message names it and lists its columns), or none of
            its rows is usable (the message gives the skip counts).
    """
    from datasets import Features, Value, concatenate_datasets

    rows = _load_rows(source, config, split)
    columns = set(rows.column_names)
    fixed_column = "query" if "query" in columns else "document" if "document" in columns else None
    negatives_column = "negatives" if "negatives" in columns else "negative" if "negative" in columns else None
    if fixed_column is None or "positive" not in columns or negatives_column is None:
        raise ValueError(
            f"{source}: a task dataset needs query|document, positive and negatives|negative columns; "
            f"found {sorted(columns)}"
        )
    if max_rows is not None:
        rows = rows.select(range(min(max_rows, len(rows))))
    rows = rows.select_columns([fixed_column, "positive", negatives_column])
    codes = rows.map(
        _skip_codes,
        batched=True,
        batch_size=1_000,
        input_columns=[fixed_column, "positive", negatives_column],
        remove_columns=rows.column_names,
        features=Features({"_skip": Value("int8")}),
        num_proc=num_proc,
        desc=f"checking {name}",
    )
    counts = np.bincount(codes.with_format("numpy")["_skip"], minlength=len(SKIP_REASONS)) if len(codes) else []
    skipped = {
        reason.format(fixed=fixed_column): int(count)
        for reason, count in zip(SKIP_REASONS, counts, strict=False)
        if reason != "usable" and count
    }
    if skipped:
        logger.warning(f"{source}: skipped {sum(skipped.values())} of {len(rows)} rows: {skipped}")
    if not len(rows) or int(counts[0]) == 0:
        raise ValueError(f"{source}: no usable group in {len(rows)} rows (skipped: {skipped})")
    if skipped:
        flagged = concatenate_datasets([rows, codes], axis=1)
        rows = flagged.filter(
            _is_usable, batched=True, batch_size=10_000, input_columns=["_skip"], desc=f"keeping {name}"
        ).select_columns([fixed_column, "positive", negatives_column])
    return Task(
        name, rows, fixed_column == "document", query_max_length, doc_max_length, weight, fixed_column, negatives_column
    )


def _per_task(values: list, count: int, what: str) -> list:
    if len(values) == 1:
        return values * count
    if len(values) != count:
        raise ValueError(f"--{what} needs one value or one per dataset ({count}); got {values}")
    return values


def default_lengths(name: str) -> tuple[int, int]:
    """The (query, document) token budgets of a task: its spec's (``dataset_scripts.tasks``) for a task the kit
    builds, else the paper's 30 / 480 (fine-tuning data, a task of another kit)."""
    spec = TASKS.get(name)
    return (spec.query_max_length, spec.doc_max_length) if spec else (30, 480)


def load_tasks(data_args: DataArguments) -> list[Task]:
    """Load every task dataset named by ``--train_datasets`` with its name, weight, config and lengths (the
    task spec's lengths where ``--query_max_lengths``/``--doc_max_lengths`` are not given)."""
    sources = data_args.train_datasets
    if not sources:
        raise ValueError("no --train_datasets given")
    count = len(sources)
    names = data_args.task_names or [Path(s.rstrip("/")).stem.removeprefix("wikiformer-") for s in sources]
    names = _per_task(names, count, "task_names")
    weights = data_args.task_weights or [1.0]
    configs = data_args.dataset_configs or ["default"]
    query_lengths = data_args.query_max_lengths or [default_lengths(name)[0] for name in names]
    doc_lengths = data_args.doc_max_lengths or [default_lengths(name)[1] for name in names]
    return [
        load_task(
            source, name, query_len, doc_len, weight, config, data_args.dataset_split, data_args.max_train_samples
        )
        for source, name, query_len, doc_len, weight, config in zip(
            sources,
            names,
            _per_task(query_lengths, count, "query_max_lengths"),
            _per_task(doc_lengths, count, "doc_max_lengths"),
            _per_task(weights, count, "task_weights"),
            _per_task(configs, count, "dataset_configs"),
            strict=True,
        )
    ]


class TaskMixtureSampler(Sampler):
    """Yields ``(epoch, task, row)`` keys: each slot's task drawn independently with the task weights, each task's
    rows in a seeded permutation (cycled when a task is drawn more often than it has rows); an epoch has as many
    slots as all tasks have rows. The ``proportional`` mixture shuffles all tasks' rows together instead (HARP's
    code: its four task files concatenated, then a random sampler).

    Deterministic in (seed, epoch), so every DDP rank sees the same order and shards it the same way. Memory: one
    permutation per task (4 bytes a row below 2**31 rows); the task draws are made in blocks as the epoch goes.

    Args:
        task_sizes, weights: the number of rows and the sampling weight of each task.
        mixture: ``weights`` (each slot's task drawn with ``weights``) or ``proportional`` (all rows shuffled
            together, each once per epoch; ``weights`` unused).
    """

    block = 65_536

    def __init__(self, task_sizes: list[int], weights: list[float], seed: int, mixture: str = "weights"):
        if mixture not in TASK_MIXTURES:
            raise ValueError(f"the task mixture must be one of {', '.join(TASK_MIXTURES)}, got {mixture!r}")
        self.task_sizes, self.seed, self.epoch, self.mixture = [int(size) for size in task_sizes], seed, 0, mixture
        total = float(sum(weights))
        if total <= 0 or any(w < 0 for w in weights):
            raise ValueError(f"task weights must be >= 0 with a positive sum, got {weights}")
        self.probabilities = np.asarray(weights, dtype=np.float64) / total

    def set_epoch(self, epoch: int) -> None:
        """Called by the Trainer at the start of each epoch."""
        self.epoch = epoch

    def __len__(self) -> int:
        return sum(self.task_sizes)

    def __iter__(self):
        if self.mixture == "proportional":
            yield from self._shuffled()
            return
        orders = [_permutation([self.seed, self.epoch, task], size) for task, size in enumerate(self.task_sizes)]
        draws = np.random.default_rng([self.seed, self.epoch])
        cursors = [0] * len(self.task_sizes)
        remaining = len(self)
        while remaining:
            tasks = draws.choice(len(self.task_sizes), size=min(self.block, remaining), p=self.probabilities)
            remaining -= len(tasks)
            for task in tasks.tolist():
                order = orders[task]
                yield self.epoch, task, int(order[cursors[task] % len(order)])
                cursors[task] += 1

    def _shuffled(self):
        """Every (task, row) once, in one seeded permutation of all rows."""
        total = len(self)
        starts = np.cumsum([0, *self.task_sizes])
        order = _permutation([self.seed, self.epoch], total)
        for first in range(0, total, self.block):
            keys = order[first : first + self.block]
            tasks = np.searchsorted(starts, keys, side="right") - 1
            for task, row in zip(tasks.tolist(), (keys - starts[tasks]).tolist(), strict=True):
                yield self.epoch, task, row


def _permutation(seed: list[int], size: int) -> np.ndarray:
    """``0 .. size - 1`` in a seeded order (4 bytes a row below 2**31 rows)."""
    return np.random.default_rng(seed).permutation(np.arange(size, dtype=np.int32 if size < 2**31 else np.int64))


class GroupDataset(Dataset):
    """Map-style dataset of groups keyed by ``(epoch, task, row)`` (see :class:`TaskMixtureSampler`).

    Each item reads one row of its task's Arrow table (:meth:`Task.group`), so dataloader workers share the
    memory-mapped data instead of copies of it.

    Args:
        group_size: candidates per group (positive + up to ``group_size - 1`` negatives).
        seed: the run's seed; with the key it fixes which negatives a group gets.
        mixture: how the sampler mixes the tasks (``weights`` or ``proportional``, see :class:`TaskMixtureSampler`).
    """

    def __init__(self, tasks: list[Task], group_size: int, seed: int, mixture: str = "weights"):
        if group_size < 2:
            raise ValueError(f"group_size must be >= 2, got {group_size}")
        if mixture not in TASK_MIXTURES:
            raise ValueError(f"--task_mixture must be one of {', '.join(TASK_MIXTURES)}, got {mixture!r}")
        self.tasks, self.group_size, self.seed, self.mixture = tasks, group_size, seed, mixture

    def __len__(self) -> int:
        return sum(len(task) for task in self.tasks)

    def sampler(self) -> TaskMixtureSampler:
        """The sampler that produces this dataset's keys."""
        return TaskMixtureSampler([len(t) for t in self.tasks], [t.weight for t in self.tasks], self.seed, self.mixture)

    def __getitem__(self, key: tuple[int, int, int]) -> dict[str, Any]:
        epoch, task_index, row = key
        fixed, positive, negatives = self.tasks[task_index].group(row)
        if len(negatives) > self.group_size - 1:
            rng = np.random.default_rng([self.seed, epoch, task_index, row])
            negatives = [negatives[i] for i in rng.choice(len(negatives), self.group_size - 1, replace=False)]
        return {"task": task_index, "fixed": fixed, "candidates": [positive, *negatives]}
