"""Paired significance tests over per-query values: Fisher's randomization test (as the Wikiformer paper) and
the paired t-test with Bonferroni correction (as WIKIR)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy import stats


def _paired(system: Mapping[str, float], reference: Mapping[str, float]) -> tuple[np.ndarray, np.ndarray]:
    common = sorted(system.keys() & reference.keys())
    if len(common) != len(system) or len(common) != len(reference):
        raise ValueError(
            f"paired test needs the same queries: system has {len(system)}, reference {len(reference)}, "
            f"{len(common)} in common"
        )
    if len(common) < 2:
        raise ValueError(f"paired test needs at least 2 queries, got {len(common)}")
    return np.array([system[q] for q in common]), np.array([reference[q] for q in common])


def fisher_randomization_test(
    system: Mapping[str, float],
    reference: Mapping[str, float],
    permutations: int = 10_000,
    seed: int = 42,
) -> float:
    """The two-sided p-value of a paired randomization test on the mean difference (Fisher; Smucker et al., CIKM
    2007): each permutation swaps the two systems' values of a query at random (`scipy.stats.permutation_test`,
    exact when 2^n <= ``permutations``); deterministic for a given ``seed``.

    Raises:
        ValueError: the two systems (query id -> value) were not evaluated on the same queries, or on fewer than 2.
    """
    a, b = _paired(system, reference)
    if np.array_equal(a, b):
        return 1.0
    result = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=permutations,
        alternative="two-sided",
        random_state=np.random.default_rng(seed),
    )
    return float(result.pvalue)


def paired_t_test(
    system: Mapping[str, float],
    reference: Mapping[str, float],
    comparisons: int = 1,
) -> float:
    """The two-sided p-value of a paired t-test (`scipy.stats.ttest_rel`), Bonferroni-corrected: multiplied by the
    number of ``comparisons`` made against the reference, capped at 1 (1.0 when the systems agree on every query).
    """
    a, b = _paired(system, reference)
    if np.array_equal(a, b):
        return 1.0
    pvalue = float(stats.ttest_rel(a, b).pvalue)
    return min(1.0, pvalue * max(1, comparisons))


def significantly_worse(
    system: Mapping[str, float],
    reference: Mapping[str, float],
    test: str = "fisher",
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 42,
    comparisons: int = 1,
) -> tuple[bool, float]:
    """``(worse, p_value)``: whether ``system`` is significantly worse than ``reference`` (a lower mean and p <
    ``alpha``) by the ``fisher`` (randomization) or ``ttest`` (paired t, Bonferroni over ``comparisons``) test."""
    if test == "fisher":
        pvalue = fisher_randomization_test(system, reference, permutations, seed)
    elif test == "ttest":
        pvalue = paired_t_test(system, reference, comparisons)
    else:
        raise ValueError(f"unknown test {test!r}; use 'fisher' or 'ttest'")
    a, b = _paired(system, reference)
    return bool(a.mean() < b.mean() and pvalue < alpha), pvalue


def significantly_better(
    system: Mapping[str, float], reference: Mapping[str, float], pvalue: float, alpha: float
) -> bool:
    """Whether ``system`` is significantly better than ``reference``: a higher mean over their shared queries and
    ``pvalue`` (the two-sided test :func:`significantly_worse` returned) below ``alpha``."""
    a, b = _paired(system, reference)
    return bool(a.mean() > b.mean() and pvalue < alpha)
