"""What every corpus format module provides, and the records a reader yields.

A format module (one file per format in this folder) defines:

- ``NAME``: the format name used by ``--format`` and stored in ``Article.source``;
- ``sniff(path: Path, head: bytes) -> bool``: whether a file looks like this format (``head`` is its first
  bytes, decompressed when the file is ``.bz2``/``.gz``), for ``--format auto``;
- and one of two readers, which stream the file record by record, never loading all of it in memory:

  - ``read(path: Path, options: ReaderOptions) -> Iterator[Article | Redirect | Skipped]``, for formats whose
    reader builds the Articles itself (the structured formats, with :mod:`._builder`). A format that sets
    ``SPLITS_BY_RECORD = True`` (an archive that cannot be cut by bytes) also takes ``part=(k, n)``: parse only
    every ``n``-th record from the ``k``-th, so that ``n`` tasks share one file (``sources.split_by_records``), and
    yields each record it parses as its Redirects then one Article or Skipped (how the build knows where each of
    its articles stands in the file: ``steps.input_group``);
    where its ``splits_by_bytes(path)`` is true (a plain NDJSON file), ``byte_range=(start, end)`` instead: the
    records that start in that byte range (``sources.Shard.line_range``); where its ``row_group_rows(path)`` gives
    the rows of each row group (a Parquet file), ``row_groups=(first, end)``: those row groups only
    (``sources.Shard.row_group_range``);
  - or the raw hook ``read_raw(path, options, *, byte_range=None, on_bytes=None) -> Iterator[RawPage | Redirect |
    Skipped]``, for wikitext formats: the reader only cuts the input into :class:`RawPage` records, and the
    extraction stage of the corpus build (:mod:`..extract`) parses them, as a pipeline step of its own.
    ``byte_range`` is a shard's ``(start, end)`` (see ``sources.Shard.byte_range``; ``None`` = the whole file)
    and ``on_bytes`` is called with the number of input bytes read, for progress bars; the shard may be read in
    a process of its own (:mod:`..reading`), so ``read_raw`` must not rely on state of the calling process.

  ``extract.read_articles(module, path, options)`` gives Articles from either kind. A format module imports only
  from this folder and from the corpus modules below the extraction (``article``, ``titles``, ``wikitext``, ...).

A reader never raises on one bad record: it yields :class:`Skipped` with the reason, the file and the record
(page title or id), and goes on. Only an unreadable file as a whole (missing, not this format) raises
:class:`CorpusFormatError`, naming the file. Every reader reads UTF-8, past a byte-order mark (:func:`without_bom`);
text in UTF-16 (save to an XML reader: ``READS_WIDE_TEXT``) and a Parquet file whose footer is damaged are refused
before any reader sees them (``sources.file_problem``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from wikiformer_kit.eval.collections.textfile import DAMAGE_ERRORS, open_binary


class CorpusFormatError(ValueError):
    """A file that cannot be read at all as the requested format; the message names the file."""


@dataclass(frozen=True)
class Redirect:
    """A redirect page: kept as a title map entry, not as an article."""

    source: str
    target: str


@dataclass(frozen=True)
class Skipped:
    """A record left out, with its reason (a short stable key such as ``"empty"`` or ``"non-utf8"``), the file
    and the record it came from, and a human-readable detail."""

    reason: str
    file: str
    record: str = ""
    detail: str = ""


@dataclass(frozen=True)
class ReaderOptions:
    """Options shared by every reader.

    Args:
        language: language code stored in ``Article.language`` and used to pick the See also heading names.
        see_also_titles: extra heading names (case-insensitive) that count as the See also section, e.g.
            ``("Verīs taipoš",)`` for Latgalian; English names are always recognised.
        max_article_bytes: articles larger than this are skipped with reason ``"too-large"`` (0 = no limit).
        language_given: ``language`` was given (``--language``): it overrides the language a dump names.
    """

    language: str = "en"
    see_also_titles: tuple[str, ...] = field(default_factory=tuple)
    max_article_bytes: int = 0
    language_given: bool = False


@dataclass(frozen=True)
class RawPage:
    """A wiki page not yet parsed: readers of wikitext formats yield these, and the extraction step of the
    corpus pipeline turns them into Articles (so parsing runs as its own stage)."""

    title: str
    wikitext: str
    id: str = ""
    url: str = ""
    language: str = "en"
    namespace_names: tuple[tuple[int, str], ...] = ()
    source: str = ""
    file: str = ""


def open_input(path: str | Path) -> BinaryIO:
    """:func:`open_binary` for a reader: a file that cannot be opened raises :class:`CorpusFormatError` naming it."""
    try:
        return open_binary(path)
    except OSError as error:
        raise CorpusFormatError(f"{path}: cannot open: {error}") from error


UTF8_BOM = b"\xef\xbb\xbf"
"""The byte-order mark some editors put at the start of a UTF-8 file: read past, never part of a record."""


def without_bom(data: bytes) -> bytes:
    """``data`` without a leading UTF-8 byte-order mark (the first line or head of a file)."""
    return data[len(UTF8_BOM) :] if data.startswith(UTF8_BOM) else data


def wide_encoding(head: bytes) -> str | None:
    """``"UTF-16"`` or ``"UTF-32"`` when a file's first bytes are text in that encoding (by its byte-order mark, or
    printable ASCII with a zero byte beside every character), else None: every reader reads UTF-8."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    sample = head[: min(64, len(head) // 2 * 2)]
    if len(sample) >= 8:
        for zeros, text in ((sample[1::2], sample[0::2]), (sample[0::2], sample[1::2])):  # little, big endian
            if not zeros.strip(b"\x00") and all(32 <= byte < 127 or byte in b"\t\n\r" for byte in text):
                return "UTF-16"
    return None


PARQUET_MAGIC = b"PAR1"
DAMAGED_PARQUET = "a damaged Parquet file: its footer (the index of its rows) cannot be read; download it again"


def parquet_footer_error(path: str | Path) -> str | None:
    """Why the footer of a Parquet file cannot be read (cut short, damaged), or None when it can."""
    import pyarrow  # here: only a Parquet file loads it
    import pyarrow.parquet

    try:
        pyarrow.parquet.read_metadata(path)
    except (OSError, pyarrow.ArrowException, UnicodeDecodeError) as error:
        return one_line(error)
    return None


def one_line(error: BaseException | str, limit: int = 200) -> str:
    """An error message as one line of printable text, at most ``limit`` characters (pyarrow's messages about a
    damaged file span lines and quote its bytes)."""
    text = "".join(c if c.isprintable() else " " for c in str(error))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_head(path: str | Path, size: int = 4096) -> bytes:
    """The first bytes of a file (decompressed), for format sniffing; empty when unreadable."""
    try:
        with open_binary(path) as stream:
            return stream.read(size)
    except DAMAGE_ERRORS:  # a damaged .gz block raises zlib.error itself
        return b""
