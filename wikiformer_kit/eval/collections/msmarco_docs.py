"""MS MARCO Document ranking's corpus as distributed: ``msmarco-docs.tsv`` (``docid<TAB>url<TAB>title<TAB>body``,
22 GB) with ``msmarco-docs-lookup.tsv`` (``docid<TAB>offset_in_trec<TAB>offset_in_tsv``: where each document's line
starts in ``msmarco-docs.trec`` and in ``msmarco-docs.tsv``), each plain or ``.gz``.

Only the documents a collection needs (its candidates) are read, so memory follows the candidates, not the corpus:
with the lookup and a plain TSV each wanted line is read where the lookup puts it (a seek, one line); a ``.gz`` TSV
(whose offsets are not seekable) or one without a lookup is streamed once, keeping only the wanted lines. A
document's text is its title and body (the URL left out), whitespace collapsed, as `read_tsv_documents` reads them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.textfile import COMPRESSED_SUFFIXES, open_binary

logger = logging.getLogger(__name__)

LOOKUP_KIND = "msmarco-doc-lookup"
"""What `eval.collections.sniff` calls a lookup file."""

DOCUMENTS_NAME = re.compile(r"^msmarco-docs\.tsv", re.I)
"""The corpus file's distributed name (``msmarco-docs.tsv``, ``msmarco-docs.tsv.gz``)."""

WHOLE_READ_LIMIT = 1 << 30
"""Bytes on disk above which a corpus without candidate runs is refused rather than read whole."""


def is_msmarco_documents(path: Path, lookups: Iterable[Path] = ()) -> bool:
    """Whether a documents file is read as MS MARCO's corpus (only the candidates' documents): its distributed name,
    or a lookup file beside it."""
    return bool(DOCUMENTS_NAME.match(path.name)) or bool(list(lookups))


def read_lookup(path: str | Path, wanted: set[str]) -> dict[str, int]:
    """The TSV offsets of the ``wanted`` documents, from ``msmarco-docs-lookup.tsv`` (streamed; only the wanted ids
    kept).

    Raises:
        CollectionFormatError: a line that is not ``docid<TAB>offset<TAB>offset`` with integer offsets, naming it.
    """
    offsets: dict[str, int] = {}
    with open_binary(path) as stream:
        for number, raw in enumerate(stream, start=1):
            docid, _, rest = raw.partition(b"\t")
            if not raw.strip():
                continue
            name = docid.decode("utf-8", errors="replace").lstrip("\ufeff")
            if name not in wanted:
                continue
            fields = rest.split()
            if len(fields) != 2 or not all(field.isdigit() for field in fields):
                raise CollectionFormatError(
                    path, f"expected 'docid<TAB>offset_in_trec<TAB>offset_in_tsv', got {raw[:80]!r}", number
                )
            offsets[name] = int(fields[1])
            if len(offsets) == len(wanted):
                break
    return offsets


def read_msmarco_documents(
    path: str | Path, wanted: set[str] | None, lookup: str | Path | None = None, titles: dict[str, str] | None = None
) -> dict[str, str]:
    """The ``wanted`` documents of ``msmarco-docs.tsv`` (see the module docstring); every document when ``wanted``
    is None (refused for a corpus above `WHOLE_READ_LIMIT` bytes).

    Args:
        path: the corpus, plain or compressed.
        wanted: the document ids to read (the candidates); ids absent from the corpus are simply not returned.
        lookup: ``msmarco-docs-lookup.tsv`` (plain or ``.gz``); used only with a plain corpus.
        titles: filled with document id -> title (`Collection.titles`: MaxP and SumP repeat it per passage).

    Returns:
        document id -> title and body. Lines that are not ``docid<TAB>url<TAB>title<TAB>body`` are skipped, counted
        in a warning naming the first.

    Raises:
        CollectionFormatError: the lookup points at a line of another document (it belongs to another copy of the
            corpus), a bad lookup line, or a corpus too large to read whole without candidates.
    """
    path = Path(path)
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
    compressed = str(path).endswith(COMPRESSED_SUFFIXES)
    if lookup is not None and wanted is not None and not compressed:
        offsets = read_lookup(lookup, wanted)
        with open(path, "rb") as stream:
            documents = read_at_offsets(stream, offsets, path, lookup, skipped, titles)
    else:
        if lookup is not None and compressed:
            logger.info("%s: compressed, so its lookup's offsets cannot be used; reading it through once", path)
        with open_binary(path) as stream:
            documents = _stream(stream, wanted, path, skipped, titles)
    if skipped:
        logger.warning(
            "%s: %d lines are not 'docid<TAB>url<TAB>title<TAB>body' and were skipped (e.g. %s)",
            path,
            len(skipped),
            skipped[0],
        )
    return documents


def read_at_offsets(
    stream: BinaryIO, offsets: dict[str, int], path: Path, lookup: str | Path, skipped: list[str], titles: dict
) -> dict[str, str]:
    """The documents at the lookup's ``offsets`` in a seekable corpus stream: one seek and one line each, in file
    order.

    Raises:
        CollectionFormatError: the line at an offset is another document's.
    """
    documents: dict[str, str] = {}
    for docid, offset in sorted(offsets.items(), key=lambda item: item[1]):
        stream.seek(offset)
        raw = stream.readline()
        if not raw.startswith(docid.encode() + b"\t"):
            raise CollectionFormatError(
                path,
                f"{lookup} puts document {docid} at byte {offset}, where the line starts {raw[:40]!r}: the lookup "
                "belongs to another copy of the corpus; remove it to read the corpus through instead",
            )
        _add(documents, titles, raw, path, f"document {docid} at byte {offset}", skipped)
    return documents


def _stream(stream: BinaryIO, wanted: set[str] | None, path: Path, skipped: list[str], titles: dict) -> dict[str, str]:
    documents: dict[str, str] = {}
    for number, raw in enumerate(stream, start=1):
        if wanted is not None:
            docid = raw.partition(b"\t")[0].decode("utf-8", errors="replace").lstrip("\ufeff")
            if docid not in wanted:
                continue
        elif not raw.strip():
            continue
        _add(documents, titles, raw, path, f"line {number}", skipped)
        if wanted is not None and len(documents) == len(wanted):
            break
    return documents


def _add(documents: dict[str, str], titles: dict, raw: bytes, path: Path, where: str, skipped: list[str]) -> None:
    columns = raw.decode("utf-8", errors="replace").lstrip("\ufeff").rstrip("\r\n").split("\t")
    if len(columns) != 4:
        skipped.append(f"{where}: {len(columns)} columns")
        return
    docid, _, title, body = columns
    documents[docid] = " ".join(f"{title} {body}".split())
    titles[docid] = " ".join(title.split())


def sniff_lookup(rows: list[list[str]]) -> bool:
    """Whether tab-separated rows are a lookup: ``docid offset offset``, a non-numeric id and both offsets rising."""
    if not rows or any(len(row) != 3 or not row[1].isdigit() or not row[2].isdigit() for row in rows):
        return False
    if any(row[0].isdigit() for row in rows):
        return False
    return all(int(a[1]) < int(b[1]) and int(a[2]) < int(b[2]) for a, b in zip(rows, rows[1:], strict=False))
