"""TREC formats: qrels, topics (tab-separated or SGML ``<top>``) and run files, read and written.

Conventions (trec_eval's): a qrels line is ``qid iteration docid grade``; a run line is
``qid Q0 docid rank score tag``, where the rank column is ignored and documents are ordered by score
(descending), ties broken by document id (descending), exactly as trec_eval sorts them.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from .collection import Qrels, Run
from .errors import CollectionFormatError

logger = logging.getLogger(__name__)

_TOP = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_NUM = re.compile(r"<num>\s*(?:Number:)?\s*([^<\s]+)", re.I)
_TITLE = re.compile(r"<title>\s*(?:Topic:)?(.*?)(?=<[a-z/]|\Z)", re.S | re.I)


def read_trec_qrels(path: str | Path) -> Qrels:
    """Read a TREC qrels file (``qid iteration docid grade`` per line).

    Args:
        path: the qrels file.

    Returns:
        query id -> document id -> integer grade. A repeated (query, document) pair keeps the last grade
        (as trec_eval does) and is reported as a counted warning.

    Raises:
        CollectionFormatError: a line without 4 fields or with a non-integer grade.
    """
    qrels: Qrels = {}
    repeated = 0
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise CollectionFormatError(
                    path, f"expected 4 fields 'qid iter docid grade', got {line.strip()!r}", number
                )
            qid, _, docid, grade = fields
            try:
                value = int(float(grade))
            except ValueError:
                raise CollectionFormatError(path, f"grade {grade!r} is not a number", number) from None
            judged = qrels.setdefault(qid, {})
            repeated += docid in judged
            judged[docid] = value
    if repeated:
        logger.warning("%s: %d repeated (query, document) judgments; the last grade of each is kept", path, repeated)
    return qrels


def read_trec_topics(path: str | Path) -> dict[str, str]:
    """Read topics: tab-separated ``qid<TAB>text`` lines, or SGML ``<top><num>..<title>..</top>`` blocks.

    Args:
        path: the topics file; SGML is recognised by a ``<top>`` tag, and its ``<title>`` field is the query.

    Returns:
        query id -> query text (whitespace collapsed).

    Raises:
        CollectionFormatError: a tab-separated line without a tab, an SGML topic without ``<num>``, or a
            repeated query id.
    """
    text = Path(path).read_text(encoding="utf-8")
    topics: dict[str, str] = {}
    if re.search(r"<top>", text, re.I):
        for block in _TOP.finditer(text):
            number = _NUM.search(block.group(1))
            if number is None:
                line = text.count("\n", 0, block.start()) + 1
                raise CollectionFormatError(path, "topic without <num>", line)
            title = _TITLE.search(block.group(1))
            _add_topic(topics, number.group(1), title.group(1) if title else "", path, None)
        return topics
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        qid, tab, query = line.partition("\t")
        if not tab:
            raise CollectionFormatError(path, f"expected 'qid<TAB>text', got {line!r}", number)
        _add_topic(topics, qid.strip(), query, path, number)
    return topics


def _add_topic(topics: dict[str, str], qid: str, text: str, path: str | Path, line: int | None) -> None:
    if qid in topics:
        raise CollectionFormatError(path, f"query id {qid!r} appears twice", line)
    topics[qid] = " ".join(text.split())


def read_trec_run(path: str | Path) -> Run:
    """Read a TREC run file (``qid Q0 docid rank score tag``).

    Args:
        path: the run file.

    Returns:
        query id -> document id -> score. trec_eval refuses a run that lists a document twice for one query;
        here the first occurrence (the one ranked higher in the file) is kept and the others are dropped with
        a counted warning naming an example line.

    Raises:
        CollectionFormatError: a line without 6 fields or with a non-numeric score.
    """
    run: Run = {}
    duplicates: list[int] = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 6:
                raise CollectionFormatError(
                    path, f"expected 6 fields 'qid Q0 docid rank score tag', got {line.strip()!r}", number
                )
            qid, _, docid, _, score, _ = fields
            try:
                value = float(score)
            except ValueError:
                raise CollectionFormatError(path, f"score {score!r} is not a number", number) from None
            ranking = run.setdefault(qid, {})
            if docid in ranking:
                duplicates.append(number)
                continue
            ranking[docid] = value
    if duplicates:
        logger.warning(
            "%s: %d duplicate (query, document) rows dropped, the first of each kept (e.g. line %d)",
            path,
            len(duplicates),
            duplicates[0],
        )
    return run


def ranked(ranking: dict[str, float]) -> list[tuple[str, float]]:
    """Documents of one query in trec_eval order: score descending, then document id descending."""
    return sorted(ranking.items(), key=lambda item: (item[1], item[0]), reverse=True)


def format_run_lines(qid: str, ranking: dict[str, float], tag: str) -> str:
    """The TREC run lines of one query, ranked as trec_eval ranks them."""
    return "".join(
        f"{qid} Q0 {docid} {rank} {float(score)!r} {tag}\n"
        for rank, (docid, score) in enumerate(ranked(ranking), start=1)
    )


def write_trec_run(run: Run, path: str | Path, tag: str = "run") -> Path:
    """Write a run in TREC format (queries in the run's order, documents in trec_eval order).

    Args:
        run: query id -> document id -> score.
        path: the output file (parent folders are created).
        tag: the run name written in the last column (no whitespace).

    Returns:
        The path written.
    """
    if not tag or any(c.isspace() for c in tag):
        raise ValueError(f"run tag must be one word, got {tag!r}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        for qid, ranking in run.items():
            out.write(format_run_lines(qid, ranking, tag))
    return path
