"""Groups of one query: each judged-relevant document with negatives from the query's first-stage candidates.

A negative comes from the candidates ranked ``min_rank``..``max_rank`` (1-based, in the first stage's order),
never a document judged relevant in any grade (grade > 0, whatever the relevance level; a partly relevant document
is neither a positive nor a negative), never one missing from the documents, and, with a filter, never one the
cross-encoder scores too close to the positive. The positives are the documents graded at or above the
collection's relevance level. Which negatives a group keeps is fixed by the seed and the query and positive ids.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from wikiformer_kit.dataset_scripts.finetune.false_negatives import FalseNegativeFilter
from wikiformer_kit.dataset_scripts.finetune.options import MiningOptions
from wikiformer_kit.eval.collections import Collection, Run, read_trec_run
from wikiformer_kit.eval.collections.trec import ranked

logger = logging.getLogger(__name__)


@dataclass
class Group:
    """One training group, in the columns of the output (:data:`.output.FEATURES`), in their order."""

    query: str
    positive: str
    negatives: list[str]
    query_id: str
    positive_id: str
    negative_ids: list[str]

    def row(self) -> dict:
        """The Parquet row."""
        return asdict(self)


@dataclass
class MinedShard:
    """The groups of some queries and what was left out, by reason."""

    groups: list[Group] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)


def stable_int(text: str) -> int:
    """A 64-bit integer from a text, the same in every process (Python's ``hash`` is salted)."""
    return int.from_bytes(hashlib.sha1(text.encode("utf-8")).digest()[:8], "big")


def pick(candidates: Sequence[str], options: MiningOptions, *key: str) -> list[str]:
    """``num_negatives`` of ``candidates`` (in rank order): the first ones (``top``) or a draw seeded by the seed and
    ``key`` (``random``), kept in rank order."""
    if len(candidates) <= options.num_negatives:
        return list(candidates)
    if options.sampling == "top":
        return list(candidates[: options.num_negatives])
    rng = np.random.default_rng([options.seed, *(stable_int(k) for k in key)])
    chosen = np.sort(rng.choice(len(candidates), options.num_negatives, replace=False))
    return [candidates[i] for i in chosen]


class CandidateSource:
    """First-stage candidates per query, built once for a mining run (a BM25 or dense index, or a run read once).

    Args:
        collection: the collection (its documents are indexed).
        options: the first stage and its settings.
    """

    def __init__(self, collection: Collection, options: MiningOptions):
        self.collection, self.options = collection, options
        self._retriever = None
        self._run: Run | None = None

    def run(self, query_ids: Sequence[str]) -> Run:
        """The top ``depth`` candidates of these queries (a query without candidates is absent)."""
        method, depth = self.options.first_stage, self.options.depth
        if method in ("bm25", "dense"):
            if self._retriever is None:
                self._retriever = self._build(method)
            return self._retriever.retrieve(self.collection.queries, depth, list(query_ids))
        if self._run is None:
            self._run = self._given_run(method)
        return {qid: dict(ranked(self._run[qid])[:depth]) for qid in query_ids if qid in self._run}

    def _build(self, method: str):
        from wikiformer_kit.eval.first_stage import BM25Options, BM25Retriever, DenseRetriever

        if method == "dense":
            return DenseRetriever(self.collection.documents)
        o = self.options
        return BM25Retriever(self.collection.documents, BM25Options(o.k1, o.b, o.stemmer, o.stopwords))

    def _given_run(self, method: str) -> Run:
        if Path(method).is_file():
            return read_trec_run(method)
        runs = self.collection.runs
        run = next(iter(runs.values()), None) if method == "given" else runs.get(method)
        if run is None:
            raise ValueError(
                f"{self.collection.name}: no run {method!r} (its runs: {sorted(runs) or 'none'}); use bm25, dense, "
                "a run file, or the name of one of its runs"
            )
        return run


def mine_queries(
    collection: Collection,
    query_ids: Sequence[str],
    candidates: Run,
    options: MiningOptions,
    false_negatives: FalseNegativeFilter | None = None,
) -> MinedShard:
    """The groups of ``query_ids`` (see the module docstring), with counts of what was left out.

    Args:
        collection: documents, queries, qrels and relevance level.
        query_ids: the queries, in output order.
        candidates: their first-stage candidates (query id -> document id -> score).
        options: the rank window, number of negatives, sampling and seed.
        false_negatives: the cross-encoder filter, or None.
    """
    shard = MinedShard()
    counts = shard.counts
    documents, level = collection.documents, collection.relevance_level
    pending = []
    for qid in query_ids:
        counts["queries read"] += 1
        judged = collection.qrels.get(qid, {})
        positives = [did for did, grade in judged.items() if grade >= level]
        if not positives:
            counts["query with no document graded relevant"] += 1
            continue
        missing = [did for did in positives if did not in documents]
        counts["positive missing from the documents"] += len(missing)
        positives = [did for did in positives if did in documents]
        if not positives:
            continue
        ranking = ranked(candidates.get(qid, {}))[: options.depth]
        if not ranking:
            counts["query with no first-stage candidate"] += 1
            continue
        window = [did for did, _ in ranking[options.min_rank - 1 : options.last_rank]]
        relevant = {did for did, grade in judged.items() if grade > 0}
        counts["judged-relevant candidate excluded"] += sum(did in relevant for did in window)
        counts["candidate missing from the documents"] += sum(did not in documents for did in window)
        window = [did for did in window if did not in relevant and did in documents]
        pending.append((qid, positives, window))
    closeness = false_negatives.too_close(collection, pending) if false_negatives else {}
    for qid, positives, window in pending:
        for positive in positives:
            dropped = closeness.get((qid, positive), set())
            counts["candidate too close to the positive (cross-encoder)"] += len(dropped)
            kept = [did for did in window if did not in dropped]
            if not kept:
                counts["group with no negative left"] += 1
                continue
            negative_ids = pick(kept, options, qid, positive)
            negatives = [documents[did] for did in negative_ids]
            shard.groups.append(
                Group(collection.queries[qid], documents[positive], negatives, qid, positive, negative_ids)
            )
    counts["groups"] += len(shard.groups)
    shard.counts = +counts  # reasons that never occurred are not listed
    return shard
