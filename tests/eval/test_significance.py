from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from wikiformer_kit.eval.significance import fisher_randomization_test, paired_t_test, significantly_worse


def _values(seed, n=30, shift=0.0, noise=0.05):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    a = {str(i): float(v) for i, v in enumerate(base)}
    b = {str(i): float(v + shift + noise * rng.standard_normal()) for i, v in enumerate(base)}
    return a, b


def test_exact_randomization_test_matches_enumeration():
    a = {"q1": 0.5, "q2": 0.2, "q3": 0.9, "q4": 0.4}
    b = {"q1": 0.3, "q2": 0.1, "q3": 0.6, "q4": 0.5}
    diffs = np.array([a[q] - b[q] for q in sorted(a)])
    observed = abs(diffs.mean())
    flips = [abs((diffs * np.array(signs)).mean()) for signs in itertools.product([1, -1], repeat=4)]
    expected = np.mean([f >= observed - 1e-12 for f in flips])  # 2^4 = 16 sign assignments
    assert fisher_randomization_test(a, b, permutations=1000) == pytest.approx(expected)


def test_randomization_test_is_seeded_and_two_sided():
    a, b = _values(0, shift=0.01, noise=0.05)
    assert fisher_randomization_test(a, b, 2000, seed=7) == fisher_randomization_test(a, b, 2000, seed=7)
    assert fisher_randomization_test(a, b, 2000, seed=7) == pytest.approx(
        fisher_randomization_test(b, a, 2000, seed=7), abs=0.03
    )
    worse, better = _values(1, shift=0.1, noise=0.02)
    assert fisher_randomization_test(worse, better, 2000) < 0.01
    assert fisher_randomization_test(a, a) == 1.0


def test_paired_t_test_with_bonferroni():
    a, b = _values(2, shift=0.02, noise=0.05)
    single = stats.ttest_rel([a[q] for q in sorted(a)], [b[q] for q in sorted(a)]).pvalue
    assert paired_t_test(a, b) == pytest.approx(single)
    assert paired_t_test(a, b, comparisons=3) == pytest.approx(min(1.0, 3 * single))
    assert paired_t_test(a, b, comparisons=10_000) == 1.0


def test_significantly_worse_needs_a_lower_mean():
    worse, better = _values(1, shift=0.1, noise=0.02)
    assert significantly_worse(worse, better)[0] is True
    assert significantly_worse(better, worse)[0] is False
    assert significantly_worse(worse, better, test="ttest", comparisons=2)[0] is True
    with pytest.raises(ValueError, match="unknown test"):
        significantly_worse(worse, better, test="wilcoxon")


def test_unpaired_inputs_are_rejected():
    with pytest.raises(ValueError, match="system has 2, reference 1, 1 in common"):
        fisher_randomization_test({"a": 1.0, "b": 0.0}, {"a": 1.0})
    with pytest.raises(ValueError, match="at least 2 queries"):
        paired_t_test({"a": 1.0}, {"a": 0.0})
