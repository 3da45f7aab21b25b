"""NanoBEIR re-ranking figures as re-ranker model cards on the Hub report them: `NanoBEIREvaluator` computes
sentence-transformers' ``CrossEncoderNanoBEIREvaluator`` figures under its keys (``NanoBEIR_R100_mean_ndcg@10``)
with the kit's pair scorer.

These are NOT trec_eval figures: they differ from `eval.metrics` on the same run on purpose, to equal the cards'
numbers (binary relevance, scikit-learn's nDCG and AP over the candidate list, positives matched by their text; see
docs/evaluation.md, "NanoBEIR as model cards report it"). The pair scores are ranked after the activation a
``CrossEncoder`` applies to the checkpoint's logits (`score_activation`): near-equal logits can become equal there,
and scikit-learn averages tied positions, so ranking the raw logits would not give the cards' figures.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

NANOBEIR_SETS = {
    name.lower(): name
    for name in (
        "ClimateFEVER DBPedia FEVER FiQA2018 HotpotQA MSMARCO NFCorpus NQ QuoraRetrieval SCIDOCS ArguAna SciFact "
        "Touche2020"
    ).split()
}
"""Short name (the name lowercased) -> the name in the dataset's split names (``Nano{name}``) and in the result
keys."""

ARGUMENT_SETS = ("arguana", "touche2020")
"""Left out by default, as sentence-transformers' cross-encoder evaluator does: argument retrieval is another task."""

DEFAULT_SETS = tuple(name for name in NANOBEIR_SETS if name not in ARGUMENT_SETS)
DEFAULT_DATASET_ID = "sentence-transformers/NanoBEIR-en"

ACTIVATIONS = ("auto", "sigmoid", "identity")
"""How pair scores are turned into the scores ranked: ``auto`` as ``CrossEncoder`` does for the checkpoint."""

_REQUIRED_COLUMNS = {
    "corpus": ("_id", "text"),
    "queries": ("_id", "text"),
    "qrels": ("query-id", "corpus-id"),
    "bm25": ("query-id", "corpus-ids"),
}


@dataclass(frozen=True)
class NanoQuery:
    """One query of a NanoBEIR set: its text, its positives' texts and its BM25 candidates' texts, best first."""

    query_id: str
    query: str
    positives: list[str]
    documents: list[str]


def split_name(name: str) -> str:
    """The split of every subset that holds set ``name``: a NanoBEIR set by its short name (``msmarco`` ->
    ``NanoMSMARCO``), any other set of a dataset in the same layout by its split (``NanoWIKIR_en``) or the split's
    name without ``Nano`` (``WIKIR-en``)."""
    key = name.lower()
    if key in NANOBEIR_SETS:
        return f"Nano{NANOBEIR_SETS[key]}"
    return name if name.startswith("Nano") else f"Nano{name}"


def check_set_names(names: Sequence[str], dataset_id: str | Path) -> None:
    """Refuse a set NanoBEIR does not have, before anything loads (any name goes for another dataset: its splits
    are checked when they load)."""
    unknown = [name for name in names if name.lower() not in NANOBEIR_SETS]
    if str(dataset_id) == DEFAULT_DATASET_ID and unknown:
        raise ValueError(f"NanoBEIR set {unknown[0]!r}: choose among {', '.join(NANOBEIR_SETS)}")


def dataset_sets(dataset_id: str | Path) -> list[str]:
    """The sets of a dataset in NanoBEIR's layout (a Hub id or a local folder): the splits of its ``bm25`` subset."""
    from datasets import get_dataset_split_names

    splits = get_dataset_split_names(str(dataset_id), "bm25")
    if not splits:
        raise ValueError(f"{dataset_id}: no bm25 subset with splits; a NanoBEIR-layout dataset has one split a set")
    return list(splits)


def load_subset(dataset_id: str | Path, subset: str, split: str):
    """One subset's split of a NanoBEIR dataset: a Hub id, or a local folder holding the same layout."""
    from wikiformer_kit.eval.collections.local_dataset import load_dataset_at

    try:
        dataset = load_dataset_at(dataset_id, subset, split)
    except Exception as error:
        raise ValueError(
            f"{dataset_id}: cannot load subset {subset!r} split {split!r} ({type(error).__name__}: {error}); "
            "a NanoBEIR dataset has the subsets corpus, queries, qrels and bm25, each split Nano{Set}"
        ) from error
    missing = [column for column in _REQUIRED_COLUMNS[subset] if column not in dataset.column_names]
    if missing:
        raise ValueError(f"{dataset_id}: subset {subset!r} split {split!r} lacks the columns {missing}")
    return dataset


def load_nano_queries(dataset_id: str | Path, name: str, rerank_k: int = 100) -> list[NanoQuery]:
    """The queries of NanoBEIR set ``name`` with their positives and BM25 top ``rerank_k``, in the bm25 subset's order.

    An id given twice in the corpus or queries subset keeps its last text, as sentence-transformers' evaluator does
    (another text is counted in a warning).

    Raises:
        ValueError: a subset missing, an id of the bm25 or qrels subset that the queries or corpus lack, or a query
            or candidate whose text is null (named).
    """
    split = split_name(name)
    corpus = load_subset(dataset_id, "corpus", split)
    queries = load_subset(dataset_id, "queries", split)
    qrels = load_subset(dataset_id, "qrels", split)
    bm25 = load_subset(dataset_id, "bm25", split)
    texts = _last_texts(corpus["_id"], corpus["text"], f"{dataset_id} {split} corpus subset")
    query_texts = _last_texts(queries["_id"], queries["text"], f"{dataset_id} {split} queries subset")
    # a set per query, filled in the qrels' order, as sentence-transformers does: the same positives' order
    positive_ids: dict[str, set[str]] = {}
    for row in qrels:
        ids = row["corpus-id"]
        positive_ids.setdefault(row["query-id"], set()).update(ids if isinstance(ids, list) else [ids])

    def text_of(document_id: str, query_id: str, subset: str) -> str:
        if document_id not in texts:
            raise ValueError(
                f"{dataset_id} {split}: document {document_id!r} of query {query_id!r} in the {subset} subset is "
                "not in the corpus subset; use a complete copy of the dataset"
            )
        if texts[document_id] is None:
            raise ValueError(
                f"{dataset_id} {split}: document {document_id!r} of query {query_id!r} has no text (null) in the "
                "corpus subset"
            )
        return texts[document_id]

    result = []
    for row in bm25:
        query_id = row["query-id"]
        if query_id not in query_texts:
            raise ValueError(
                f"{dataset_id} {split}: query {query_id!r} of the bm25 subset is not in the queries subset"
            )
        if query_texts[query_id] is None:
            raise ValueError(f"{dataset_id} {split}: query {query_id!r} has no text (null) in the queries subset")
        if query_id not in positive_ids:
            raise ValueError(f"{dataset_id} {split}: query {query_id!r} of the bm25 subset has no qrels row")
        if not row["corpus-ids"]:
            raise ValueError(f"{dataset_id} {split}: query {query_id!r} has no candidates in the bm25 subset")
        result.append(
            NanoQuery(
                query_id=query_id,
                query=query_texts[query_id],
                positives=[text_of(doc, query_id, "qrels") for doc in positive_ids[query_id]],
                documents=[text_of(doc, query_id, "bm25") for doc in row["corpus-ids"][:rerank_k]],
            )
        )
    if not result:
        raise ValueError(f"{dataset_id} {split}: the bm25 subset has no queries")
    return result


def _last_texts(ids: Sequence[str], texts: Sequence[str | None], where: str) -> dict[str, str | None]:
    """Id -> text, the last text of an id given twice (sentence-transformers' evaluator reads the subsets into a
    dict, so its published figures keep the last); ids given again with another text counted in a warning."""
    mapping: dict[str, str | None] = {}
    conflicts = []
    for key, text in zip(ids, texts, strict=True):
        if key in mapping and mapping[key] != text:
            conflicts.append(key)
        mapping[key] = text
    if conflicts:
        logger.warning(
            "%s: %d ids given again with another text, the last kept as sentence-transformers keeps it (e.g. %r)",
            where,
            len(set(conflicts)),
            conflicts[0],
        )
    return mapping


def ranking_metrics(is_relevant: Sequence[int], scores: Sequence[float], at_k: int) -> tuple[float, float, float]:
    """MRR@k, nDCG@k and AP of one candidate list (binary labels, higher score first), as sentence-transformers."""
    from sklearn.metrics import average_precision_score, ndcg_score

    scores = np.asarray(scores)
    ranking = np.argsort(scores)[::-1]
    mrr = 0.0
    for rank, index in enumerate(ranking[:at_k]):
        if is_relevant[index]:
            mrr = 1 / (rank + 1)
            break
    # scikit-learn refuses nDCG of a single document: it is 1 when that document is a positive
    ndcg = float(is_relevant[0]) if len(scores) == 1 else ndcg_score([is_relevant], [scores], k=at_k)
    ap = average_precision_score(is_relevant, scores)
    return float(mrr), float(ndcg), float(ap)


def score_activation(scorer, activation: str = "auto") -> str:
    """The activation ``CrossEncoder.predict`` applies to this scorer's checkpoint: ``sigmoid`` or ``identity``.

    ``auto`` reads it as sentence-transformers does: the ``activation_fn`` stored in the checkpoint's config
    (``sentence_transformers`` block, or the older ``sbert_ce_default_activation_function``), else sigmoid for a
    one-label model and identity otherwise.
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation {activation!r}: choose one of {', '.join(ACTIVATIONS)}")
    if activation != "auto":
        return activation
    config = getattr(getattr(scorer, "model", None), "config", None)
    stored = (getattr(config, "sentence_transformers", None) or {}).get("activation_fn") or getattr(
        config, "sbert_ce_default_activation_function", None
    )
    if stored and stored.startswith("torch."):
        return "sigmoid" if stored.rsplit(".", 1)[-1] == "Sigmoid" else "identity"
    return "sigmoid" if getattr(config, "num_labels", 1) == 1 else "identity"


def activated(scores: Sequence[float], activation: str) -> np.ndarray:
    """``scores`` as float32 after ``activation`` (``sigmoid`` or ``identity``), as ``CrossEncoder.predict`` returns
    them (float32 kept, so that ranking sorts the very array sentence-transformers sorts)."""
    import torch

    values = torch.tensor(list(scores), dtype=torch.float32)
    return (torch.sigmoid(values) if activation == "sigmoid" else values).numpy()


def _base_metrics(query: NanoQuery, at_k: int) -> tuple[float, float, float]:
    # BM25's own order, with the positives it missed ranked after its candidates
    is_relevant = [int(text in query.positives) for text in query.documents]
    if not any(is_relevant):
        return 0.0, 0.0, 0.0
    is_relevant += [1] * (len(query.positives) - sum(is_relevant))
    return ranking_metrics(is_relevant, np.arange(len(is_relevant), 0, -1), at_k)


def _candidates(query: NanoQuery, always_rerank_positives: bool) -> tuple[list[str], list[int]]:
    if always_rerank_positives:
        documents = query.positives + [text for text in query.documents if text not in query.positives]
        return documents, [1] * len(query.positives) + [0] * (len(documents) - len(query.positives))
    return list(query.documents), [int(text in query.positives) for text in query.documents]


def evaluate_set(
    scorer,
    queries: Sequence[NanoQuery],
    at_k: int = 10,
    always_rerank_positives: bool = True,
    activation: str = "auto",
) -> dict[str, float]:
    """MAP, MRR@k and nDCG@k of one set re-ranked by ``scorer`` (any object with the kit's ``score(queries,
    documents)``), and the BM25 order's (``base_...``), each the mean over the set's queries; ``activation`` as in
    `score_activation`."""
    lists = [_candidates(query, always_rerank_positives) for query in queries]
    pair_queries = [
        query.query for query, (documents, labels) in zip(queries, lists, strict=True) if any(labels) for _ in documents
    ]
    pair_documents = [doc for documents, labels in lists if any(labels) for doc in documents]
    scores = scorer.score(pair_queries, pair_documents) if pair_queries else []
    scores = activated(scores, score_activation(scorer, activation))
    reranked, offset = [], 0
    for documents, labels in lists:
        if not any(labels):
            reranked.append((0.0, 0.0, 0.0))
            continue
        reranked.append(ranking_metrics(labels, scores[offset : offset + len(documents)], at_k))
        offset += len(documents)
    figures = {}
    for prefix, rows in (("", reranked), ("base_", [_base_metrics(query, at_k) for query in queries])):
        mrr, ndcg, ap = (float(np.mean(column)) for column in zip(*rows, strict=True))
        figures |= {f"{prefix}map": ap, f"{prefix}mrr@{at_k}": mrr, f"{prefix}ndcg@{at_k}": ndcg}
    return figures


class NanoBEIREvaluator:
    """NanoBEIR figures of a re-ranker under sentence-transformers' keys (see the module docstring for how they
    are computed and why they are not trec_eval's).

    Args:
        dataset_names: short names of the sets (``msmarco``, ...), or the splits of another dataset in the same
            layout (``NanoWIKIR_en``); default: NanoBEIR's all but ArguAna and Touche2020, as sentence-transformers'
            cross-encoder evaluator, and every set of another dataset.
        dataset_id: the Hub dataset (translated copies of NanoBEIR share its layout) or a local folder of the same
            layout (subsets corpus, queries, qrels, bm25; splits ``Nano{Set}``).
        always_rerank_positives: add the positives BM25 missed to each query's candidates (the cards' setting).
        aggregate_key: the name of the mean in the keys (``NanoBEIR_R100_mean_ndcg@10``).
        activation: as `score_activation`: ``auto`` gives the cards' figures.
    """

    def __init__(
        self,
        dataset_names: Sequence[str] | None = None,
        dataset_id: str | Path = DEFAULT_DATASET_ID,
        rerank_k: int = 100,
        at_k: int = 10,
        always_rerank_positives: bool = True,
        aggregate_key: str = "mean",
        activation: str = "auto",
    ):
        default = DEFAULT_SETS if str(dataset_id) == DEFAULT_DATASET_ID else None
        self.dataset_names = list(dataset_names or default or dataset_sets(dataset_id))
        check_set_names(self.dataset_names, dataset_id)
        self.dataset_id = dataset_id
        self.rerank_k, self.at_k = rerank_k, at_k
        self.always_rerank_positives = always_rerank_positives
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation {activation!r}: choose one of {', '.join(ACTIVATIONS)}")
        self.activation = activation
        self.name = f"NanoBEIR_R{rerank_k:d}_{aggregate_key}"
        self.sets = {name: load_nano_queries(dataset_id, name, rerank_k) for name in self.dataset_names}

    @property
    def primary_metric(self) -> str:
        """The key cards compare re-rankers by, e.g. ``NanoBEIR_R100_mean_ndcg@10``."""
        return f"{self.name}_ndcg@{self.at_k}"

    def __call__(self, scorer) -> dict[str, float]:
        """Every set's figures (``Nano{Set}_R{k}_{metric}``) and their means (``NanoBEIR_R{k}_{aggregate}_{metric}``).

        Args:
            scorer: the kit's pair scorer (`PairScorer`, `ModelScorer`, `PassageScorer`) or a checkpoint folder or
                Hub id, loaded as a `PairScorer`.
        """
        if isinstance(scorer, (str, Path)):
            from wikiformer_kit.eval.rerank import PairScorer

            scorer = PairScorer(str(scorer))
        results: dict[str, float] = {}
        per_metric: dict[str, list[float]] = {}
        for name, queries in self.sets.items():
            figures = evaluate_set(scorer, queries, self.at_k, self.always_rerank_positives, self.activation)
            set_key = f"{split_name(name)}_R{self.rerank_k}"
            logger.info(
                "%s: nDCG@%d %.4f (BM25 %.4f), MRR@%d %.4f, MAP %.4f over %d queries",
                set_key,
                self.at_k,
                figures[f"ndcg@{self.at_k}"],
                figures[f"base_ndcg@{self.at_k}"],
                self.at_k,
                figures[f"mrr@{self.at_k}"],
                figures["map"],
                len(queries),
            )
            for metric, value in figures.items():
                results[f"{set_key}_{metric}"] = value
                per_metric.setdefault(metric, []).append(value)
        results.update({f"{self.name}_{metric}": float(np.mean(values)) for metric, values in per_metric.items()})
        return results
