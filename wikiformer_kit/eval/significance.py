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
    """Two-sided paired randomization test on the mean difference (Fisher; Smucker et al., CIKM 2007).

    Each permutation swaps the two systems' values of a query at random; the p-value is the share of
    permutations whose |mean difference| is at least the observed one. `scipy.stats.permutation_test` runs the
    exact test when 2^n <= ``permutations``.

    Args:
        system: query id -> value of the system under test.
        reference: query id -> value of the reference system (same queries).
        permutations: number of random permutations.
        seed: random seed (the result is deterministic for a given seed).

    Returns:
        The two-sided p-value.

    Raises:
        ValueError: the two systems were not evaluated on the same queries, or fewer than 2 queries.
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
    """Two-sided paired t-test (`scipy.stats.ttest_rel`) with Bonferroni correction.

    Args:
        system: query id -> value of the system under test.
        reference: query id -> value of the reference system (same queries).
        comparisons: number of comparisons made against the reference; the p-value is multiplied by it
            (capped at 1).

    Returns:
        The corrected two-sided p-value (1.0 when the two systems agree on every query).
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
    """Whether ``system`` is significantly worse than ``reference`` (lower mean and p < ``alpha``).

    Args:
        test: ``fisher`` (randomization) or ``ttest`` (paired t-test, Bonferroni over ``comparisons``).

    Returns:
        ``(worse, p_value)``.
    """
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
