"""WikiExtractor ``--json`` output: one JSON object a line with ``id``, ``url``, ``title`` and ``text``.

WikiExtractor's JSON text is the same cleaned body as its text mode, but without section titles (unless the
extractor marked them, as the Wikiformer fork does with ``## Title.`` lines) and without links. The honest
mapping is therefore: the whole text (after the repeated title line) is the **abstract**, with no sections; when
heading lines are present they are parsed exactly as in :mod:`.wikiextractor_text`, so the same body gives the
same tree in both modes. We do not guess that the first paragraph alone is the lead: nothing in the output marks
where the lead ends.

Bad lines never stop the file: invalid JSON, a record that is not an object with a string ``title`` and
``text``, or bytes that are not UTF-8 yield :class:`Skipped` naming the file and the line number.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats._builder import ArticleBuilder
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped
from wikiformer_kit.dataset_scripts.corpus.formats.wikiextractor_text import (
    mark_disambiguation,
    parse_body,
    read_line_records,
)

NAME = "wikiextractor-json"


def sniff(path: Path, head: bytes) -> bool:
    """Whether the first line looks like a WikiExtractor JSON record (an object with ``title`` and ``text``)."""
    first = head.lstrip().split(b"\n", 1)[0]
    return first.startswith(b"{") and b'"title"' in first and b'"text"' in first


def read(path: Path, options: ReaderOptions) -> Iterator[Article | Redirect | Skipped]:
    """Stream the records of one WikiExtractor JSON-lines file: an Article per record with text, else a Skipped
    naming the line."""
    yield from read_line_records(path, options, _record)


def _record(path: Path, number: int, line: str, options: ReaderOptions) -> Article | Skipped:
    where = f"line {number}"
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        return Skipped("bad-json", str(path), where, f"{error.msg} at column {error.colno}")
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("title"), str)
        or not isinstance(record.get("text"), str)
    ):
        return Skipped("bad-record", str(path), where, "not an object with string 'title' and 'text'")
    title = record["title"]
    doc_id = str(record.get("id") or f"{path.name}:{number}")
    builder = ArticleBuilder(doc_id, title, NAME, path, options, url=str(record.get("url") or ""))
    lines = record["text"].split("\n")
    if lines and lines[0].strip() == title.strip():
        lines = lines[1:]
    parse_body(builder, lines)
    return mark_disambiguation(builder.build())
