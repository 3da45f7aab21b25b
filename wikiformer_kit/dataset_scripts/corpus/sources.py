"""Which format each input is, and how the inputs split into shards (one pipeline task each).

A shard is a whole file, or, for a multistream ``.bz2`` dump whose index file lies beside it, a byte range of
whole bz2 streams; files that processes share (:func:`split_by_records`) are cut into byte ranges of lines, runs of
Parquet row groups or parts by records. Multistream dumps are cut into shards of :data:`STREAMS_PER_SHARD` streams, and into more,
smaller ones when that gives fewer shards than the processes that will read them (``min_shards``), so that one
dump file keeps every process busy. The rows are the same, in the same order, however the dumps are cut: only
their spread over the output files differs.
"""

from __future__ import annotations

import bz2
import importlib
import itertools
import lzma
import math
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from wikiformer_kit.dataset_scripts.corpus.dump_checks import PART_INDEX_NAME, check_index, check_parts, part_index
from wikiformer_kit.dataset_scripts.corpus.formats.base import (
    DAMAGED_PARQUET,
    PARQUET_MAGIC,
    CorpusFormatError,
    Skipped,
    open_binary,
    parquet_footer_error,
    read_head,
    wide_encoding,
    without_bom,
)
from wikiformer_kit.dataset_scripts.corpus.hub_files import hub_files, hub_url

FORMAT_MODULES = (
    "mediawiki_xml",
    "wikiextractor_text",
    "structured_contents",
    "enterprise_html",
    "wikiextractor_json",
    "msmarco_tsv",
    "xml_sections",
    "html",
    "latex",
    "markdown",
    "wikitext_file",
)
"""Format modules in sniffing order (the most specific first)."""
FORMAT_NAMES = (
    "mediawiki-xml",
    "wikiextractor-text",
    "structured-contents",
    "enterprise-html",
    "wikiextractor-json",
    "msmarco-tsv",
    "xml-sections",
    "html",
    "latex",
    "markdown",
    "wikitext",
)
"""Their ``NAME``s, in the same order, for command lines (which do not load the readers)."""

FOLDER_FILES_NOT_READ = ("-index.txt.bz2", "README.md", "LICENSE", "LICENSE.md", ".gitattributes")
"""Files skipped when a folder is walked: multistream indexes (read with their dump) and a folder's own README
and license files, which describe the corpus rather than belong to it (name such a file directly to read it)."""

STREAMS_PER_SHARD = 200
"""bz2 streams per shard of a multistream dump: 200 streams of 100 pages, about 20k pages a task."""


def format_modules() -> dict[str, ModuleType]:
    """The available format modules by ``NAME``."""
    return {name: get_format(name) for name in FORMAT_NAMES}


def get_format(name: str) -> ModuleType:
    """The format module called ``name`` (only that one is loaded); a clear error listing the known names
    otherwise."""
    if name not in FORMAT_NAMES:
        raise CorpusFormatError(f"unknown format {name!r}; known formats: {', '.join(sorted(FORMAT_NAMES))}")
    return importlib.import_module(f"{__package__}.formats.{FORMAT_MODULES[FORMAT_NAMES.index(name)]}")


def detect_format(path: str | Path) -> ModuleType | None:
    """The first format module whose ``sniff`` accepts the file, or None (the modules load in sniffing order, as
    far as needed)."""
    head = without_bom(read_head(path))
    for name in FORMAT_MODULES:
        module = importlib.import_module(f"{__package__}.formats.{name}")
        if module.sniff(Path(path), head):
            return module
    return None


def file_problem(path: Path, module: ModuleType | None) -> tuple[str, str] | None:
    """Why a file cannot be read, as the format ``module`` (given with ``--format`` or sniffed; None: none
    recognised it) or any: its skip reason and the message saying what to do; None for a file the reader can try.
    Text in UTF-16 (or UTF-32), which a reader of UTF-8 would take for bytes that are not UTF-8 (an XML reader,
    ``READS_WIDE_TEXT``, decodes what the document declares), and a Parquet file whose footer cannot be read."""
    head = read_head(path)
    encoding = wide_encoding(head)
    if encoding is not None and not getattr(module, "READS_WIDE_TEXT", False):
        return "non-utf8-file", (
            f"{encoding} text; the readers read UTF-8: re-encode it as UTF-8 (iconv -f {encoding} -t UTF-8)"
        )
    if head.startswith(PARQUET_MAGIC) and (error := parquet_footer_error(path)) is not None:
        return "damaged-file", f"{DAMAGED_PARQUET} ({error})"
    return None


def unrecognised_reason(path: Path) -> str:
    """Why no reader recognised a file the user named, and what to do."""
    if path.stat().st_size == 0:
        return "empty file; name a dump or corpus file with content"
    if str(path).endswith((".bz2", ".gz", ".xz")):
        try:
            with open_binary(path) as stream:
                stream.read(4096)
        except (OSError, EOFError, lzma.LZMAError, zlib.error) as error:
            suffix = path.suffix
            return (
                f"not a valid {suffix[1:]} file ({error}): damaged or not compressed although named {suffix}; "
                "download it again"
            )
    return f"format not recognised; pass --format (one of {', '.join(FORMAT_NAMES)})"


def nothing_readable(inputs: list[str | Path], unknown: list[Skipped]) -> str:
    """Why inputs gave no file to read (folders empty, or holding no file any reader recognises), what was looked
    for, and what to do."""
    where = ", ".join(map(str, inputs))
    if not unknown:
        return (
            f"{where}: no file to read in it (hidden files, {', '.join(FOLDER_FILES_NOT_READ[1:])} and multistream "
            "indexes are not read); give the folder or files of a dump or corpus"
        )
    unreadable = [skipped for skipped in unknown if skipped.reason not in ("unknown-format", "duplicate-input")]
    if unreadable:
        more = f" (and {len(unreadable) - 1} more such files)" if len(unreadable) > 1 else ""
        return f"{where}: nothing readable: {unreadable[0].file}: {unreadable[0].detail}{more}"
    names = [Path(skipped.file).name for skipped in unknown]
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (
        f"{where}: nothing readable: none of its {len(names)} file{'s' if len(names) > 1 else ''} ({shown}) is in a "
        f"format the kit recognises ({', '.join(FORMAT_NAMES)}); pass --format NAME to read them as one of these"
    )


@dataclass(frozen=True)
class Shard:
    """One unit of work: a file, or a byte range ``[start, end)`` of a multistream dump (``end`` -1 = EOF)."""

    path: str
    fmt: str
    start: int = 0
    end: int = -1
    multistream: bool = False
    part: int = 0
    parts: int = 1
    row_groups: bool = False
    """``start`` and ``end`` number row groups of a Parquet file (``[start, end)``), not bytes."""

    @property
    def size(self) -> int:
        """Bytes of input this shard reads (for progress bars; a part of a file split by records: its share; row
        groups: their compressed bytes)."""
        if self.row_groups:
            return row_group_bytes(self.path, self.start, self.end) // self.parts
        total = Path(self.path).stat().st_size
        return ((total if self.end < 0 else self.end) - self.start) // self.parts

    @property
    def record_part(self) -> tuple[int, int] | None:
        """``(part, parts)`` for a file split by records (the reader keeps every ``parts``-th record from ``part``),
        None for a whole file or a byte range."""
        return (self.part, self.parts) if self.parts > 1 else None

    @property
    def byte_range(self) -> tuple[int, int] | None:
        """``(start, end)`` for a range of a multistream dump, None for a whole file (what ``read_raw`` takes)."""
        return (self.start, self.end) if self.multistream else None

    @property
    def line_range(self) -> tuple[int, int] | None:
        """``(start, end)`` for a byte range of a plain NDJSON file (its reader reads the lines that start in it),
        None otherwise (what ``read`` takes as ``byte_range``)."""
        if self.multistream or self.row_groups or (self.start, self.end) == (0, -1):
            return None
        return (self.start, self.end)

    @property
    def row_group_range(self) -> tuple[int, int] | None:
        """``(first, end)`` row groups of a Parquet file this shard alone reads, None otherwise (what ``read``
        takes as ``row_groups``)."""
        return (self.start, self.end) if self.row_groups else None


def row_group_bytes(path: str | Path, start: int, end: int) -> int:
    """The compressed bytes of row groups ``[start, end)`` of a Parquet file (its footer only is read)."""
    import pyarrow.parquet  # here: planning other inputs never loads it

    metadata = pyarrow.parquet.ParquetFile(path).metadata
    return sum(
        metadata.row_group(group).column(column).total_compressed_size
        for group in range(start, end)
        for column in range(metadata.num_columns)
    )


def multistream_index(path: str | Path) -> Path | None:
    """The index file of a multistream dump (``...-multistream-index.txt.bz2`` beside it, or for a part file
    ``...-multistream-index3.txt-p1p9.bz2``), if present."""
    path = Path(path)
    if not path.name.endswith("multistream.xml.bz2"):
        return part_index(path)
    index = path.with_name(path.name.removesuffix(".xml.bz2") + "-index.txt.bz2")
    return index if index.exists() else None


def stream_offsets(index: str | Path) -> list[int]:
    """The distinct byte offsets of the bz2 streams listed in a multistream index (``offset:id:title`` lines)."""
    offsets = set()
    with bz2.open(index, "rt", encoding="utf-8", errors="replace") as lines:
        for line in lines:
            head, _, _ = line.partition(":")
            if head.isdigit():
                offsets.add(int(head))
    return sorted(offsets)


def _expand(inputs: list[str | Path]) -> list[tuple[Path, bool]]:
    """Files to read, each with whether the user named it directly (directories are walked, sorted; ``hf://``
    inputs are fetched into the Hub cache: :mod:`.hub_files`)."""
    files = []
    for item in inputs:
        url = hub_url(item)
        if url is not None:
            files.extend((path, named) for path, named in hub_files(url) if named or _read_in_folder(path))
            continue
        path = Path(item)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
            files.extend((p, False) for p in found if _read_in_folder(p))
        elif path.is_file():
            files.append((path, True))
        else:
            raise CorpusFormatError(f"{path}: no such file or directory")
    return files


def _read_in_folder(path: Path) -> bool:
    """Whether a file found in a folder is read (see :data:`FOLDER_FILES_NOT_READ`)."""
    return not path.name.endswith(FOLDER_FILES_NOT_READ) and not PART_INDEX_NAME.search(path.name)


def plan_shards(
    inputs: list[str | Path], fmt: str = "auto", streams_per_shard: int = STREAMS_PER_SHARD, min_shards: int = 1
) -> tuple[list[Shard], list[Skipped]]:
    """Split the inputs (files and directories, walked recursively, local or ``hf://datasets/...``; of format
    ``fmt``, or sniffed with ``"auto"``) into shards: indexed multistream dumps into shards of at most
    ``streams_per_shard`` streams, smaller ones (down to one stream) until there are ``min_shards`` in all (the
    processes that will read them).

    Returns the shards, and a Skipped record for each file inside a directory whose format is unknown or that no
    reader can read (:func:`file_problem`; a file named directly so raises :class:`CorpusFormatError` instead: the
    run would be wrong) and for each file given again (read once).
    """
    planned: list[Shard | tuple[Path, str, list[int]]] = []  # whole-file shards, and dumps with their offsets
    index_of: dict[Path, Path] = {}
    skipped: list[Skipped] = []
    fixed = None if fmt == "auto" else get_format(fmt)
    files, seen = [], set()
    for path, named in _expand(inputs):
        if path.resolve() in seen:  # a record read twice would multiply its task rows
            skipped.append(Skipped("duplicate-input", str(path), "", "the same file given again: read once"))
            continue
        seen.add(path.resolve())
        files.append((path, named))
    check_parts([path for path, _ in files])
    for path, named in files:
        module = fixed or detect_format(path)
        problem = file_problem(path, module)
        if problem is not None:
            if named:
                raise CorpusFormatError(f"{path}: {problem[1]}")
            skipped.append(Skipped(problem[0], str(path), "", problem[1]))
            continue
        if module is None:
            if named:
                raise CorpusFormatError(f"{path}: {unrecognised_reason(path)}")
            skipped.append(Skipped("unknown-format", str(path), "", "no reader recognised this file"))
            continue
        index = multistream_index(path) if module.NAME == "mediawiki-xml" else None
        if index is None:
            planned.append(Shard(str(path), module.NAME))
        else:
            planned.append((path, module.NAME, stream_offsets(index)))
            index_of[path] = index
    dumps = [item for item in planned if not isinstance(item, Shard)]
    cuts = stream_cuts(
        [len(offsets) for _, _, offsets in dumps], streams_per_shard, min_shards - len(planned) + len(dumps)
    )
    shards: list[Shard] = []
    dump_cuts = iter(cuts)
    for item in planned:
        if isinstance(item, Shard):
            shards.append(item)
            continue
        path, name, offsets = item
        starts = [offsets[i] for i in next(dump_cuts)]
        check_index(path, index_of[path], offsets, starts)
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else -1
            shards.append(Shard(str(path), name, start, end, multistream=True))
    return split_by_records(shards, min_shards), skipped


def split_by_records(shards: list[Shard], min_shards: int) -> list[Shard]:
    """Cut the files whose format reads a part of its records (``SPLITS_BY_RECORD``: a compressed archive that cannot
    be cut by bytes) into parts, until there are ``min_shards`` shards in all: each part reads the whole file and
    parses every ``parts``-th record, so the processes share the parsing, the costly step. A file its format can cut
    by bytes (``splits_by_bytes``: a plain NDJSON file) is cut into as many equal byte ranges instead, each read
    alone (its reader aligns them on lines); a Parquet file (``row_group_rows``) into runs of whole row groups,
    balanced by rows, each read alone (:func:`row_group_shards`)."""
    splittable = [i for i, shard in enumerate(shards) if getattr(get_format(shard.fmt), "SPLITS_BY_RECORD", False)]
    if not splittable or len(shards) >= min_shards:
        return shards
    parts = math.ceil((min_shards - len(shards) + len(splittable)) / len(splittable))
    result: list[Shard] = []
    for i, shard in enumerate(shards):
        if i not in splittable or parts == 1:
            result.append(shard)
            continue
        module = get_format(shard.fmt)
        if groups := getattr(module, "row_group_rows", lambda path: None)(Path(shard.path)):
            result.extend(row_group_shards(shard, groups, parts))
        elif getattr(module, "splits_by_bytes", lambda path: False)(Path(shard.path)):
            size = Path(shard.path).stat().st_size
            cuts = [part * size // parts for part in range(parts)] + [-1]
            result.extend(Shard(shard.path, shard.fmt, cuts[k], cuts[k + 1]) for k in range(parts))
        else:
            result.extend(Shard(shard.path, shard.fmt, part=part, parts=parts) for part in range(parts))
    return result


def row_group_shards(shard: Shard, rows: list[int], parts: int) -> list[Shard]:
    """``parts`` shards of a Parquet file whose row groups hold ``rows[g]`` rows: runs of whole row groups, in order,
    cut where the rows read so far come nearest each shard's equal share (row groups differ in size). A file of
    fewer row groups than ``parts`` gets a shard a row group, each shared by records among the processes that
    group's share of ``parts`` gives it."""
    count = len(rows)
    if count < parts:
        each = [parts * (g + 1) // count - parts * g // count for g in range(count)]
        return [
            Shard(shard.path, shard.fmt, g, g + 1, part=k, parts=each[g], row_groups=True)
            for g in range(count)
            for k in range(each[g])
        ]
    total = sum(rows)
    done = [0, *itertools.accumulate(rows)]  # rows in the row groups before each one
    starts = [0]
    for k in range(1, parts):
        share = k * total / parts
        cut = min(range(starts[-1] + 1, count - (parts - k) + 1), key=lambda g: (abs(done[g] - share), g))
        starts.append(cut)
    ends = [*starts[1:], count]
    return [Shard(shard.path, shard.fmt, a, b, row_groups=True) for a, b in zip(starts, ends, strict=True)]


def stream_cuts(streams: list[int], streams_per_shard: int, wanted: int) -> list[list[int]]:
    """Where each multistream dump is cut: for each dump of ``streams[i]`` streams, the stream numbers its shards
    start at.

    Each dump gets ``streams_per_shard`` streams a shard; when that makes fewer than ``wanted`` shards in all, the
    dumps are cut into more, equal shards, in proportion to their streams (one stream a shard at the least).
    """
    cuts = [list(range(0, n, streams_per_shard)) for n in streams]
    total = sum(streams)
    if not total or sum(map(len, cuts)) >= wanted:
        return cuts
    for number, n in enumerate(streams):
        count = min(n, max(len(cuts[number]), math.ceil(wanted * n / total)))
        cuts[number] = [i * n // count for i in range(count)]
    return cuts
