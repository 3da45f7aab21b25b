"""``benchmarks/scaling_ratios.py``: builds in alternating rounds, a ratio per round, the median as the figure."""

from __future__ import annotations

import re

import pytest

from tests.benchmarks.test_benches_cpu import run_bench
from wikiformer_kit.benchmarks.scaling_ratios import interleaved, ratios, spread


def test_rounds_alternate_the_order_of_the_process_counts():
    assert interleaved([1, 2], 3) == [(0, 1), (0, 2), (1, 2), (1, 1), (2, 1), (2, 2)]
    assert interleaved([1, 2, 4], 1) == [(0, 1), (0, 2), (0, 4)]


def test_a_ratio_is_taken_within_each_round():
    results = {
        "tasks1-0": {"s": 30.0, "cpu": 30.0},
        "tasks2-0": {"s": 15.0, "cpu": 31.0},
        "tasks1-1": {"s": 24.0, "cpu": 24.0},
        "tasks2-1": {"s": 16.0, "cpu": 25.0},
    }
    assert ratios(results, "tasks", 1, 2, 2) == [2.0, 1.5]
    assert ratios(results, "tasks", 1, 2, 2, key="cpu") == pytest.approx([30 / 31, 24 / 25])


def test_the_figure_is_the_median_of_the_rounds():
    assert spread([1.5, 1.9, 1.7]) == "**1.70x** (rounds: 1.50, 1.90, 1.70)"
    assert spread([1.62]) == "**1.62x**"


@pytest.mark.slow
def test_dump_to_datasets_in_two_rounds(tmp_path):
    result = run_bench(
        "wikiformer_kit.benchmarks.scaling_ratios", "--dump-only", "--dump-articles", "20", "--parts", "2", "--rounds", "2",
        tmp_path=tmp_path, timeout=600,
    )  # fmt: skip
    rows = [line for line in result.stdout.splitlines() if line.startswith("| dump -> datasets")]
    assert [row.split("|")[3:5] for row in rows] == [[" 1 ", " 1 "], [" 2 ", " 1 "], [" 1 ", " 2 "], [" 2 ", " 2 "]]
    assert re.search(r"--num-proc 2 / 1: \*\*\d+\.\d\dx\*\* \(rounds: \d+\.\d\d, \d+\.\d\d\)", result.stdout)
