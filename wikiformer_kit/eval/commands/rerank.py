"""``python -m eval rerank``: re-rank candidates with a checkpoint (fused where asked or stored) and evaluate."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wikiformer_kit.cli.options import option
from wikiformer_kit.eval.collections import Collection, write_trec_run
from wikiformer_kit.eval.commands import shared
from wikiformer_kit.eval.commands.groups import LongDocumentOptions, RerankingOptions
from wikiformer_kit.eval.metrics import DEFAULT_MEASURES, evaluate_run


@dataclass(kw_only=True)
class RerankOptions(LongDocumentOptions, RerankingOptions):
    """re-rank candidates with a checkpoint and evaluate"""

    measures: list[str] = option(list(DEFAULT_MEASURES), help="measures computed (ir_measures names)")
    fusion: Literal["none", "zscore", "minmax", "rrf"] | None = option(
        help="also fuse with the first stage's scores (default: the checkpoint's stored fusion, else none)"
    )
    alpha: float | None = option(
        help="the re-ranker's weight in the fusion, in [0, 1]; default: the checkpoint's stored alpha when the fusion "
        "is its stored one (--fusion not given, or the same method), else 0.7"
    )


def check(options: RerankOptions) -> None:
    """Refuse a bad ``--alpha``, passage window or stride before anything loads."""
    if options.alpha is not None and not 0.0 <= options.alpha <= 1.0:
        raise ValueError(f"--alpha must be in [0, 1] (the re-ranker's weight), got {options.alpha}")
    options.long_document_setting()


def run(options: RerankOptions) -> int:
    """Re-rank, fuse where asked, evaluate and write the runs and figures."""
    check(options)
    return rerank_and_evaluate(options, shared.load(options))


def _fusion_setting(options: RerankOptions, scorer) -> tuple[str, float] | None:
    """``--fusion``/``--alpha``, else the checkpoint's stored fusion, else none."""
    from wikiformer_kit.modeling_wikiformer import DEFAULT_ALPHA, check_fusion

    if options.fusion == "none":
        if options.alpha is not None:
            raise ValueError("--alpha needs a fusion (--fusion zscore|minmax|rrf)")
        return None
    stored = scorer.fusion
    method = options.fusion or (stored[0] if stored else None)
    if method is None:
        if options.alpha is not None:
            raise ValueError("--alpha needs a fusion (--fusion zscore|minmax|rrf); this checkpoint stores none")
        return None
    alpha = options.alpha
    if alpha is None:
        alpha = stored[1] if stored and method == stored[0] else DEFAULT_ALPHA
    check_fusion(method, alpha)
    return method, alpha


def rerank_and_evaluate(options: RerankOptions, collection: Collection, on_new_settings: str = "raise") -> int:
    """``eval rerank`` on a loaded collection: the candidates, the model's run (and its fusion), their figures."""
    from wikiformer_kit.eval.hub_results import rerank_hub_results, write_eval_results
    from wikiformer_kit.eval.rerank import check_first_stage_scores, fuse_run, reranked_head, with_tail

    long_documents = options.long_document_setting()
    queries = shared.query_ids(collection, options.max_queries)
    name, first = shared.candidates(options, collection, queries)
    out = Path(options.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_trec_run(first, out / f"{name}.run", tag=name)
    tag = shared.run_tag(options)
    scorer = shared.load_scorer(options)
    fusion = _fusion_setting(options, scorer)
    if fusion:
        check_first_stage_scores(first, name)  # before any scoring: a rank-only run fails fast
    ranking = shared.rerank_run(options, collection, first, queries, scorer, long_documents, on_new_settings)
    systems = {name: first, tag: ranking}
    fused_tag = f"{tag}+{name}"
    if fusion:
        # fusion reorders the re-ranked depth only; the candidates below it stay under it, in first-stage order
        fused = fuse_run(reranked_head(ranking, first, options.depth), first, *fusion)
        systems[fused_tag] = with_tail(fused, first, options.depth)
        write_trec_run(systems[fused_tag], out / f"{fused_tag}.run", tag=fused_tag)
        print(f"fusion: {fusion[0]}, alpha {fusion[1]:g} (the re-ranker's weight) -> {out / f'{fused_tag}.run'}")
    if not collection.qrels:
        print(f"wrote {out / f'{tag}.run'} (no qrels: not evaluated)")
        return 0
    results = {}
    for label, system in systems.items():
        evaluation = evaluate_run(system, collection.qrels, options.measures, collection.relevance_level)
        results[label] = evaluation.to_dict()
        if label != name:
            results[label]["long_documents"] = long_documents.to_dict()
        if fusion and label == fused_tag:
            results[label]["fusion"] = {"method": fusion[0], "alpha": fusion[1], "first_stage": name}
        shared.print_means(label, evaluation.means())
    (out / "metrics.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out / f'{tag}.run'}, {out / 'metrics.json'}")
    setting = f"re-ranking the {name} top {options.depth} of {len(queries)} queries, pairs of up to "
    setting += f"{scorer.max_length} tokens"
    hub = rerank_hub_results(options.collection, results, {tag: "", fused_tag: "fused"}, setting)
    for path in write_eval_results(out, hub):
        print(f"wrote {path} (the Hub's evaluation results format)")
    return 0
