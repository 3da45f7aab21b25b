"""Fusing a re-ranker's run with its first stage's, and choosing the fusion on a dev collection.

The per-query formulas are `modeling_wikiformer.fuse_scores` (the model's own ``rerank`` uses the same function):
``alpha * f(model) + (1 - alpha) * f(first stage)`` with ``f`` = z-score, min-max or reciprocal rank.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from modeling_wikiformer import FUSION_METHODS, check_fusion, fuse_scores

from ..collections.collection import Qrels, Run
from ..metrics import evaluate_run

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
    """The result of :func:`tune_fusion`: the best setting and every setting's value of the measure."""

    method: str
    alpha: float
    measure: str
    value: float
    grid: dict[str, dict[float, float]] = field(default_factory=dict)

    def table(self) -> str:
        """The grid as a Markdown table (rows: methods, columns: alphas), the best value in bold."""
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


def tune_fusion(
    model_run: Run,
    first_stage: Run,
    qrels: Qrels,
    measure: str = "nDCG@10",
    methods: Sequence[str] = FUSION_METHODS,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    relevance_level: int = 1,
    first_stage_name: str = "first stage",
) -> FusionChoice:
    """Pick the fusion method and alpha that maximise ``measure`` on a dev collection.

    Ties go to the larger alpha (more weight on the re-ranker), then to the earlier method.

    Args:
        model_run: the re-ranker's raw run on the dev queries.
        first_stage: the first-stage run it re-ranked (with scores).
        qrels: the dev collection's judgments (required).
        measure: an ir-measures name (``nDCG@10``, ``RR@10``, ...).
        methods: fusion methods to try.
        alphas: model weights to try, each in [0, 1].
        relevance_level: the collection's binary relevance level.
        first_stage_name: for error messages.
    """
    if not qrels:
        raise ValueError("the dev collection has no judgments (qrels): fusion cannot be tuned on it")
    check_first_stage_scores(first_stage, first_stage_name)
    for method in methods:
        for alpha in alphas:
            check_fusion(method, alpha)
    grid: dict[str, dict[float, float]] = {}
    best: tuple[float, float, int] | None = None
    choice = (methods[0], alphas[0])
    for position, method in enumerate(methods):
        grid[method] = {}
        for alpha in alphas:
            fused = fuse_run(model_run, first_stage, method, alpha)
            value = evaluate_run(fused, qrels, [measure], relevance_level).means()[measure]
            grid[method][alpha] = value
            key = (round(value, 10), alpha, -position)
            if best is None or key > best:
                best, choice = key, (method, alpha)
    return FusionChoice(choice[0], float(choice[1]), measure, grid[choice[0]][choice[1]], grid)


def store_fusion(model_dir: str | Path, method: str, alpha: float, dev_collection: str) -> Path:
    """Write the chosen fusion into a checkpoint's ``config.json`` (``fusion_method``, ``fusion_alpha``,
    ``fusion_dev_collection``): the kit's loaders then fuse by default; a plain ``BertForSequenceClassification``
    ignores the keys and gives raw scores."""
    check_fusion(method, alpha)
    path = Path(model_dir) / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"{model_dir}: no config.json to store the fusion in (a local checkpoint folder)")
    config = json.loads(path.read_text(encoding="utf-8"))
    config.update(fusion_method=method, fusion_alpha=float(alpha), fusion_dev_collection=dev_collection)
    path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path
