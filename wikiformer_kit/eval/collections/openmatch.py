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
from pathlib import Path

from wikiformer_kit.eval.collections.collection import Qrels, Run
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.textfile import numbered_lines

logger = logging.getLogger(__name__)

KEYS = ("query_id", "doc_id", "query", "doc")


def read_openmatch_candidates(path: str | Path) -> tuple[dict[str, str], dict[str, str], Run, Qrels]:
    """Read an OpenMatch re-ranking JSONL file.

    Returns:
        ``(documents, queries, run, labels)``: the candidates' texts, the queries' texts, the first stage's run
        (``retrieval_score``; candidates without one ranked in file order) and the positive labels as qrels.

    Raises:
        CollectionFormatError: a line that is not a JSON object with ``query_id``, ``doc_id``, ``query`` and ``doc``
            (file and line named).
    """
    documents: dict[str, str] = {}
    queries: dict[str, str] = {}
    run: Run = {}
    labels: Qrels = {}
    for number, line in numbered_lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            query_id, doc_id = str(record["query_id"]), str(record.get("doc_id", record.get("paper_id")))
            if doc_id == "None":
                raise KeyError("doc_id")
            query, doc = str(record["query"]), str(record["doc"])
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise CollectionFormatError(
                path, f"not an OpenMatch candidate {{{', '.join(KEYS)}, ...}}: {type(error).__name__} {error}", number
            ) from None
        queries.setdefault(query_id, query)
        documents.setdefault(doc_id, doc)
        ranking = run.setdefault(query_id, {})
        score = record.get("retrieval_score")
        ranking.setdefault(doc_id, float(score) if score is not None else -float(len(ranking)))
        label = record.get("label")
        if isinstance(label, int) and label > 0:
            labels.setdefault(query_id, {})[doc_id] = label
    return documents, queries, run, labels
