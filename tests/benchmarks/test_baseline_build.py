"""benchmarks/baseline_build.py: start-up and per-article cost from two corpus sizes."""

from __future__ import annotations

import pytest

from wikiformer_kit.benchmarks.baseline_build import split_cost


def test_split_cost_separates_start_up_from_the_cost_per_article():
    cost = split_cost((1000, 4.0), (6000, 14.0))  # 2 ms per article, 2 s of start-up
    assert cost["cpu_ms_per_article"] == pytest.approx(2.0) and cost["startup_cpu_s"] == pytest.approx(2.0)
    assert split_cost((100, 1.0), (200, 1.0))["cpu_ms_per_article"] == 0.0


def test_unit_cost_is_the_cpu_a_unit_adds_to_the_same_articles():
    from wikiformer_kit.benchmarks.baseline_build import unit_cost

    assert unit_cost((7, 10.0), (31, 11.2)) == pytest.approx(50.0)  # 24 more units, 1.2 s more: 50 ms a unit
    assert unit_cost((7, 10.0), (31, 10.0)) == 0.0


def test_each_repeat_pairs_its_own_two_builds_and_the_medians_are_reported():
    from wikiformer_kit.benchmarks.baseline_build import median_cost, repeat_costs

    # the second repeat ran on a busy machine (both its builds slower): paired, it gives 2.1 ms, not 2.2 or 1.8
    runs = repeat_costs({"small": 1000, "large": 6000}, {"small": [4.0, 4.5, 3.0], "large": [14.0, 15.0, 14.0]})
    assert [r["cpu_ms_per_article"] for r in runs] == pytest.approx([2.0, 2.1, 2.2])
    cost = median_cost(runs)
    assert cost["cpu_ms_per_article"] == pytest.approx(2.1) and cost["cpu_ms_per_article_range"] == [2.0, 2.2]
    assert cost["startup_cpu_s"] == pytest.approx(2.0)
