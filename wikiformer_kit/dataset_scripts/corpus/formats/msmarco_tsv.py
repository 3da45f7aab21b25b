"""MS MARCO document collection TSV: one document a line, ``docid \\t url \\t title \\t body``.

The MS MARCO Document Ranking corpus (``msmarco-docs.tsv``) and PROP's ``msmarco_toy.tsv`` use this layout. A web
document has no section structure and no wiki links: the body becomes the **abstract**, with no sections, links or
See also, so the tasks that need only text (PROP's ROP) build from it and the structural ones count it as a skip.

Bad lines never stop the file: a line without exactly four tab-separated fields, without a docid, or with bytes
that are not UTF-8 yields :class:`Skipped` naming the file and the line number.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped
from wikiformer_kit.dataset_scripts.corpus.formats.wikiextractor_text import read_line_records

NAME = "msmarco-tsv"
_DOCID = re.compile(rb"^D\d+\t")


def sniff(path: Path, head: bytes) -> bool:
    """Whether the first line is ``D<digits> \\t url \\t title \\t body``."""
    first = head.split(b"\n", 1)[0]
    return bool(_DOCID.match(first)) and first.count(b"\t") == 3 and b"\thttp" in first


def read(path: Path, options: ReaderOptions) -> Iterator[Article | Redirect | Skipped]:
    """Stream the documents of one MS MARCO TSV file (optionally ``.gz``/``.bz2``): an Article per document with
    text, else a Skipped naming the line (``language`` and ``max_article_bytes`` apply)."""
    yield from read_line_records(path, options, _record)


def _record(path: Path, number: int, line: str, options: ReaderOptions) -> Article | Skipped:
    where = f"line {number}"
    fields = line.rstrip("\r\n").split("\t")
    if len(fields) != 4:
        return Skipped("bad-record", str(path), where, f"{len(fields)} tab-separated fields, expected 4")
    docid, url, title, body = (f.strip() for f in fields)
    if not docid:
        return Skipped("bad-record", str(path), where, "no docid")
    if not body and not title:
        return Skipped("empty", str(path), docid, "neither title nor body")
    return Article(
        id=docid,
        title=" ".join(title.split()),
        abstract=" ".join(body.split()),
        url=url,
        source=NAME,
        language=options.language,
    )
