"""The Glasgow LISA collection (Library and Information Science Abstracts, 6,004 documents, 35 queries) in its
original files:

* documents ``LISA0.001`` ... ``LISA5.850``: records ``Document N``, title lines, a blank line, the abstract, and a
  line of 44 asterisks; a few ids occur twice (the first record is kept, the others counted in a warning), and a
  few text fragments stand between a record's asterisks and the next ``Document N`` line (``LISA1.501``): they
  belong to no record and are skipped, counted in a warning naming the file and their lines;
* queries ``LISA.QUE``: the query number on a line of its own, the text, ended by ``#``;
* judgments ``LISARJ.NUM``: numbers only, per query ``query count doc doc ...`` wrapped over lines; or the older
  ``LISA.REL``: ``Query N``, ``K Relevant Refs:``, the document numbers ended by ``-1``. Every listed document is
  relevant (grade 1); ``LISARJ.NUM`` is read when both are there.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from wikiformer_kit.eval.collections.collection import Qrels
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.textfile import content_lines, numbered_lines

logger = logging.getLogger(__name__)

DOCUMENT_LINE = re.compile(r"^\s*Document\s+(\d+)\s*$")
SEPARATOR = re.compile(r"^\s*\*{20,}\s*$")
QUERY_END = re.compile(r"#\s*$")
REL_QUERY = re.compile(r"^\s*Query\s+(\d+)\s*$", re.I)
NEWER_QRELS = "LISARJ.NUM"
"""The judgments file read when the older ``LISA.REL`` is beside it."""


def read_lisa_documents(path: str | Path) -> dict[str, str]:
    """Documents of one LISA file: id -> title and abstract joined, white space collapsed.

    Text outside a record (after a record's asterisks, before the next ``Document N`` line) is skipped: a warning
    names the file, the first line of each such fragment and how many lines were left out.

    Raises:
        CollectionFormatError: no record at all.
    """
    documents: dict[str, str] = {}
    repeated: list[str] = []
    outside: list[int] = []  # the first line of each fragment outside a record
    outside_lines = 0
    docid, lines = None, []
    in_fragment = False

    def close() -> None:
        if docid is None:
            return
        if docid in documents:
            repeated.append(docid)
        else:
            documents[docid] = " ".join(" ".join(lines).split())

    for number, line in content_lines(path):
        match = DOCUMENT_LINE.match(line)
        if match:
            close()
            docid, lines, in_fragment = str(int(match[1])), [], False
        elif SEPARATOR.match(line):
            close()
            docid, lines, in_fragment = None, [], False
        elif docid is not None:
            lines.append(line)
        else:
            if not in_fragment:
                outside.append(number)
            outside_lines += 1
            in_fragment = True
    close()
    if not documents:
        raise CollectionFormatError(path, "no 'Document N' record")
    if outside:
        first = ", ".join(f"{path}:{n}" for n in outside[:3]) + (", ..." if len(outside) > 3 else "")
        logger.warning(
            "%s: %d text fragment%s outside a 'Document N' record skipped (%d lines, belonging to no document): %s",
            path, len(outside), "s" if len(outside) > 1 else "", outside_lines, first,
        )  # fmt: skip
    if repeated:
        logger.warning("%s: %d document ids occur again (e.g. %s); the first record of each is kept", path,
                       len(repeated), repeated[:3])  # fmt: skip
    return documents


def read_lisa_queries(path: str | Path) -> dict[str, str]:
    """Queries of ``LISA.QUE``: id -> text (the closing ``#`` dropped).

    Raises:
        CollectionFormatError: a query that does not start with its number, or one never closed by ``#``.
    """
    queries: dict[str, str] = {}
    qid, lines, opened = None, [], 0
    for number, line in content_lines(path):
        if qid is None:
            if not line.strip().isdecimal():
                raise CollectionFormatError(path, f"expected a query number, got {line.strip()[:40]!r}", number)
            qid, lines, opened = str(int(line)), [], number
            continue
        lines.append(line)
        if QUERY_END.search(line):
            queries[qid] = " ".join(" ".join(lines).rstrip().removesuffix("#").split())
            qid = None
    if qid is not None:
        raise CollectionFormatError(path, f"query {qid} is not closed by '#'", opened)
    if not queries:
        raise CollectionFormatError(path, "no query")
    return queries


def read_lisa_qrels(path: str | Path) -> Qrels:
    """Judgments of ``LISARJ.NUM`` or ``LISA.REL`` (see the module docstring); every listed document has grade 1.

    Raises:
        CollectionFormatError: a count that the numbers after it do not fill, or a token that is not a number,
            naming the line.
    """
    rows = list(numbered_lines(path))
    if any(REL_QUERY.match(line) for _, line in rows[:5]):
        return _read_rel(path, rows)
    tokens = [(number, token) for number, line in rows for token in line.split()]
    for number, token in tokens:
        if not token.isdecimal():
            raise CollectionFormatError(path, f"{token!r} is not a number", number)
    qrels: Qrels = {}
    position = 0
    while position < len(tokens):
        number, qid = tokens[position]
        if position + 1 >= len(tokens):
            raise CollectionFormatError(path, f"query {qid} has no count of documents", number)
        count = int(tokens[position + 1][1])
        documents = tokens[position + 2 : position + 2 + count]
        if len(documents) < count:
            raise CollectionFormatError(
                path, f"query {qid}: {count} documents announced, {len(documents)} found", number
            )
        qrels[str(int(qid))] = {str(int(d)): 1 for _, d in documents}
        position += 2 + count
    return qrels


def _read_rel(path: str | Path, rows: list[tuple[int, str]]) -> Qrels:
    qrels: Qrels = {}
    qid = None
    for number, line in rows:
        match = REL_QUERY.match(line)
        if match:
            qid = str(int(match[1]))
            qrels[qid] = {}
            continue
        if "relevant" in line.lower() or not line.strip():
            continue
        if qid is None:
            raise CollectionFormatError(path, "document numbers before the first 'Query N' line", number)
        for token in line.split():
            if token == "-1":
                qid = None
                break
            if not token.isdecimal():
                raise CollectionFormatError(path, f"{token!r} is not a document number", number)
            qrels[qid][str(int(token))] = 1
    return qrels
