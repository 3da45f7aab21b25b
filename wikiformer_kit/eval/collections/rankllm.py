"""rank_llm candidate files: JSON ``[{query, hits: [{content, qid, docid, rank, score}]}]`` with passage text."""

from __future__ import annotations

import logging
from pathlib import Path

from wikiformer_kit.eval.collections.collection import Run
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.textfile import read_json

logger = logging.getLogger(__name__)


def read_rankllm_candidates(path: str | Path) -> tuple[dict[str, str], dict[str, str], Run]:
    """``(documents, queries, run)`` of a rank_llm ``retrieve_results_*.json`` file (a JSON list, an entry per
    query): the candidates' and queries' texts and the first-stage run. A document seen under several queries
    keeps its first text (a differing text is counted in a warning); a document listed twice for one query keeps
    its first (higher-ranked) hit, also counted.

    Raises:
        CollectionFormatError: not a list, an entry without ``query``/``hits``, a hit without ``qid``,
            ``docid`` or ``content``, or hits of one entry naming different query ids.
    """
    entries = read_json(path)
    if not isinstance(entries, list):
        raise CollectionFormatError(path, "expected a JSON list of {query, hits} entries")
    documents: dict[str, str] = {}
    queries: dict[str, str] = {}
    run: Run = {}
    conflicting_texts = duplicates = 0
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or "query" not in entry or "hits" not in entry:
            raise CollectionFormatError(path, f"entry {index} has no 'query' and 'hits'")
        hits = entry["hits"]
        if not isinstance(entry["query"], str) or not isinstance(hits, list):
            raise CollectionFormatError(path, f"entry {index}: 'query' must be text and 'hits' a list")
        if not hits:
            logger.warning("%s: entry %d (%r) has no hits; skipped", path, index, entry["query"][:60])
            continue
        qids = set()
        ranking: dict[str, float] = {}
        for position, hit in enumerate(hits):
            if not isinstance(hit, dict):
                raise CollectionFormatError(path, f"entry {index}, hit {position} is not an object")
            missing = [key for key in ("qid", "docid", "content") if key not in hit]
            if missing:
                raise CollectionFormatError(path, f"entry {index}, hit {position} lacks {missing}")
            qids.add(str(hit["qid"]))
            docid = str(hit["docid"])
            if docid in ranking:
                duplicates += 1
                continue
            # rank_llm writes scores descending; without a score, fall back to the rank order
            try:
                ranking[docid] = float(hit["score"]) if "score" in hit else -float(hit.get("rank", position + 1))
            except (TypeError, ValueError):
                raise CollectionFormatError(
                    path, f"entry {index}, hit {position}: score or rank is not a number"
                ) from None
            if not isinstance(hit["content"], str):
                raise CollectionFormatError(path, f"entry {index}, hit {position}: 'content' is not text")
            if docid in documents:
                conflicting_texts += documents[docid] != hit["content"]
            else:
                documents[docid] = hit["content"]
        if len(qids) != 1:
            raise CollectionFormatError(path, f"entry {index}: hits name several query ids {sorted(qids)}")
        qid = qids.pop()
        queries[qid] = entry["query"]
        run[qid] = ranking
    if duplicates:
        logger.warning("%s: %d duplicate hits (same query and document) dropped, first kept", path, duplicates)
    if conflicting_texts:
        logger.warning("%s: %d documents appear with different texts; the first text is kept", path, conflicting_texts)
    return documents, queries, run
