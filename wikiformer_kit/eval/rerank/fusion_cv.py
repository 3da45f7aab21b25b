"""Choosing a fusion setting by k-fold cross-validation over a dev collection's queries.

The queries are dealt into ``k`` folds in the order of the SHA-1 of their ids (the same folds whatever the file
order). Every setting (a fusion method and alpha) has one mean per fold. The rule that picks a setting prefers the
simplest: the first stage alone (alpha 0) first, then the smallest alpha; a setting is passed over only when the
setting with the best cross-validated mean beats it by more than the folds' spread (one standard error of the
fold-to-fold differences, the "one standard error" rule). So a setting that wins on the dev mean because of a few
queries is not taken.

The estimate of what the choice is worth is cross-validated too: each fold is scored with the setting the same rule
picks on the other folds, so no fold's figure comes from a setting chosen on it. When that cross-validated gain over
the first stage is not positive, the first stage alone is chosen whatever the rule picked on all the folds: a fusion
whose gain does not carry over to held-out queries is not kept.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean, stdev

from scipy import stats

DEFAULT_FOLDS = 5
CONFIDENCE = 0.95
TOLERANCE = 1e-9
"""A lead no larger than the spread plus this is no win (a lead in one fold alone equals the spread exactly)."""


def query_folds(query_ids: Sequence[str], folds: int = DEFAULT_FOLDS) -> list[list[str]]:
    """``min(folds, len(query_ids))`` folds of query ids, dealt in SHA-1 order of the ids (deterministic)."""
    if folds < 2:
        raise ValueError(f"cross-validation needs at least 2 folds, got {folds}")
    k = min(folds, len(query_ids))
    order = sorted(set(query_ids), key=lambda qid: (hashlib.sha1(qid.encode("utf-8")).hexdigest(), qid))
    return [order[i::k] for i in range(k)] if k else []


def spread(values: Sequence[float]) -> float:
    """The standard error of the mean of ``values`` (infinite for fewer than two: no evidence of a difference)."""
    return stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf


def interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float]:
    """A Student-t confidence interval of the mean of ``values`` (one value per fold)."""
    mean = fmean(values)
    if len(values) < 2:
        return (-math.inf, math.inf)
    half = stats.t.ppf(0.5 + confidence / 2, len(values) - 1) * spread(values)
    return (mean - half, mean + half)


def pick(fold_means: Mapping[Hashable, Sequence[float]], preference: Sequence[Hashable]) -> Hashable:
    """The first setting in ``preference`` that the best setting (highest mean over the folds) does not beat by
    more than the spread of their per-fold differences (see the module docstring)."""
    best = max(preference, key=lambda s: (fmean(fold_means[s]), -preference.index(s)))
    for setting in preference:
        gaps = [b - c for b, c in zip(fold_means[best], fold_means[setting], strict=True)]
        if fmean(gaps) <= spread(gaps) + TOLERANCE:
            return setting
    return best


@dataclass
class CrossValidation:
    """What cross-validation says about a choice (values of one measure; intervals at 95%): the chosen procedure's
    cross-validated ``estimate`` (each fold scored with the setting picked on the other folds), the ``first_stage``
    alone over the same folds, the ``gain`` over it, and the ``best`` setting over the folds with its lead over the
    chosen one (``best_gap``) and the spread that lead had to exceed (``best_gap_spread``)."""

    folds: int
    queries: int
    estimate: float
    estimate_interval: tuple[float, float]
    first_stage: float
    gain: float
    gain_interval: tuple[float, float]
    best: Hashable
    best_gap: float
    best_gap_spread: float


def cross_validate(
    per_query: Mapping[Hashable, Mapping[str, float]],
    preference: Sequence[Hashable],
    first_stage: Hashable,
    folds: int = DEFAULT_FOLDS,
) -> tuple[Hashable, CrossValidation]:
    """Pick a setting by :func:`pick` over ``folds`` query folds, and estimate it by nested cross-validation.

    Args:
        per_query: setting -> query id -> value of the measure (every setting on the same queries).
        preference: the settings, simplest first (``first_stage`` first).
        first_stage: the setting that is the first stage alone.
        folds: the number of folds (at most one per query).
    """
    query_ids = sorted(next(iter(per_query.values())))
    if len(query_ids) < 2:
        raise ValueError(f"cross-validation needs at least 2 judged dev queries, got {len(query_ids)}")
    parts = query_folds(query_ids, folds)
    means = {s: [fmean(per_query[s].get(q, 0.0) for q in part) for part in parts] for s in preference}
    choice = pick(means, preference)
    held_out, gains = [], []
    for f in range(len(parts)):
        others = {s: values[:f] + values[f + 1 :] for s, values in means.items()}
        chosen = pick(others, preference)
        held_out.append(means[chosen][f])
        gains.append(means[chosen][f] - means[first_stage][f])
    if fmean(gains) <= TOLERANCE:
        choice = first_stage
    best = max(preference, key=lambda s: (fmean(means[s]), -preference.index(s)))
    gaps = [b - c for b, c in zip(means[best], means[choice], strict=True)]
    return choice, CrossValidation(
        folds=len(parts),
        queries=len(query_ids),
        estimate=fmean(held_out),
        estimate_interval=interval(held_out),
        first_stage=fmean(means[first_stage]),
        gain=fmean(gains),
        gain_interval=interval(gains),
        best=best,
        best_gap=fmean(gaps),
        best_gap_spread=spread(gaps) if best != choice else 0.0,
    )
