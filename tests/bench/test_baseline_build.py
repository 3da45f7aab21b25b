"""bench/baseline_build.py: start-up and per-article cost from two corpus sizes."""

from __future__ import annotations

import pytest

from bench.baseline_build import split_cost


def test_split_cost_separates_start_up_from_the_cost_per_article():
    cost = split_cost((1000, 4.0), (6000, 14.0))  # 2 ms per article, 2 s of start-up
    assert cost["cpu_ms_per_article"] == pytest.approx(2.0) and cost["startup_cpu_s"] == pytest.approx(2.0)
    assert split_cost((100, 1.0), (200, 1.0))["cpu_ms_per_article"] == 0.0
