"""Fusing a re-ranker's run with its first stage's, and choosing the fusion on a dev collection (by
cross-validation over its queries: `eval.rerank.fusion_cv`).

The per-query formulas are `modeling_wikiformer.fuse_scores` (the model's own ``rerank`` uses the same function):
``alpha * f(model) + (1 - alpha) * f(first stage)`` with ``f`` = z-score, min-max or reciprocal rank.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean

from wikiformer_kit.eval.collections.collection import Qrels, Run
from wikiformer_kit.eval.metrics import evaluate_run
from wikiformer_kit.eval.rerank.fusion_cv import DEFAULT_FOLDS, CrossValidation, cross_validate
from wikiformer_kit.modeling_wikiformer import FUSION_METHODS, check_fusion, fuse_scores

DEFAULT_ALPHAS = tuple(round(0.1 * step, 1) for step in range(11))


def check_first_stage_scores(run: Run, name: str) -> None:
    """Raise a ValueError when a first-stage run cannot be fused: no scores, only ranks, or non-finite scores.

    A run "has only ranks" when every query's scores are the same value or consecutive integers (1, 2, 3, ... or
    -1, -2, ...: what a run without a score column, or a rank_llm file without ``score``, turns into).
    """
    if not run:
        raise ValueError(f"first stage {name!r}: an empty run has no scores to fuse with")
    rank_like = 0
    for qid, ranking in run.items():
        values = list(ranking.values())
        bad = [v for v in values if v is None or v != v or v in (float("inf"), float("-inf"))]
        if bad:
            raise ValueError(f"first stage {name!r}, query {qid}: scores must be finite numbers, got {bad[:3]}")
        ordered = sorted(values)
        same = len(set(values)) == 1
        consecutive = all(float(v).is_integer() for v in values) and all(
            b - a == 1 for a, b in zip(ordered, ordered[1:], strict=False)
        )
        rank_like += same or consecutive
    if rank_like == len(run):
        raise ValueError(
            f"first stage {name!r} has ranks but no scores (every query's values are equal or consecutive "
            "integers): fusion needs the first stage's scores; use --fusion none, or a run with scores"
        )


def fuse_run(model_run: Run, first_stage: Run, method: str, alpha: float) -> Run:
    """Fuse two runs query by query over the model run's documents (see the module docstring).

    Documents the model ranked but the first stage did not score (none, for a re-ranked run) get the lowest
    first-stage score of their query.
    """
    check_fusion(method, alpha)
    fused: Run = {}
    for qid, ranking in model_run.items():
        docids = list(ranking)
        first = first_stage.get(qid, {})
        floor = min(first.values(), default=0.0)
        values = fuse_scores([ranking[d] for d in docids], [first.get(d, floor) for d in docids], method, alpha)
        fused[qid] = dict(zip(docids, values, strict=True))
    return fused


@dataclass
class FusionChoice:
    """The result of :func:`tune_fusion`: the chosen setting, every setting's mean on the dev queries and what
    cross-validation says about the choice.

    ``alpha == 0`` means the first stage alone: no fusion beat it on the dev queries beyond the folds' noise.
    """

    method: str
    alpha: float
    measure: str
    value: float
    grid: dict[str, dict[float, float]] = field(default_factory=dict)
    first_stage_value: float = 0.0
    cv: CrossValidation | None = None

    @property
    def beats_first_stage(self) -> bool:
        """Whether a fusion won over the first stage alone by more than the folds' spread."""
        return self.alpha > 0

    def table(self) -> str:
        """The grid as a Markdown table (rows: methods, columns: alphas), the chosen value in bold."""
        alphas = sorted({a for values in self.grid.values() for a in values})
        lines = [
            f"| {self.measure} | " + " | ".join(f"α={a:g}" for a in alphas) + " |",
            "|---" * (len(alphas) + 1) + "|",
        ]
        for method, values in self.grid.items():
            cells = []
            for a in alphas:
                text = f"{values[a]:.4f}"
                cells.append(f"**{text}**" if (method, a) == (self.method, self.alpha) else text)
            lines.append(f"| {method} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def summary(self) -> str:
        """What the choice rests on, in words: the folds, the cross-validated estimate and gain, and whether the
        fused model beats the first stage beyond the folds' noise."""
        if self.cv is None:
            return f"{self.method}, alpha {self.alpha:g}: {self.measure} {self.value:.4f}"
        cv = self.cv
        lines = [
            f"{cv.folds}-fold cross-validation over {cv.queries} dev queries ({self.measure}, each fold scored with "
            f"the setting chosen on the others): {cv.estimate:.4f} [{cv.estimate_interval[0]:.4f}, "
            f"{cv.estimate_interval[1]:.4f}] vs the first stage {cv.first_stage:.4f}; gain {cv.gain:+.4f} "
            f"[{cv.gain_interval[0]:+.4f}, {cv.gain_interval[1]:+.4f}] (95% intervals over the folds)"
        ]
        if self.beats_first_stage:
            lines.append(f"chosen: {self.method}, alpha {self.alpha:g}")
        else:
            best_method, best_alpha = cv.best
            lead = (
                f"the best, {best_method} alpha {best_alpha:g}, leads it by {cv.best_gap:+.4f} with a fold spread of "
                f"{cv.best_gap_spread:.4f}; the cross-validated gain is {cv.gain:+.4f}"
                if best_alpha > 0
                else "no fusion has a higher mean"
            )
            lines.append(
                "the fused model does not beat the first stage on these dev queries beyond the folds' noise "
                f"({lead}): alpha 0 is chosen, the first stage's order"
            )
        return "\n".join(lines)

    def evidence(self, dev_collection: str) -> dict:
        """The choice's evidence as stored in ``config.json`` (``fusion_cv``)."""
        cv = self.cv
        record = {
            "dev_collection": dev_collection,
            "measure": self.measure,
            "beats_first_stage": self.beats_first_stage,
        }
        if cv is not None:
            record |= {
                "folds": cv.folds,
                "dev_queries": cv.queries,
                "estimate": round(cv.estimate, 4),
                "interval": [round(v, 4) for v in cv.estimate_interval],
                "first_stage": round(cv.first_stage, 4),
                "gain": round(cv.gain, 4),
                "gain_interval": [round(v, 4) for v in cv.gain_interval],
            }
        return record


def tune_fusion(
    model_run: Run,
    first_stage: Run,
    qrels: Qrels,
    measure: str = "nDCG@10",
    methods: Sequence[str] = FUSION_METHODS,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    relevance_level: int = 1,
    first_stage_name: str = "first stage",
    folds: int = DEFAULT_FOLDS,
) -> FusionChoice:
    """Choose the fusion method and alpha on a dev collection by k-fold cross-validation over its queries.

    The first stage alone (alpha 0) is preferred, then the smallest alpha (then the earlier method); a setting is
    passed over only when the best setting beats it by more than the folds' spread (`eval.rerank.fusion_cv`).

    ``model_run`` is the re-ranker's raw run on the dev queries, ``first_stage`` the run it re-ranked (with scores,
    named in errors as ``first_stage_name``), ``qrels`` the dev judgments (at least 2 judged queries); ``alphas``
    are the model weights tried, each in [0, 1] (0, the first stage alone, is always tried).
    """
    if not qrels:
        raise ValueError("the dev collection has no judgments (qrels): fusion cannot be tuned on it")
    check_first_stage_scores(first_stage, first_stage_name)
    for method in methods:
        for alpha in alphas:
            check_fusion(method, alpha)
    alphas = sorted({0.0, *(float(a) for a in alphas)})
    grid: dict[str, dict[float, float]] = {}
    per_query: dict[tuple[str, float], dict[str, float]] = {}
    for method in methods:
        grid[method] = {}
        for alpha in alphas:
            fused = fuse_run(model_run, first_stage, method, alpha)
            values = evaluate_run(fused, qrels, [measure], relevance_level).per_query[measure]
            per_query[(method, alpha)] = values
            grid[method][alpha] = fmean(values.values()) if values else 0.0
    alone = (methods[0], 0.0)
    preference = [alone] + [(m, a) for a in alphas if a > 0 for m in methods]
    (method, alpha), cv = cross_validate(per_query, preference, alone, folds)
    return FusionChoice(method, alpha, measure, grid[method][alpha], grid, grid[alone[0]][0.0], cv)


def store_fusion(
    model_dir: str | Path, method: str, alpha: float, dev_collection: str, evidence: dict | None = None
) -> Path:
    """Write the chosen fusion into a checkpoint's ``config.json`` (``fusion_method``, ``fusion_alpha``,
    ``fusion_dev_collection`` and, from :meth:`FusionChoice.evidence`, ``fusion_cv``: the cross-validated estimate,
    its interval and the number of dev queries): the kit's loaders then fuse by default; a plain
    ``BertForSequenceClassification`` ignores the keys and gives raw scores."""
    check_fusion(method, alpha)
    path = Path(model_dir) / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"{model_dir}: no config.json to store the fusion in (a local checkpoint folder)")
    config = json.loads(path.read_text(encoding="utf-8"))
    config.update(fusion_method=method, fusion_alpha=float(alpha), fusion_dev_collection=dev_collection)
    config.pop("fusion_cv", None)  # never the evidence of an earlier choice
    if evidence is not None:
        config["fusion_cv"] = evidence
    path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path
