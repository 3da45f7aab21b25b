"""OpenMatch's re-ranking files (thunlp/OpenMatch, ``data/preprocess.py``): one JSON object a line per candidate,
``{"query", "doc", "label", "query_id", "doc_id", "retrieval_score"}`` (``paper_id`` for ``doc_id`` in its CORD-19
files), the first stage's candidates with their text.

This is how OpenMatch distributes TREC-COVID Round 2's candidates (``test_trec-covid-round2.jsonl``: Anserini's
``covid-r2.fusion2`` run, round 1's judged documents filtered out, each document its title and abstract), the
candidates the Wikiformer paper re-ranks. ``label`` is the qrels grade where the file was made with qrels (0 also for
an unjudged document) and -1 without; a folder's TREC qrels file, where there is one, is the judgments, else the
positive labels are (nDCG, P, RR and AP count no judged non-relevant document, so they are the same either way).
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

from wikiformer_kit.eval.collections.collection import Qrels, Run
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.textfile import content_lines

logger = logging.getLogger(__name__)

KEYS = ("query_id", "doc_id", "query", "doc")


def read_openmatch_candidates(path: str | Path) -> tuple[dict[str, str], dict[str, str], Run, Qrels]:
    """``(documents, queries, run, labels)`` of an OpenMatch re-ranking JSONL file: the candidates' texts, the
    queries' texts, the first stage's run (``retrieval_score``; candidates without one ranked in file order) and
    the positive labels as qrels. An id given again with another text keeps its first text, and a null text is
    not read (the query then goes unranked, the document is missing): both counted in a warning naming the first.

    Raises:
        CollectionFormatError: a line that is not a JSON object with ``query_id``, ``doc_id``, ``query`` and ``doc``,
            a text that is not text, or a ``retrieval_score`` that is not a number (file and line named).
    """
    documents: dict[str, str] = {}
    queries: dict[str, str] = {}
    run: Run = {}
    labels: Qrels = {}
    conflicts: list[str] = []
    null_texts: list[str] = []
    for number, line in content_lines(path):
        record, query_id, doc_id = _record(path, line, number)
        for kind, key, texts in (("query", query_id, queries), ("document", doc_id, documents)):
            text = _text(path, record["query" if kind == "query" else "doc"], f"{kind} {key!r}", number)
            if text is None:
                null_texts.append(f"{kind} {key!r} at line {number}")
            elif key not in texts:
                texts[key] = text
            elif texts[key] != text:
                conflicts.append(f"{kind} {key!r} at line {number}")
        ranking = run.setdefault(query_id, {})
        ranking.setdefault(doc_id, _score(path, record, f"query {query_id!r}, document {doc_id!r}", number, ranking))
        label = record.get("label")
        if isinstance(label, int) and label > 0:
            labels.setdefault(query_id, {})[doc_id] = label
    if conflicts:
        logger.warning(
            "%s: %d ids given again with another text, the first text kept (e.g. %s)",
            path,
            len(conflicts),
            conflicts[0],
        )
    if null_texts:
        logger.warning(
            "%s: %d null texts not read (e.g. %s): a query without text is not ranked, a document without text is "
            "missing",
            path,
            len(null_texts),
            null_texts[0],
        )
    return documents, queries, run, labels


def _record(path: str | Path, line: str, number: int) -> tuple[dict, str, str]:
    """The JSON object of a line with its query and document ids."""
    try:
        record = json.loads(line)
        query_id, doc_id = str(record["query_id"]), str(record.get("doc_id", record.get("paper_id")))
        if doc_id == "None":
            raise KeyError("doc_id")
        missing = [key for key in ("query", "doc") if key not in record]
        if missing:
            raise KeyError(missing[0])
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise CollectionFormatError(
            path, f"not an OpenMatch candidate {{{', '.join(KEYS)}, ...}}: {type(error).__name__} {error}", number
        ) from None
    return record, query_id, doc_id


def _text(path: str | Path, value, what: str, number: int) -> str | None:
    """A query's or document's text (numbers as written); None for null."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise CollectionFormatError(path, f"the text of {what} is a {type(value).__name__}, not text", number)


def _score(path: str | Path, record: dict, what: str, number: int, ranking: dict) -> float:
    """The candidate's ``retrieval_score``; without one, after the query's candidates so far (file order)."""
    score = record.get("retrieval_score")
    if score is None:
        return -float(len(ranking))
    try:
        value = float(score)
        if isinstance(score, bool) or not math.isfinite(value):
            raise ValueError
    except (TypeError, ValueError):
        raise CollectionFormatError(path, f"retrieval_score {score!r} of {what} is not a number", number) from None
    return value
