"""MS MARCO Document ranking's corpus as distributed: ``msmarco-docs.tsv`` (``docid<TAB>url<TAB>title<TAB>body``,
22 GB) with ``msmarco-docs-lookup.tsv`` (``docid<TAB>offset_in_trec<TAB>offset_in_tsv``), each plain or ``.gz``.

Only the candidates' documents are read, so memory follows the candidates, not the corpus: with the lookup and a
plain TSV, a seek to each wanted line; a ``.gz`` TSV (not seekable) or one without a lookup, streamed once. The
lookup must match the documents (checked at the seek, or against where each streamed line starts), else it is
refused naming its line; offsets count bytes, so UTF-16 is refused (docs/evaluation.md and docs/reliability.md
give the layouts and every message).
"""

from __future__ import annotations

import codecs
import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.textfile import (
    COMPRESSED_SUFFIXES,
    DAMAGE_ERRORS,
    UTF16_HINT,
    damaged,
    encoding_of,
    open_binary,
    read_head,
)

logger = logging.getLogger(__name__)

LOOKUP_KIND = "msmarco-doc-lookup"
"""What `eval.collections.sniff` calls a lookup file."""

DOCUMENTS_NAME = re.compile(r"^msmarco-docs\.tsv", re.I)
"""The corpus file's distributed name (``msmarco-docs.tsv``, ``msmarco-docs.tsv.gz``)."""

LOOKUP_LAYOUT = "docid<TAB>offset_in_trec<TAB>offset_in_tsv"
MISMATCH = (
    "the lookup does not match these documents (another copy's, or damaged): download it again, or remove it to read "
    "the documents through"
)

WHOLE_READ_LIMIT = 1 << 30
"""Bytes on disk above which a corpus without candidate runs is refused rather than read whole."""


def is_msmarco_documents(path: Path, lookups: Iterable[Path] = ()) -> bool:
    """Whether a documents file is read as MS MARCO's corpus (only the candidates' documents): its distributed name,
    or a lookup file beside it."""
    return bool(DOCUMENTS_NAME.match(path.name)) or bool(list(lookups))


Rows = dict[str, tuple[int, int]]
"""A lookup read: document id -> (the byte its line starts at in the TSV, the lookup's line number)."""


def read_lookup(path: str | Path, wanted: set[str] | None) -> Rows:
    """The TSV offsets of the ``wanted`` documents (every document's when None) from ``msmarco-docs-lookup.tsv``,
    streamed until all are found; every row read is checked.

    Raises:
        CollectionFormatError: UTF-16, a row that is not ``docid<TAB>offset<TAB>offset`` with byte offsets, or a
            truncated ``.gz``; the lookup named (with the line).
    """
    refuse_utf16(path)
    rows: Rows = {}
    number = 0
    try:
        with open_binary(path) as stream:
            for number, raw in enumerate(stream, start=1):
                if not raw.strip():
                    continue
                fields = [field.strip() for field in raw.removeprefix(codecs.BOM_UTF8).split(b"\t")]
                if len(fields) != 3 or not fields[1].isdigit() or not fields[2].isdigit():
                    raise CollectionFormatError(
                        path, f"expected '{LOOKUP_LAYOUT}' with byte offsets, got {raw[:80]!r}: {MISMATCH}", number
                    )
                name = fields[0].decode("utf-8", errors="replace")
                if wanted is None or name in wanted:
                    rows.setdefault(name, (int(fields[2]), number))
                    if wanted is not None and len(rows) == len(wanted):
                        break
    except DAMAGE_ERRORS as error:
        raise CollectionFormatError(path, damaged(error), number + 1) from None
    return rows


def refuse_utf16(path: str | Path) -> None:
    """Refuse a UTF-16 documents or lookup file: both are read as UTF-8 bytes at byte offsets."""
    if encoding_of(read_head(path, 4)) == "utf-16":
        raise CollectionFormatError(path, f"UTF-16 text: MS MARCO's files are read as UTF-8 bytes; {UTF16_HINT}")


def read_msmarco_documents(
    path: str | Path, wanted: set[str] | None, lookup: str | Path | None = None, titles: dict[str, str] | None = None
) -> dict[str, str]:
    """The ``wanted`` documents of ``msmarco-docs.tsv`` (see the module docstring); every document when ``wanted``
    is None (refused for a corpus above `WHOLE_READ_LIMIT` bytes).

    Args:
        wanted: the document ids to read (the candidates); ids absent from the corpus are simply not returned.
        lookup: ``msmarco-docs-lookup.tsv``: seeked by with a plain corpus, checked against a streamed one.
        titles: filled with document id -> title (`Collection.titles`: MaxP and SumP repeat it per passage).

    Returns:
        document id -> title and body; lines with fewer than four fields are skipped, counted in a warning.

    Raises:
        CollectionFormatError: a lookup that does not match the documents or has a bad row (the lookup and its
            line named), a UTF-16 or truncated file, or a corpus too large to read whole without candidates.
    """
    path = Path(path)
    refuse_utf16(path)
    if wanted is None:
        size = path.stat().st_size
        if size > WHOLE_READ_LIMIT:
            raise CollectionFormatError(
                path,
                f"{size / 2**30:.1f} GiB and no candidate run beside it: the kit reads only the candidates' documents "
                "of MS MARCO's corpus; put the top-100 file (msmarco-docdev-top100, msmarco-doctest2019-top100) in "
                "the folder, or name the files: --collection trec:DOCS,LOOKUP,QUERIES,QRELS,TOP100",
            )
    skipped: list[str] = []
    titles = {} if titles is None else titles
    rows = read_lookup(lookup, wanted) if lookup is not None else None
    compressed = str(path).endswith(COMPRESSED_SUFFIXES)
    if lookup is not None and rows is not None and wanted is not None and not compressed:
        _warn_missing_rows(lookup, wanted, rows, path)
        documents = read_at_offsets(path, rows, lookup, skipped, titles)
    else:
        if lookup is not None:
            logger.info("%s: read through once, its lookup %s checked against it", path, lookup)
        documents = _stream(path, wanted, skipped, titles, rows, lookup)
    if skipped:
        logger.warning(
            "%s: %d lines are not 'docid<TAB>url<TAB>title<TAB>body' and were skipped (e.g. %s)",
            path,
            len(skipped),
            skipped[0],
        )
    return documents


def _warn_missing_rows(lookup: str | Path, wanted: set[str], rows: Rows, path: Path) -> None:
    missing = sorted(wanted - set(rows))
    if missing:
        logger.warning(
            "%s: no row for %d of the %d candidate documents (e.g. %s), so they are not read: if %s holds them, the "
            "lookup is incomplete (download it again, or remove it to read the documents through)",
            lookup,
            len(missing),
            len(wanted),
            missing[:3],
            path.name,
        )


def _bom_shift(path: Path) -> int:
    """3 for a corpus that starts with a UTF-8 byte-order mark: a lookup made before it was added is 3 bytes off."""
    return len(codecs.BOM_UTF8) if read_head(path, 3) == codecs.BOM_UTF8 else 0


def read_at_offsets(path: Path, rows: Rows, lookup: str | Path, skipped: list[str], titles: dict) -> dict[str, str]:
    """The documents at the lookup's offsets in a plain corpus: one seek and one line each, in file order.

    Raises:
        CollectionFormatError: an offset past the end, inside a line, or at another document's line (the lookup
            and its line named).
    """
    documents: dict[str, str] = {}
    shift, size = _bom_shift(path), path.stat().st_size
    with open(path, "rb") as stream:
        for docid, (offset, line) in sorted(rows.items(), key=lambda item: item[1]):
            raw, found = _line_at(stream, offset, docid)
            if raw is None and shift:
                raw, _ = _line_at(stream, offset + shift, docid)
            if raw is None:
                if offset >= size:
                    found = f"past its end ({size} bytes)"
                raise _misplaced(lookup, docid, offset, path, found, line)
            _add(documents, titles, raw, f"document {docid} at byte {offset}", skipped)
    return documents


def _line_at(stream: BinaryIO, offset: int, docid: str) -> tuple[bytes | None, str]:
    """The line starting at ``offset`` when it is ``docid``'s, else None and what is there."""
    if offset > 0:
        stream.seek(offset - 1)
        if stream.read(1) != b"\n":
            return None, "inside a line"
    stream.seek(offset)
    raw = stream.readline()
    if raw.removeprefix(codecs.BOM_UTF8).startswith(docid.encode() + b"\t"):
        return raw, ""
    return None, f"where the line starts {raw[:40]!r}"


def _stream(
    path: Path, wanted: set[str] | None, skipped: list[str], titles: dict, rows: Rows | None, lookup
) -> dict[str, str]:
    """The wanted documents (every one when None) of a corpus read through once; the lookup's ``rows``, when
    given, checked against where each document's line starts."""
    documents: dict[str, str] = {}
    seen: set[str] = set()
    shift, position, number = _bom_shift(path), 0, 0
    try:
        with open_binary(path) as stream:
            for number, raw in enumerate(stream, start=1):
                start, position = position, position + len(raw)
                docid = raw.partition(b"\t")[0].decode("utf-8", errors="replace").lstrip("\ufeff")
                if rows is not None and docid in rows and docid not in seen:
                    seen.add(docid)
                    offset, line = rows[docid]
                    if start not in (offset, offset + shift):
                        raise _misplaced(lookup, docid, offset, path, f"but its line starts at byte {start}", line)
                if wanted is not None:
                    if docid not in wanted:
                        continue
                elif not raw.strip():
                    continue
                _add(documents, titles, raw, f"line {number}", skipped)
                if wanted is not None and len(documents) == len(wanted):
                    break
    except DAMAGE_ERRORS as error:
        raise CollectionFormatError(path, damaged(error), number + 1) from None
    absent = [docid for docid in (rows or {}) if docid not in seen]
    if absent:  # never found, the corpus read to its end
        offset, line = rows[absent[0]]
        raise _misplaced(lookup, absent[0], offset, path, "which has no such document", line)
    return documents


def _misplaced(lookup, docid: str, offset: int, path: Path, found: str, line: int) -> CollectionFormatError:
    """The error for a lookup row that puts a document where its line is not."""
    return CollectionFormatError(
        lookup, f"puts document {docid} at byte {offset} of {path.name}, {found}: {MISMATCH}", line
    )


def _add(documents: dict[str, str], titles: dict, raw: bytes, where: str, skipped: list[str]) -> None:
    columns = raw.decode("utf-8", errors="replace").lstrip("\ufeff").rstrip("\r\n").split("\t")
    if len(columns) < 4:
        skipped.append(f"{where}: {len(columns)} columns")
        return
    docid, _, title, *body = columns  # a body's own tabs split it further: rejoined
    documents[docid] = " ".join(f"{title} {' '.join(body)}".split())
    titles[docid] = " ".join(title.split())


def sniff_lookup(rows: list[list[str]]) -> bool:
    """Whether tab-separated rows are a lookup: ``docid offset offset``, a non-numeric id and both offsets rising."""
    if not rows or any(len(row) != 3 or not row[1].isdigit() or not row[2].isdigit() for row in rows):
        return False
    if any(row[0].isdigit() for row in rows):
        return False
    return all(int(a[1]) < int(b[1]) and int(a[2]) < int(b[2]) for a, b in zip(rows, rows[1:], strict=False))
