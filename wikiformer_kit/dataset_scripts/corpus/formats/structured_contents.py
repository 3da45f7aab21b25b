"""Wikimedia Enterprise Structured Contents: one article a JSON line, already cut into nested parts.

A record has ``name``, ``identifier``, ``url``, ``in_language``, ``abstract`` and its sections (``sections`` in the
snapshots, ``article_sections`` in the API's answers): ``{"type": "section", "name", "has_parts": [...]}``, whose
parts are paragraphs (``value`` with ``links``: ``{"url", "text"}``), lists of list items, and nested sections.
Shipped and read as the HTML dumps are (:func:`._enterprise_records.read_records`); the HTML reader hands a record
without HTML but with sections to this module. The Hub's Parquet conversion of the files is read too, shared
between processes by row groups (:func:`row_group_rows`).

Mapping (docs/corpus-and-datasets.md): a section at depth d is a level d + 1 heading; a first section named
"Abstract" is the lead (else the record's ``abstract``); each link is found in its paragraph by its text, in order
(one whose text is not there is left out rather than placed wrongly) and kept when its URL is an article of the
record's own wiki. Infoboxes are left out. The records Wikimedia publishes carry no categories (neither the API's
schema nor its sample payloads have the field): ``categories`` stay empty unless a record has an Enterprise
``categories`` list. Wikimedia leaves See also out, so LTM gets no group from these articles.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats._builder import ArticleBuilder, link_target, normalize_space
from wikiformer_kit.dataset_scripts.corpus.formats._enterprise_records import (
    NO_TITLE,
    first_record_line,
    is_plain_ndjson,
    load_record,
    names_a_record,
    namespaces_of,
    read_records,
    record_category_titles,
    record_language,
)
from wikiformer_kit.dataset_scripts.corpus.formats.base import (
    DAMAGED_PARQUET,
    PARQUET_MAGIC,
    ReaderOptions,
    Redirect,
    Skipped,
    one_line,
    read_head,
)
from wikiformer_kit.dataset_scripts.corpus.titles import categories_from_titles, classify_link

NAME = "structured-contents"
SPLITS_BY_RECORD = True

_SECTION_KEYS = (b'"sections":', b'"article_sections":', b'"has_parts":', b'"infoboxes":', b'"infobox":')
_SECTION_COLUMNS = ("sections", "article_sections")
_READ_COLUMNS = ("name", "identifier", "url", "in_language", "is_part_of", "abstract", "categories", *_SECTION_COLUMNS)
_ROWS_PER_BATCH = 64


def sniff(path: Path, head: bytes) -> bool:
    """A Structured Contents record on the first line (in a plain NDJSON file or in the first member of a tar): an
    object with ``name``, ``identifier`` and sections or infoboxes, without an HTML body; or a Parquet file of such
    records (their columns)."""
    if head.startswith(PARQUET_MAGIC):
        columns = _parquet_columns(path)
        return {"name", "identifier"} <= columns and not columns.isdisjoint(_SECTION_COLUMNS)
    first = first_record_line(head)
    return names_a_record(first) and b'"article_body":' not in first and any(key in first for key in _SECTION_KEYS)


def read(
    path: Path,
    options: ReaderOptions,
    part: tuple[int, int] | None = None,
    byte_range: tuple[int, int] | None = None,
    row_groups: tuple[int, int] | None = None,
) -> Iterator[Article | Redirect | Skipped]:
    """Stream the records of a Structured Contents file (NDJSON, a ``.tar.gz`` of NDJSON members, or Parquet): one
    Article per record, or a Skipped naming the file, the member and the line (the row of a Parquet file).
    ``options``, ``part`` and ``byte_range`` as in :func:`.enterprise_html.read`; ``row_groups``: ``(first, end)``
    of a Parquet file, only those row groups are read (``part`` then counts their rows)."""
    if read_head(path, len(PARQUET_MAGIC)) == PARQUET_MAGIC:
        yield from read_parquet(path, options, part, row_groups)
    else:
        yield from read_records(path, options, parse_record, part, byte_range)


def splits_by_bytes(path: Path) -> bool:
    """Whether a file can be cut into byte ranges: a plain NDJSON file (not compressed, not a tar, not Parquet)."""
    return read_head(path, len(PARQUET_MAGIC)) != PARQUET_MAGIC and is_plain_ndjson(path)


def row_group_rows(path: Path) -> list[int] | None:
    """The rows of each row group of a Parquet file (its footer only is read), what processes share it by; None for
    a file of another kind or a footer that cannot be read (the file is then shared by rows)."""
    if read_head(path, len(PARQUET_MAGIC)) != PARQUET_MAGIC:
        return None
    import pyarrow.parquet

    try:
        metadata = pyarrow.parquet.ParquetFile(path).metadata
        return [metadata.row_group(group).num_rows for group in range(metadata.num_row_groups)]
    except (OSError, pyarrow.ArrowException):
        return None


def read_parquet(
    path: Path, options: ReaderOptions, part: tuple[int, int] | None = None, row_groups: tuple[int, int] | None = None
) -> Iterator[Article | Skipped]:
    """The records of a Parquet file of Structured Contents (the Hub's conversion of the NDJSON files), a row group
    at a time, a batch of rows at a time; ``part`` and ``row_groups`` as in :func:`read` (rows named by their number
    from 1 over the whole file).

    A row group that cannot be read (its pages damaged) is one ``Skipped(reason="damaged-row-group")`` naming it and
    its rows, and the other row groups are read: what is kept never depends on how the file is shared. A file whose
    footer cannot be read gives ``Skipped(reason="damaged-file")``. Either is reported by part 0 only."""
    import pyarrow.parquet  # here: sniffing other files never loads it

    number, parts = part or (0, 1)
    try:
        parquet = pyarrow.parquet.ParquetFile(path)
        columns = [name for name in _READ_COLUMNS if name in parquet.schema_arrow.names]
    except (OSError, pyarrow.ArrowException, UnicodeDecodeError) as error:  # a damaged footer or schema
        if number == 0:
            yield Skipped("damaged-file", str(path), "", f"{DAMAGED_PARQUET} ({one_line(error)})")
        return
    metadata = parquet.metadata
    first, end = row_groups or (0, metadata.num_row_groups)
    row = sum(metadata.row_group(group).num_rows for group in range(first))
    taken = 0
    for group in range(first, end):
        size = metadata.row_group(group).num_rows
        group_start = row
        try:
            batches = parquet.read_row_group(group, columns=columns).to_batches(max_chunksize=_ROWS_PER_BATCH)
            for batch in batches:
                for record in _batch_rows(batch):
                    row += 1
                    taken += 1
                    if (taken - 1) % parts != number:
                        continue
                    if record is None:
                        yield Skipped("non-utf8", str(path), f"row {row}", "a text of the row is not UTF-8")
                        continue
                    title = record.get("name") if isinstance(record.get("name"), str) else ""
                    where = f"row {row} ({title})" if title else f"row {row}"
                    yield parse_loaded(record, where, str(path), options)
        except (OSError, pyarrow.ArrowException) as error:
            if number == 0:
                where = f"row group {group} (rows {row + 1}-{group_start + size})"
                detail = f"cannot read it ({one_line(error)}): its rows are left out, the other row groups are read"
                yield Skipped("damaged-row-group", str(path), where, detail)
            taken += group_start + size - row
            row = group_start + size


def _batch_rows(batch: Any) -> list[dict[str, Any] | None]:
    """The rows of a record batch as dicts; a row whose text is not UTF-8 (a damaged file) as None, the others
    kept."""
    try:
        return batch.to_pylist()
    except UnicodeDecodeError:
        rows: list[dict[str, Any] | None] = []
        for index in range(batch.num_rows):
            try:
                rows.append(batch.slice(index, 1).to_pylist()[0])
            except UnicodeDecodeError:
                rows.append(None)
        return rows


def _parquet_columns(path: Path) -> set[str]:
    """The top-level columns of a Parquet file (none when its footer cannot be read)."""
    import pyarrow.parquet

    try:
        return set(pyarrow.parquet.read_schema(path).names)
    except (OSError, pyarrow.ArrowException, UnicodeDecodeError):
        return set()


def parse_record(raw: bytes, file: str, where: str, options: ReaderOptions) -> list[Article | Redirect | Skipped]:
    """One NDJSON line of Structured Contents as its Article, or a :class:`Skipped` naming ``file`` and ``where``."""
    loaded = load_record(raw, file, where, options)
    if isinstance(loaded, Skipped):
        return [loaded]
    return [parse_loaded(*loaded, file, options)]


def has_sections(record: dict[str, Any]) -> bool:
    """Whether a record is a Structured Contents record (it lists its sections)."""
    return isinstance(record.get("sections", record.get("article_sections")), list)


def parse_loaded(record: dict[str, Any], where: str, file: str, options: ReaderOptions) -> Article | Skipped:
    """The Article of one decoded Structured Contents record, or a :class:`Skipped` naming ``file`` and ``where``."""
    sections = record.get("sections", record.get("article_sections"))
    if not isinstance(sections, list):
        return Skipped("no-sections", file, where, "no sections or article_sections list in the record")
    language = record_language(record) or options.language
    title = record.get("name") if isinstance(record.get("name"), str) else ""
    if not title.strip():
        return Skipped("no-title", file, where, NO_TITLE)
    url = record.get("url") if isinstance(record.get("url"), str) else ""
    builder = ArticleBuilder(str(record.get("identifier") or where), title, NAME, file,
                             replace(options, language=language), url=url)  # fmt: skip
    writer = _PartWriter(builder, urlsplit(url).netloc, language)
    parts = [part for part in map(_as_part, sections) if part is not None]
    if parts and parts[0].get("type") == "section" and normalize_space(str(parts[0].get("name"))) == "Abstract":
        writer.parts(parts[0].get("has_parts"), depth=1)
        parts = parts[1:]
    elif isinstance(record.get("abstract"), str):
        builder.text(record["abstract"])
    writer.parts(parts, depth=0)
    article = builder.build()
    if isinstance(article, Skipped):
        return Skipped(article.reason, file, where, article.detail)
    article.categories = categories_from_titles(record_category_titles(record))
    return article


class _PartWriter:
    """Writes nested parts to the builder in order (iteratively: no recursion limit on deep nesting)."""

    def __init__(self, builder: ArticleBuilder, netloc: str, language: str):
        self.builder, self.netloc, self.namespaces = builder, netloc, namespaces_of(language)

    def parts(self, parts: Any, depth: int) -> None:
        """Write ``parts`` found at section depth ``depth`` (0: directly under the article)."""
        stack = [(part, depth) for part in reversed(parts if isinstance(parts, list) else [])]
        while stack:
            part, level = stack.pop()
            part = _as_part(part)
            if part is None:
                continue
            inner = level
            if part.get("type") == "section":
                self.builder.heading(level + 2, normalize_space(str(part.get("name") or "")))
                inner = level + 1
            elif isinstance(part.get("value"), str):
                self.paragraph(part["value"], part.get("links"))
            children = part.get("has_parts")
            if isinstance(children, list):
                stack.extend((child, inner) for child in reversed(children))

    def paragraph(self, value: str, links: Any) -> None:
        """One paragraph, its links placed where their text first stands after the previous link."""
        cursor = 0
        for link in links if isinstance(links, list) else []:
            text, target = self._link(link)
            at = value.find(text, cursor) if text else -1
            if at < 0:
                continue
            self.builder.text(value[cursor:at])
            if target:
                self.builder.link(target, text)
            else:
                self.builder.text(text)
            cursor = at + len(text)
        self.builder.text(value[cursor:])
        self.builder.paragraph_break()

    def _link(self, link: Any) -> tuple[str, str]:
        """A link's text and, when it is an article of the record's wiki, its target title ("" otherwise)."""
        if not isinstance(link, dict) or not isinstance(link.get("text"), str) or not isinstance(link.get("url"), str):
            return "", ""
        parts = urlsplit(link["url"])
        if not parts.path.startswith("/wiki/") or (self.netloc and parts.netloc and parts.netloc != self.netloc):
            return link["text"], ""
        target = link_target(link["url"])
        return link["text"], target if classify_link(target, self.namespaces) == "article" else ""


def _as_part(value: Any) -> dict[str, Any] | None:
    """A part as a dict: as written, or decoded from the JSON text that ``datasets`` stores a part as when the parts
    of a list differ in shape (its ``arrow.json`` type, in Parquet files it writes); None for anything else."""
    if isinstance(value, str) and value.startswith("{"):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return None
    return value if isinstance(value, dict) else None
