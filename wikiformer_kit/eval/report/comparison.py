"""A comparison of systems on one collection: means per measure, best per measure, significance marks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from wikiformer_kit.eval.metrics import Evaluation
from wikiformer_kit.eval.significance import significantly_better, significantly_worse

_SAVED = "collection measures reference test alpha num_queries relevance_level means worse better p_values".split()
"""The fields ``comparison.json`` holds, in its order."""
_JSON_KEYS = {"worse": "significantly_worse", "better": "significantly_better"}


@dataclass
class Comparison:
    """Systems evaluated on one collection, with significance against a reference system.

    Args:
        means: system -> measure -> mean; ``worse``, ``better`` and ``p_values`` are keyed alike, ``worse`` and
            ``better`` True where the system differs significantly from the reference.
        reference: the reference system name (None: no significance tests).
        test: ``fisher`` or ``ttest``; ``alpha``: the significance level.
        relevance_level: the smallest grade binary measures count as relevant (None: not recorded).
    """

    collection: str
    measures: list[str]
    means: dict[str, dict[str, float]]
    worse: dict[str, dict[str, bool]] = field(default_factory=dict)
    better: dict[str, dict[str, bool]] = field(default_factory=dict)
    p_values: dict[str, dict[str, float]] = field(default_factory=dict)
    reference: str | None = None
    test: str = "fisher"
    alpha: float = 0.05
    num_queries: int = 0
    relevance_level: int | None = None

    def best(self, measure: str, digits: int = 4) -> set[str]:
        """The systems with the highest mean for ``measure`` (ties at the displayed precision all count)."""
        rounded = {system: round(values[measure], digits) for system, values in self.means.items()}
        top = max(rounded.values())
        return {system for system, value in rounded.items() if value == top}

    def verdict(self, system: str, measure: str) -> str:
        """``"worse"`` or ``"better"`` where ``system`` differs significantly from the reference on ``measure``, else
        ``""``: the one verdict every table, chart and card shows."""
        if self.worse.get(system, {}).get(measure):
            return "worse"
        if self.better.get(system, {}).get(measure):
            return "better"
        return ""

    def view(self, names: dict[str, str]) -> Comparison:
        """The systems of ``names`` (old name -> shown name), in its order, under their shown names; means and
        verdicts are those of this comparison, never computed again.

        Raises:
            KeyError: a name that is not one of the systems.
        """
        missing = [name for name in names if name not in self.means]
        if missing:
            raise KeyError(
                f"no system {', '.join(map(repr, missing))} in the comparison (systems: {', '.join(self.means)})"
            )

        def renamed(values: dict) -> dict:
            return {names[name]: value for name, value in values.items() if name in names}

        return replace(
            self,
            measures=list(self.measures),
            means={names[name]: self.means[name] for name in names},
            worse=renamed(self.worse),
            better=renamed(self.better),
            p_values=renamed(self.p_values),
            reference=names.get(self.reference, self.reference) if self.reference else None,
        )

    def to_dict(self) -> dict:
        """JSON-ready dict of everything in the comparison."""
        return {_JSON_KEYS.get(name, name): getattr(self, name) for name in _SAVED}

    def save_json(self, path: str | Path) -> Path:
        """Write `to_dict` as JSON."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        return path

    @classmethod
    def from_dict(cls, data: dict) -> Comparison:
        """Rebuild a comparison saved with `save_json`."""
        required = {name: data[name] for name in ("collection", "measures", "means")}
        saved = {name: data[key] for name in _SAVED if (key := _JSON_KEYS.get(name, name)) in data}
        return cls(**{**saved, **required})


def compare(
    collection: str,
    evaluations: dict[str, Evaluation],
    measures: Sequence[str],
    reference: str | None = None,
    test: str = "fisher",
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 42,
) -> Comparison:
    """Compare systems and test each against ``reference`` per measure.

    Args:
        evaluations: system name -> its `Evaluation` (all on the same queries, with every measure).
        reference: the system the others are tested against; None for no tests.
        test: ``fisher`` (randomization, the paper) or ``ttest`` (paired t-test, Bonferroni over the number of
            systems compared, as WIKIR); ``permutations`` and ``seed`` are the randomization test's.

    Raises:
        ValueError: an unknown reference, a missing measure, or systems evaluated on different queries or at
            different relevance levels.
    """
    if reference is not None and reference not in evaluations:
        raise ValueError(f"reference {reference!r} is not one of the systems {sorted(evaluations)}")
    query_sets = {name: tuple(e.query_ids) for name, e in evaluations.items()}
    if len(set(query_sets.values())) > 1:
        sizes = {name: len(ids) for name, ids in query_sets.items()}
        raise ValueError(f"systems were evaluated on different queries (counts {sizes}); use complete=True")
    levels = {e.relevance_level for e in evaluations.values()}
    if len(levels) > 1:
        raise ValueError(f"systems were evaluated at different relevance levels {sorted(levels)}")
    means = {}
    for name, evaluation in evaluations.items():
        missing = [m for m in measures if m not in evaluation.per_query]
        if missing:
            raise ValueError(f"system {name!r} has no values for {missing}")
        system_means = evaluation.means()
        means[name] = {m: system_means[m] for m in measures}
    comparison = Comparison(
        collection,
        list(measures),
        means,
        reference=reference,
        test=test,
        alpha=alpha,
        num_queries=len(next(iter(query_sets.values()), ())),
        relevance_level=next(iter(levels), None),
    )
    if reference is None:
        return comparison
    others = [name for name in evaluations if name != reference]
    test_options = {
        "test": test,
        "alpha": alpha,
        "permutations": permutations,
        "seed": seed,
        "comparisons": len(others),
    }
    for name in others:
        comparison.worse[name], comparison.better[name], comparison.p_values[name] = {}, {}, {}
        for measure in measures:
            system, base = evaluations[name].per_query[measure], evaluations[reference].per_query[measure]
            worse, pvalue = significantly_worse(system, base, **test_options)
            comparison.worse[name][measure] = worse
            comparison.better[name][measure] = significantly_better(system, base, pvalue, alpha)
            comparison.p_values[name][measure] = pvalue
    return comparison
