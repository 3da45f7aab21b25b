"""SMART collections (Cranfield, MED, CISI, CACM): ``.I`` records with ``.T``/``.A``/``.B``/``.W`` fields.

Two quirks are handled here, and documented because they change numbers:

* Query ids. Query files are numbered 1..N in file order. Cranfield's ``cran.qry`` has ``.I`` numbers that
  skip (001, 002, 004, 008, ...) while its qrels number the queries 1..225 in file order; for MED, CISI and
  CACM the ``.I`` numbers already run 1..N, so file order gives the same ids.
* Cranfield grades. Its qrels (``query doc code``) use Cleverdon's codes: 1 = complete answer, 2 = high
  relevance, 3 = useful, 4 = minimum interest, and -1 (one row per query; "of no interest"). They are mapped to
  TREC-style gains, higher is better: 1 -> 4, 2 -> 3, 3 -> 2, 4 -> 1, -1 -> 0 (judged non-relevant).
  Binary measures at relevance level 1 then count codes 1-4 as relevant, as the collection intends.
"""

from __future__ import annotations

import re
from pathlib import Path

from wikiformer_kit.eval.collections.collection import Qrels
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.textfile import content_lines, read_text

CRANFIELD_GAINS = {1: 4, 2: 3, 3: 2, 4: 1, -1: 0}
"""Cleverdon's relevance codes (1 = most relevant, -1 = of no interest) -> TREC-style gains."""

_RECORD = re.compile(r"^\.I\s+(\S+)[^\n]*\n", re.M)
_FIELD = re.compile(r"^\.([A-Z])\s*$", re.M)


def read_smart_records(path: str | Path) -> list[tuple[str, dict[str, str]]]:
    """``(id, {field letter: text})`` per record of a SMART file (``.I id`` lines followed by ``.T``, ``.A``,
    ``.B``, ``.W``, ... field markers), in file order; text has whitespace collapsed.

    Raises:
        CollectionFormatError: the file has no ``.I`` record.
    """
    text = read_text(path, errors="replace")
    starts = list(_RECORD.finditer(text))
    if not starts:
        raise CollectionFormatError(path, "no '.I' record found: not a SMART file")
    records = []
    for index, start in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        body = text[start.end() : end]
        fields: dict[str, str] = {}
        markers = list(_FIELD.finditer(body))
        for position, marker in enumerate(markers):
            stop = markers[position + 1].start() if position + 1 < len(markers) else len(body)
            value = " ".join(body[marker.end() : stop].split())
            fields[marker.group(1)] = f"{fields[marker.group(1)]} {value}" if marker.group(1) in fields else value
        records.append((start.group(1), fields))
    return records


def read_smart_documents(path: str | Path) -> dict[str, str]:
    """Documents of a SMART file: id (``.I`` number without leading zeros) -> title and abstract.

    The text is ``.T`` followed by ``.W``; Cranfield repeats the title at the start of ``.W``, and the repeat is
    not doubled.
    """
    documents = {}
    for number, fields in read_smart_records(path):
        title, body = fields.get("T", ""), fields.get("W", "")
        text = body if title and body.startswith(title) else f"{title} {body}".strip()
        documents[_strip_zeros(number)] = text
    return documents


def read_smart_queries(path: str | Path) -> dict[str, str]:
    """Queries of a SMART file, numbered 1..N in file order (see the module docstring for why)."""
    return {str(index): fields.get("W", "") for index, (_, fields) in enumerate(read_smart_records(path), start=1)}


def read_smart_qrels(path: str | Path) -> Qrels:
    """Read SMART relevance files in their three layouts.

    * ``query doc code`` (Cranfield, 3 columns): codes -1 and 1-4 mapped with `CRANFIELD_GAINS`; any other
      code is an error.
    * ``query 0 doc grade`` or ``query Q0 doc grade`` (MED, TREC layout): read as TREC qrels.
    * ``query doc 0 0.0`` (CISI, CACM): every listed pair is relevant (grade 1).

    Raises:
        CollectionFormatError: a line that fits none of these layouts, naming the line.
    """
    rows = [(number, line.split()) for number, line in content_lines(path)]
    if not rows:
        raise CollectionFormatError(path, "empty qrels file")
    widths = {len(fields) for _, fields in rows}
    qrels: Qrels = {}
    if widths == {3}:
        for number, (query, doc, code) in rows:
            try:
                gain = CRANFIELD_GAINS[int(code)]
            except (ValueError, KeyError):
                raise CollectionFormatError(path, f"relevance code {code!r} is not one of -1, 1-4", number) from None
            qrels.setdefault(_strip_zeros(query), {})[_strip_zeros(doc)] = gain
    elif widths == {4} and all(fields[1] in ("0", "Q0") for _, fields in rows):
        for number, (query, _, doc, grade) in rows:
            try:
                qrels.setdefault(_strip_zeros(query), {})[_strip_zeros(doc)] = int(float(grade))
            except (ValueError, OverflowError):
                raise CollectionFormatError(path, f"grade {grade!r} is not a number", number) from None
    elif widths == {4}:
        for _, (query, doc, _, _) in rows:
            qrels.setdefault(_strip_zeros(query), {})[_strip_zeros(doc)] = 1
    else:
        number, fields = next((n, f) for n, f in rows if len(f) not in (3, 4) or len(f) != len(rows[0][1]))
        raise CollectionFormatError(
            path, f"unexpected qrels line {' '.join(fields)!r} (mixed or unknown layout)", number
        )
    return qrels


def _strip_zeros(number: str) -> str:
    return number.lstrip("0") or "0"
