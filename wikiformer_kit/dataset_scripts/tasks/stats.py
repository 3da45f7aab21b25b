"""Mergeable statistics of a task's rows (counts, negatives per row, text lengths in words, skips by reason)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from wikiformer_kit.dataset_scripts.tasks.common import TaskOutput, count_words


@dataclass
class Summary:
    """Count, total, min and max of a quantity (mergeable across shards)."""

    count: int = 0
    total: float = 0
    min: float | None = None
    max: float | None = None

    def add(self, value: int) -> None:
        """Account for one value."""
        self.add_all([value])

    def add_all(self, values: list[int]) -> None:
        """Account for many whole-number values at once (the same as adding each: their sum is exact)."""
        if values:
            self._combine(len(values), sum(values), min(values), max(values))

    def merge(self, other: Summary) -> None:
        """Add another summary into this one."""
        if other.count:
            self._combine(other.count, other.total, other.min, other.max)

    def _combine(self, count: int, total: float, low: float, high: float) -> None:
        self.count += count
        self.total += total
        self.min = low if self.min is None else min(self.min, low)
        self.max = high if self.max is None else max(self.max, high)

    @property
    def mean(self) -> float:
        """The mean (0 when empty)."""
        return self.total / self.count if self.count else 0.0


@dataclass
class TaskStats:
    """Statistics of one task's rows.

    Args:
        rows: number of rows.
        negatives: negatives per row.
        words: words per text, by column (``query``/``document``, ``positive``, ``negatives`` counted per text).
        skipped: what was left out, by reason.
        measures: other per-text or per-row quantities a task reports (its spec's ``measures`` name them), e.g.
            how sharp HARP's word importance is.
    """

    rows: int = 0
    negatives: Summary = field(default_factory=Summary)
    words: dict[str, Summary] = field(default_factory=dict)
    skipped: Counter = field(default_factory=Counter)
    measures: dict[str, Summary] = field(default_factory=dict)

    def measure(self, name: str, value: float) -> None:
        """Account for one value of a named measure."""
        self.measures.setdefault(name, Summary()).add(value)

    def add(self, output: TaskOutput, fixed_side: str) -> None:
        """Account for a sampler's output."""
        self.skipped.update(output.skipped)
        groups = output.groups
        if not groups:
            return
        self.rows += len(groups)
        self.negatives.add_all([len(row["negatives"]) for row in groups])
        self._words(fixed_side).add_all([count_words(row[fixed_side]) for row in groups])
        self._words("positive").add_all([count_words(row["positive"]) for row in groups])
        negatives = [count_words(text) for row in groups for text in row["negatives"]]
        if negatives:
            self._words("negatives").add_all(negatives)

    def merge(self, other: TaskStats) -> None:
        """Add another shard's statistics into these."""
        self.rows += other.rows
        self.negatives.merge(other.negatives)
        for name, summary in other.words.items():
            self._words(name).merge(summary)
        self.skipped.update(other.skipped)
        for name, summary in other.measures.items():
            self.measures.setdefault(name, Summary()).merge(summary)

    def _words(self, name: str) -> Summary:
        return self.words.setdefault(name, Summary())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form (sorted keys, so that files are reproducible)."""
        data = {
            "rows": self.rows,
            "negatives": vars(self.negatives),
            "words": {k: vars(v) for k, v in sorted(self.words.items())},
            "skipped": dict(sorted(self.skipped.items())),
        }
        if self.measures:  # absent for the tasks that report none: their files stay as they were
            data["measures"] = {k: vars(v) for k, v in sorted(self.measures.items())}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskStats:
        """Inverse of :meth:`to_dict`."""
        return cls(
            rows=data["rows"],
            negatives=Summary(**data["negatives"]),
            words={k: Summary(**v) for k, v in data["words"].items()},
            skipped=Counter(data["skipped"]),
            measures={k: Summary(**v) for k, v in data.get("measures", {}).items()},
        )
