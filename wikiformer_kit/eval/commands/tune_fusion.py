"""``python -m eval tune-fusion``: choose the fusion method and alpha on a dev collection by cross-validation."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wikiformer_kit.cli.options import option
from wikiformer_kit.eval.commands.groups import RerankingOptions
from wikiformer_kit.eval.commands.shared import candidates, load, load_scorer, query_ids, rerank_run, run_tag
from wikiformer_kit.eval.metrics import evaluate_run


@dataclass(kw_only=True)
class TuneFusionOptions(RerankingOptions):
    """choose the fusion method and alpha on a dev collection"""

    model: str = option(required=True, help="checkpoint folder")
    candidates: str | None = option(help="a TREC run file (with scores), or the name of a run of the collection")
    no_resume: bool = option(False, help="score afresh instead of reusing OUT/<tag>.run")
    output_dir: str = option(required=True, help="the raw run and fusion.json are written here")
    measure: str = option("nDCG@10", help="the measure maximised (default nDCG@10)")
    methods: list[Literal["zscore", "minmax", "rrf"]] = option(["zscore", "minmax", "rrf"], help="fusion methods tried")
    alphas: list[float] = option([round(0.1 * i, 1) for i in range(11)], help="the re-ranker's weights tried")
    folds: int = option(5, help="cross-validation folds over the dev queries (default 5, at most one a query)")
    save: bool = option(False, help="store the choice in the checkpoint's config.json")


def run(options: TuneFusionOptions) -> int:
    """Score the dev queries' candidates, choose the fusion, write ``fusion.json`` (and store it with ``--save``)."""
    from wikiformer_kit.eval.rerank import check_first_stage_scores, reranked_head, tune_fusion
    from wikiformer_kit.eval.rerank.long_documents import LongDocuments

    collection = load(options)
    if not collection.qrels:
        raise ValueError(
            f"dev collection {options.collection}: no judgments (qrels); fusion is tuned on judged queries"
        )
    queries = query_ids(collection, options.max_queries)
    name, first = candidates(options, collection, queries)
    check_first_stage_scores(first, name)
    tag = run_tag(options)
    scorer = load_scorer(options)
    ranking = rerank_run(options, collection, first, queries, scorer, LongDocuments())
    qrels = {qid: collection.qrels[qid] for qid in queries if qid in collection.qrels}
    head = reranked_head(ranking, first, options.depth)
    grid = (options.measure, options.methods, options.alphas, collection.relevance_level, name, options.folds)
    choice = tune_fusion(head, first, qrels, *grid)
    raw = evaluate_run(ranking, qrels, [options.measure], collection.relevance_level).means()[options.measure]
    print(choice.table())
    print(
        f"{collection.name} ({len(qrels)} dev queries): {name} {choice.first_stage_value:.4f}, {tag} {raw:.4f}, "
        f"fused {choice.value:.4f} with {choice.method} alpha {choice.alpha:g}"
    )
    print(choice.summary())
    evidence = choice.evidence(collection.name)
    record = {"collection": collection.name, "queries": len(qrels), "first_stage": name, "measure": options.measure,
              "first_stage_value": choice.first_stage_value, "model_value": raw, "method": choice.method,
              "alpha": choice.alpha, "value": choice.value, "cross_validation": evidence,
              "grid": {m: {str(a): v for a, v in values.items()} for m, values in choice.grid.items()}}  # fmt: skip
    (Path(options.output_dir) / "fusion.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    if options.save:
        from wikiformer_kit.eval.rerank.fusion import store_fusion

        path = store_fusion(options.model, choice.method, choice.alpha, collection.name, evidence)
        print(f"stored fusion_method={choice.method}, fusion_alpha={choice.alpha:g} and its evidence in {path}")
    return 0
