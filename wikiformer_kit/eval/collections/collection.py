"""The `Collection`: one test collection in memory (documents, queries, qrels, candidate runs)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from wikiformer_kit.eval.collections.errors import CollectionFormatError

logger = logging.getLogger(__name__)

Qrels = dict[str, dict[str, int]]
"""Relevance judgments: query id -> document id -> grade (TREC style, 0 = judged non-relevant)."""

Run = dict[str, dict[str, float]]
"""A ranking: query id -> document id -> score (higher is better; the order trec_eval uses)."""


@dataclass
class Collection:
    """A test collection: everything needed to retrieve, re-rank and evaluate.

    Args:
        name: a short name used in tables and file names (e.g. ``dl20``).
        documents: document id -> text (title and body joined when the source has both).
        runs: named candidate runs that came with the collection (e.g. ``{"bm25": run}``).
        relevance_level: the smallest grade counted as relevant by binary measures (TREC DL uses 2).
        relevance_source: where the level comes from (``collection.json``, ``--relevance-level``, or the
            default for these qrels and why; see `eval.collections.relevance`).

    Example::

        from wikiformer_kit.eval.collections import load_collection
        dl20 = load_collection("data/samples/eval/dl20-mini")
        print(dl20.summary())
    """

    name: str
    documents: dict[str, str] = field(default_factory=dict)
    queries: dict[str, str] = field(default_factory=dict)
    qrels: Qrels = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    relevance_level: int = 1
    relevance_source: str = "trec_eval's default level 1"
    titles: dict[str, str] = field(default_factory=dict)
    """Document id -> title, where the source has titles (the text then starts with it): MaxP and SumP repeat it
    before each passage (`eval.rerank.long_documents`)."""
    not_read: dict[str, str] = field(default_factory=dict)
    """Files of the collection's folder that were not read -> why (also logged as warnings)."""

    def judged_query_ids(self) -> list[str]:
        """Query ids that have a text and at least one judgment, in query order."""
        return [qid for qid in self.queries if qid in self.qrels]

    def require_queries(self) -> None:
        """Refuse a collection without queries before a run is made of it (it would be empty).

        Raises:
            CollectionFormatError: no query was read; the message names the files not read and the query layouts.
        """
        if self.queries:
            return
        not_read = "; ".join(f"{Path(p).name}: {why}" for p, why in self.not_read.items())
        raise CollectionFormatError(
            self.name,
            f"no queries to rank ({len(self.documents):,} documents, {len(self.qrels):,} judged queries"
            + (f"; not read: {not_read}" if not_read else "")
            + "): queries are TREC topics, a 'qid<TAB>text' TSV, SMART queries or JSON lines with "
            "query_id/qid/_id and text/query; a QA set's questions need judgments (qrels) to be a test collection",
        )

    def default_run(self) -> Run | None:
        """The first candidate run shipped with the collection, or None."""
        return next(iter(self.runs.values()), None)

    def problems(self) -> list[str]:
        """Describe inconsistencies as counted messages (empty list when there are none).

        Checked: queries without judgments, judged queries without a text, empty query texts, empty
        documents, and run candidates missing from the documents.
        """
        messages = []
        unjudged = [qid for qid in self.queries if qid not in self.qrels]
        if unjudged and self.qrels:
            messages.append(
                f"{len(unjudged)} of {len(self.queries)} queries have no judgments (e.g. {unjudged[:3]}); "
                "they are not evaluated (trec_eval ignores queries absent from the qrels)"
            )
        textless = [qid for qid in self.qrels if qid not in self.queries]
        if textless and self.queries:
            messages.append(
                f"{len(textless)} of {len(self.qrels)} judged queries have no query text (e.g. {textless[:3]})"
            )
        empty = [qid for qid, text in self.queries.items() if not text.strip()]
        if empty:
            messages.append(f"{len(empty)} queries have an empty text (e.g. {empty[:3]}); they cannot be scored")
        empty_docs = [did for did, text in self.documents.items() if not text.strip()]
        if empty_docs:
            messages.append(f"{len(empty_docs)} documents have an empty text (e.g. {empty_docs[:3]})")
        if self.documents:
            for name, run in self.runs.items():
                missing = {did for ranking in run.values() for did in ranking if did not in self.documents}
                if missing:
                    messages.append(
                        f"run {name!r}: {len(missing)} candidate documents are not in the corpus "
                        f"(e.g. {sorted(missing)[:3]})"
                    )
        return messages

    def log_problems(self) -> None:
        """Log every message of `problems` as a warning."""
        for message in self.problems():
            logger.warning("%s: %s", self.name, message)

    def summary(self) -> str:
        """One line: counts of documents, queries, judged queries, judgments and runs."""
        judgments = sum(len(docs) for docs in self.qrels.values())
        return (
            f"{self.name}: {len(self.documents)} documents, {len(self.queries)} queries "
            f"({len(self.judged_query_ids())} judged), {judgments} judgments, runs {sorted(self.runs)}, "
            f"binary relevance >= {self.relevance_level}"
        )
