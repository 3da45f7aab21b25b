"""bench/baseline_build.py: start-up and per-article cost from two corpus sizes."""

from __future__ import annotations

import pytest

from bench.baseline_build import split_cost


def test_split_cost_separates_start_up_from_the_cost_per_article():
    cost = split_cost((1000, 4.0), (6000, 14.0))  # 2 ms per article, 2 s of start-up
    assert cost["cpu_ms_per_article"] == pytest.approx(2.0) and cost["startup_cpu_s"] == pytest.approx(2.0)
    assert split_cost((100, 1.0), (200, 1.0))["cpu_ms_per_article"] == 0.0


def test_unit_cost_is_the_cpu_a_unit_adds_to_the_same_articles():
    from bench.baseline_build import unit_cost

    assert unit_cost((7, 10.0), (31, 11.2)) == pytest.approx(50.0)  # 24 more units, 1.2 s more: 50 ms a unit
    assert unit_cost((7, 10.0), (31, 10.0)) == 0.0
