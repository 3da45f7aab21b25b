"""TREC formats: qrels, topics (tab-separated or SGML ``<top>``) and run files, read and written.

Conventions (trec_eval's): a qrels line is ``qid iteration docid grade`` (the iteration column is ``0`` or
``Q0``, as Anserini writes it); a run line is ``qid Q0 docid rank score tag``, where the rank column is ignored and
documents are ordered by score (descending), ties broken by document id (descending), exactly as trec_eval sorts
them. Fields are separated by spaces or tabs. Runs are also read without their tag (``qid Q0 docid rank score``)
and in MS MARCO's ``qid<TAB>docid<TAB>rank`` layout (score = -rank, so the file's ranking is kept).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from wikiformer_kit.eval.collections.collection import Qrels, Run
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.textfile import content_lines, read_text

logger = logging.getLogger(__name__)

_TOP = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_NUM = re.compile(r"<num>\s*(?:Number:)?\s*([^<\s]+)", re.I)
_TITLE = re.compile(r"<title>\s*(?:Topic:)?(.*?)(?=<[a-z/]|\Z)", re.S | re.I)


def read_trec_qrels(path: str | Path) -> Qrels:
    """Read a TREC qrels file (``qid iteration docid grade`` per line); a repeated (query, document) pair keeps
    the last grade (as trec_eval does) and is reported as a counted warning.

    Raises:
        CollectionFormatError: a line without 4 fields or with a non-integer grade.
    """
    qrels: Qrels = {}
    repeated = 0
    for number, line in content_lines(path):
        fields = line.split()
        if len(fields) != 4:
            raise CollectionFormatError(path, f"expected 4 fields 'qid iter docid grade', got {line.strip()!r}", number)
        qid, _, docid, grade = fields
        try:
            value = int(float(grade))
        except (ValueError, OverflowError):
            raise CollectionFormatError(path, f"grade {grade!r} is not a number", number) from None
        judged = qrels.setdefault(qid, {})
        repeated += docid in judged
        judged[docid] = value
    if repeated:
        logger.warning("%s: %d repeated (query, document) judgments; the last grade of each is kept", path, repeated)
    return qrels


def read_trec_topics(path: str | Path) -> dict[str, str]:
    """Query id -> text (whitespace collapsed) of topics: tab-separated ``qid<TAB>text`` lines, or SGML
    ``<top><num>..<title>..</top>`` blocks (recognised by a ``<top>`` tag; the ``<title>`` is the query).

    Raises:
        CollectionFormatError: a tab-separated line without a tab, an SGML topic without ``<num>``, or a
            repeated query id.
    """
    text = read_text(path)
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
    """Read a run file: TREC's ``qid Q0 docid rank score tag``, the same without the tag, or MS MARCO's
    ``qid<TAB>docid<TAB>rank`` (score ``-rank``); the layout is taken from the first line, and every line must have
    it. trec_eval refuses a run that lists a document twice for one query; here the first occurrence (the one
    ranked higher in the file) is kept and the others are dropped with a counted warning naming an example line.

    Raises:
        CollectionFormatError: a line of another width than the first, or a non-numeric score or rank.
    """
    run: Run = {}
    duplicates: list[int] = []
    width = None
    for number, line in content_lines(path):
        fields = line.split()
        width = width or len(fields)
        if width not in (3, 5, 6) or len(fields) != width:
            raise CollectionFormatError(
                path,
                f"expected 'qid Q0 docid rank score [tag]' or 'qid docid rank', got {line.strip()!r}",
                number,
            )
        qid, docid, score = (fields[0], fields[1], fields[2]) if width == 3 else (fields[0], fields[2], fields[4])
        try:
            value = -float(int(score)) if width == 3 else float(score)
        except ValueError:
            what = "rank" if width == 3 else "score"
            raise CollectionFormatError(path, f"{what} {score!r} is not a number", number) from None
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
    """Write a run in TREC format (queries in the run's order, documents in trec_eval order; ``tag``, one word, in
    the last column) to ``path``, its folders made; returns the path."""
    if not tag or any(c.isspace() for c in tag):
        raise ValueError(f"run tag must be one word, got {tag!r}")
    for qid, ranking in run.items():
        for name in (qid, *ranking):
            if not name or any(c.isspace() for c in name):
                raise ValueError(f"{path}: query or document id {name!r} is not one word: a TREC run could not be read")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        for qid, ranking in run.items():
            out.write(format_run_lines(qid, ranking, tag))
    return path
