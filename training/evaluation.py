"""Zero-shot re-ranking evaluation: the eval set (rank_llm candidates + TREC qrels), nDCG@10 and MRR@10."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import torch

from training.arguments import DataArguments

logger = logging.getLogger("wikiformer.train")

METRIC_NAMES = ("ndcg@10", "mrr@10")


@dataclass
class RerankEvalSet:
    """A zero-shot re-ranking set: per query its candidates with text, and TREC qrels.

    Args:
        queries: ``(query_id, query_text, [(doc_id, doc_text), ...])`` in first-stage order.
        qrels: ir_measures qrels (``{query_id: {doc_id: grade}}``).
        relevance_level: the lowest grade counted relevant by MRR (TREC DL: 2).
        name: the set's name.
    """

    queries: list[tuple[str, str, list[tuple[str, str]]]]
    qrels: dict[str, dict[str, int]]
    relevance_level: int = 1
    name: str = "eval"


def load_rerank_eval(data_args: DataArguments) -> RerankEvalSet | None:
    """The evaluation set named by ``--eval_dir`` or ``--eval_candidates``/``--eval_qrels``, or None."""
    import ir_measures

    candidates, qrels_path, level, name = data_args.eval_candidates, data_args.eval_qrels, 1, "eval"
    if data_args.eval_dir:
        folder = Path(data_args.eval_dir)
        candidates, qrels_path = candidates or folder / "candidates.json", qrels_path or folder / "qrels.txt"
        if (folder / "collection.json").is_file():
            level = json.loads((folder / "collection.json").read_text()).get("relevance_level", level)
        name = folder.name
    if candidates is None:
        return None
    if qrels_path is None:
        raise ValueError(f"{candidates}: --eval_qrels is needed with --eval_candidates")
    queries = []
    for record in json.loads(Path(candidates).read_text(encoding="utf-8"))[: data_args.eval_max_queries]:
        hits = record.get("hits") or []
        if not hits:
            logger.warning(f"{candidates}: query {record.get('query')!r} has no candidates; skipped")
            continue
        docs = [(str(hit["docid"]), hit["content"]) for hit in hits[: data_args.eval_depth]]
        queries.append((str(hits[0]["qid"]), record["query"], docs))
    qrels: dict[str, dict[str, int]] = {}
    for qrel in ir_measures.read_trec_qrels(str(qrels_path)):
        qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    level = data_args.eval_relevance_level if data_args.eval_relevance_level is not None else level
    return RerankEvalSet(queries, qrels, level, name)


@torch.no_grad()
def rerank_metrics(
    model, tokenizer, eval_set: RerankEvalSet, batch_size: int = 32, max_length: int = 512
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Re-rank every query's candidates with ``model`` and score the run with ir_measures.

    Args:
        model: a ranking model returning ``logits`` ``[pairs, 1]``.
        tokenizer: its tokenizer.
        eval_set: the queries, candidates and qrels.
        batch_size: pairs per forward pass.
        max_length: pair length (document side truncated).

    Returns:
        ``({"ndcg@10": ..., "mrr@10": ...}, run)`` with ``run = {query_id: {doc_id: score}}``.
    """
    import ir_measures
    from ir_measures import RR, nDCG

    was_training, device = model.training, next(model.parameters()).device
    model.eval()
    pairs = [(qid, query, docid, text) for qid, query, docs in eval_set.queries for docid, text in docs]
    run: dict[str, dict[str, float]] = {}
    for start in range(0, len(pairs), batch_size):
        chunk = pairs[start : start + batch_size]
        encoded = tokenizer(
            [p[1] for p in chunk],
            [p[3] for p in chunk],
            truncation="only_second",
            max_length=max_length,
            padding=True,
            return_tensors="pt",
        ).to(device)
        logits = model(**encoded).logits.view(-1).float().cpu().tolist()
        for (qid, _, docid, _), score in zip(chunk, logits, strict=True):
            run.setdefault(qid, {})[docid] = score
    model.train(was_training)
    ndcg, mrr = nDCG @ 10, RR(rel=eval_set.relevance_level) @ 10
    values = ir_measures.calc_aggregate([ndcg, mrr], eval_set.qrels, run)
    return {"ndcg@10": float(values[ndcg]), "mrr@10": float(values[mrr])}, run
