"""A task's statistics from its rows: counts, negatives per row and words per text, by hand."""

from __future__ import annotations

from wikiformer_kit.dataset_scripts.tasks.common import TaskOutput
from wikiformer_kit.dataset_scripts.tasks.stats import Summary, TaskStats


def test_rows_are_counted_by_column_as_one_value_at_a_time_would_be():
    output = TaskOutput()
    output.groups = [
        {"query": "one two three", "positive": "a b", "negatives": ["x y z w", "v"]},
        {"query": "solo", "positive": "c d e", "negatives": []},
    ]
    output.skipped["no-word"] = 2
    stats = TaskStats()
    stats.add(output, "query")
    data = stats.to_dict()
    assert data["rows"] == 2 and data["skipped"] == {"no-word": 2}
    assert data["negatives"] == {"count": 2, "total": 2, "min": 0, "max": 2}
    assert data["words"] == {
        "negatives": {"count": 2, "total": 5, "min": 1, "max": 4},
        "positive": {"count": 2, "total": 5, "min": 2, "max": 3},
        "query": {"count": 2, "total": 4, "min": 1, "max": 3},
    }
    one_by_one = Summary()
    for value in (3, 1):
        one_by_one.add(value)
    assert vars(stats.words["query"]) == vars(one_by_one)
    stats.add(TaskOutput(), "query")  # no rows: nothing changes, no column appears
    assert stats.to_dict() == data
    without_negatives = TaskStats()
    output.groups = output.groups[1:]
    without_negatives.add(output, "query")
    assert "negatives" not in without_negatives.words and without_negatives.negatives.max == 0
