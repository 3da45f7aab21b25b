"""Zero-shot re-ranking evaluation during training, through ``eval/``: its collection loaders, its first stage,
its scorer (`modeling_wikiformer.score_pairs`) and its trec_eval metrics.

The dev collection (``--eval_dir``) chooses the checkpoint; test collections (``--test_dirs``) are evaluated once
at the end and may never be the dev collection (the paper selects on a dev set that is not the test set).
``--eval_nanobeir SETS`` chooses it on NanoBEIR instead, by the figures re-ranker model cards quote
(`eval.nanobeir`: ``NanoBEIR_R100_mean_ndcg@10``, ``NanoMSMARCO_R100_mrr@10``, ...).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from wikiformer_kit.eval.collections import Collection, Run
from wikiformer_kit.eval.collections.trec import ranked
from wikiformer_kit.eval.metrics import evaluate_run
from wikiformer_kit.eval.nanobeir import NanoBEIREvaluator, split_name
from wikiformer_kit.eval.rerank import ModelScorer, check_first_stage_scores, fuse_run, rerank_run
from wikiformer_kit.eval.splits import load_collection_part, same_source
from wikiformer_kit.training.arguments import DataArguments

logger = logging.getLogger("wikiformer.train")

METRIC_NAMES = ("ndcg@10", "mrr@10")
_MEASURES = {"ndcg@10": "nDCG@10", "mrr@10": "RR@10"}


@dataclass
class RerankEvalSet:
    """A zero-shot re-ranking set: a collection, its first-stage candidates and the queries evaluated.

    Args:
        candidates: the first-stage run, cut to ``depth`` per query.
        query_ids: the judged queries evaluated (all of them unless ``eval_max_queries``).
        first_stage: the first stage's name (the collection's own run, or ``bm25``).
        fusion: ``(method, alpha)`` for the fused figures (``fused_ndcg@10``), or None.
    """

    collection: Collection
    candidates: Run
    query_ids: list[str]
    name: str = "eval"
    first_stage: str = "bm25"
    fusion: tuple[str, float] | None = field(default=None)

    @property
    def relevance_level(self) -> int:
        """The smallest grade counted relevant by binary measures."""
        return self.collection.relevance_level

    @property
    def qrels(self) -> dict[str, dict[str, int]]:
        """The judgments of the evaluated queries."""
        return {qid: self.collection.qrels[qid] for qid in self.query_ids}

    def metric_names(self) -> list[str]:
        """The keys evaluation logs (without ``eval_``): ``ndcg@10``, ``mrr@10`` and, with a fusion, ``fused_...``."""
        return [*METRIC_NAMES, *(f"fused_{name}" for name in METRIC_NAMES if self.fusion is not None)]


def load_eval_set(
    spec: str,
    depth: int = 100,
    max_queries: int | None = None,
    relevance_level: int | None = None,
    fusion: tuple[str, float] | None = ("zscore", 0.7),
) -> RerankEvalSet:
    """A collection in any format ``eval`` reads (``FOLDER``, ``FORMAT:PATH``, ``#dev``/``#test``), its judged
    queries and their top ``depth`` first-stage candidates (the collection's own run, else BM25).

    Raises:
        ValueError: the collection has no judgments, or no judged query with a text.
    """
    collection = load_collection_part(spec, relevance_level)
    if not collection.qrels:
        raise ValueError(f"evaluation collection {spec}: no judgments (qrels); it cannot choose a checkpoint")
    query_ids = collection.judged_query_ids()[:max_queries]
    if not query_ids:
        raise ValueError(f"evaluation collection {spec}: no judged query has a text")
    first_stage, candidates = first_stage_candidates(collection, query_ids, depth)
    if fusion is not None:
        try:
            check_first_stage_scores(candidates, first_stage)
        except ValueError as error:
            logger.warning("%s: no fused figures during training (%s)", spec, error)
            fusion = None
    return RerankEvalSet(collection, candidates, query_ids, collection.name, first_stage, fusion)


def first_stage_candidates(collection: Collection, query_ids: list[str], depth: int) -> tuple[str, Run]:
    """The first stage's name and the top ``depth`` candidates of ``query_ids`` from the collection's own run, else
    from BM25 (bm25s with its defaults: stemming, stopwords)."""
    if collection.runs:
        first_stage, run = next(iter(collection.runs.items()))
    else:
        from wikiformer_kit.eval.first_stage import BM25Options, BM25Retriever

        first_stage = "bm25"
        run = BM25Retriever(collection.documents, BM25Options()).retrieve(collection.queries, depth, query_ids)
    return first_stage, {qid: dict(ranked(run[qid])[:depth]) for qid in query_ids if qid in run}


@dataclass
class NanoBEIREvalSet:
    """NanoBEIR as the dev set: the checkpoint is chosen by sentence-transformers' figures (``metric_for_best_model:
    NanoBEIR_R100_mean_ndcg@10``); see `eval.nanobeir`.

    Args:
        evaluator: the loaded sets.
    """

    evaluator: NanoBEIREvaluator

    @property
    def name(self) -> str:
        """The prefix of the means, e.g. ``NanoBEIR_R100_mean``."""
        return self.evaluator.name

    def metric_names(self) -> list[str]:
        """The keys evaluation logs (without ``eval_``), e.g. ``NanoBEIR_R100_mean_ndcg@10``."""
        metrics = ("map", f"mrr@{self.evaluator.at_k}", f"ndcg@{self.evaluator.at_k}")
        prefixes = [f"{split_name(name)}_R{self.evaluator.rerank_k}" for name in self.evaluator.dataset_names]
        return [f"{prefix}_{base}{metric}" for prefix in [*prefixes, self.name] for base in ("", "base_")
                for metric in metrics]  # fmt: skip


def load_nanobeir_eval(data_args: DataArguments) -> NanoBEIREvalSet:
    """The NanoBEIR sets of ``--eval_nanobeir`` (``default``: sentence-transformers' 11) from
    ``--eval_nanobeir_data``."""
    sets = None if data_args.eval_nanobeir == ["default"] else data_args.eval_nanobeir
    return NanoBEIREvalSet(
        NanoBEIREvaluator(sets, data_args.eval_nanobeir_data, rerank_k=data_args.eval_nanobeir_rerank_k)
    )


def load_rerank_eval(data_args: DataArguments) -> RerankEvalSet | NanoBEIREvalSet | None:
    """The dev set named by ``--eval_dir`` (see :func:`load_eval_set`), or NanoBEIR's sets (``--eval_nanobeir``), or
    None.

    Raises:
        ValueError: ``--eval_dir`` names one of the ``--test_dirs`` (or overlapping queries of it), or both
            ``--eval_dir`` and ``--eval_nanobeir`` are given (one dev set chooses the checkpoint).
    """
    check_no_trained_queries(data_args)
    if data_args.eval_nanobeir:
        if data_args.eval_dir:
            raise ValueError(
                f"--eval_dir {data_args.eval_dir} and --eval_nanobeir {' '.join(data_args.eval_nanobeir)}: one dev "
                "set chooses the checkpoint; give one of them (a collection for the other goes in --test_dirs)"
            )
        return load_nanobeir_eval(data_args)
    if not data_args.eval_dir:
        return None
    for test in data_args.test_dirs:
        if same_source(data_args.eval_dir, test):
            raise ValueError(
                f"--eval_dir {data_args.eval_dir} is also a test collection ({test}): a checkpoint is never chosen "
                "on the test set; give a dev collection (or the #dev part of one, with #test as the test)"
            )
    return load_eval_set(
        data_args.eval_dir, data_args.eval_depth, data_args.eval_max_queries, data_args.eval_relevance_level,
        _fusion(data_args),
    )  # fmt: skip


def check_no_trained_queries(data_args: DataArguments) -> None:
    """Refuse a dev or test collection that shares queries with fine-tuning groups mined from it
    (``python -m dataset_scripts.finetune`` records its collection and query part, e.g. ``cranfield#train``).

    Raises:
        ValueError: ``--eval_dir`` or one of ``--test_dirs`` overlaps a training dataset's queries.
    """
    from wikiformer_kit.dataset_scripts.finetune.output import mined_from

    for dataset in data_args.train_datasets:
        source = mined_from(dataset)
        for spec in filter(None, [data_args.eval_dir, *data_args.test_dirs]):
            if source and same_source(source, spec):
                raise ValueError(
                    f"{spec} shares queries with the training groups {dataset} (mined from {source}): fine-tune on "
                    "#train, choose on #dev and report #heldout (eval/splits.py)"
                )


def load_test_sets(data_args: DataArguments) -> list[RerankEvalSet]:
    """The test collections of ``--test_dirs``, evaluated once after training (never used for selection)."""
    return [load_eval_set(spec, data_args.eval_depth, None, None, _fusion(data_args)) for spec in data_args.test_dirs]


def _fusion(data_args: DataArguments) -> tuple[str, float] | None:
    if data_args.eval_fusion == "none":
        return None
    from wikiformer_kit.modeling_wikiformer import check_fusion

    check_fusion(data_args.eval_fusion, data_args.eval_fusion_alpha)
    return data_args.eval_fusion, data_args.eval_fusion_alpha


def rerank_metrics(
    model, tokenizer, eval_set: RerankEvalSet, batch_size: int = 32, max_length: int = 512
) -> tuple[dict[str, float], Run]:
    """Re-rank every query's candidates with ``model`` (``logits`` ``[pairs, 1]``; pairs of ``max_length`` tokens,
    longest-first truncation) and score the run with ``eval``'s trec_eval metrics.

    Returns ``({"ndcg@10", "mrr@10"[, "fused_ndcg@10", "fused_mrr@10"]}, run)`` with ``run = {query_id: {doc_id:
    score}}`` (MRR at the collection's relevance level; fused with the first stage when the set has a fusion).
    """
    scorer = ModelScorer(model, tokenizer, max_length=max_length, batch_size=batch_size)
    run = rerank_run(eval_set.collection, eval_set.candidates, scorer, query_ids=eval_set.query_ids, progress=False)
    metrics = _means(run, eval_set, "")
    if eval_set.fusion is not None:
        metrics.update(_means(fuse_run(run, eval_set.candidates, *eval_set.fusion), eval_set, "fused_"))
    return metrics, run


def nanobeir_metrics(
    model, tokenizer, eval_set: NanoBEIREvalSet, batch_size: int = 32, max_length: int = 512
) -> dict[str, float]:
    """NanoBEIR's figures of ``model`` under sentence-transformers' keys (see `eval.nanobeir.NanoBEIREvaluator`)."""
    return eval_set.evaluator(ModelScorer(model, tokenizer, max_length=max_length, batch_size=batch_size))


def _means(run: Run, eval_set: RerankEvalSet, prefix: str) -> dict[str, float]:
    means = evaluate_run(run, eval_set.qrels, list(_MEASURES.values()), eval_set.relevance_level).means()
    return {f"{prefix}{key}": float(means[measure]) for key, measure in _MEASURES.items()}
