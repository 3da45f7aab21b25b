"""Split a Parquet corpus into fixed work units and read one unit's articles.

A unit is a run of at most ``articles_per_unit`` consecutive rows of one corpus file. Units depend only on the
corpus, never on the number of processes, so each unit's output shard is the same however the build is spread.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.corpus.article import Article


class CorpusLayoutError(ValueError):
    """A folder that is not a built corpus (no ``data/*.parquet``); the message names it."""


@dataclass(frozen=True)
class Unit:
    """Rows ``[start, stop)`` of one corpus Parquet file; ``number`` is its position among all units."""

    number: int
    file: str
    start: int
    stop: int


def corpus_files(corpus_dir: Path) -> tuple[list[Path], list[Path]]:
    """The article shards and the redirect shards of a built corpus folder, sorted by name."""
    data = sorted((corpus_dir / "data").glob("*.parquet"))
    if not data:
        raise CorpusLayoutError(f"{corpus_dir} is not a corpus folder: no data/*.parquet in it")
    return data, sorted((corpus_dir / "redirects").glob("*.parquet"))


def plan_units(data_files: Sequence[Path], articles_per_unit: int) -> list[Unit]:
    """Cut the corpus files into units of at most ``articles_per_unit`` rows (from the Parquet footers only)."""
    if articles_per_unit < 1:
        raise ValueError(f"articles_per_unit must be >= 1, got {articles_per_unit}")
    units: list[Unit] = []
    for path in data_files:
        rows = pq.ParquetFile(path).metadata.num_rows
        for start in range(0, rows, articles_per_unit):
            units.append(Unit(len(units), str(path), start, min(rows, start + articles_per_unit)))
    return units


def first_rows(units: Sequence[Unit]) -> list[int]:
    """The corpus row of each unit's first article (and, last, the number of rows of all the units)."""
    return [0, *itertools.accumulate(unit.stop - unit.start for unit in units)]


def rank_units(units: Sequence[Unit], rank: int, world_size: int) -> list[Unit]:
    """The units task ``rank`` of ``world_size`` processes, in corpus order: the units are given out largest first
    (ties: corpus order) to the task with the fewest articles so far (ties: the lowest rank), so that no task gets
    much more than its share when the units differ in size (the last unit of each file is short). Every task
    computes the same split; a unit's output does not depend on it."""
    loads = [0] * max(1, world_size)
    mine = []
    for unit in sorted(units, key=lambda u: (u.start - u.stop, u.number)):
        lightest = loads.index(min(loads))
        loads[lightest] += unit.stop - unit.start
        if lightest == rank:
            mine.append(unit)
    return sorted(mine, key=lambda u: u.number)


WST_COLUMNS = ("id", "title", "abstract", "sections", "see_also", "language", "is_disambiguation")
"""The corpus columns the Wiki Structure Tree tasks (SRR, RWI, ATI, the LTM index) read. Leaving out ``links``
(every link with its sentence: the largest column, and the costliest to turn into Python objects), ``url`` and
``source`` cuts a unit's read to a third."""


FOOTERS_KEPT = 4
"""Corpus files whose Parquet footer a process keeps parsed (the units of a worker follow each other in a file)."""


@functools.lru_cache(maxsize=FOOTERS_KEPT)
def _footer(path: str, size: int, modified_ns: int) -> pq.FileMetaData:
    """A corpus file's parsed footer, by path and the file's size and modification time (a rewritten file is read
    again)."""
    return pq.read_metadata(path)


def read_unit_table(unit: Unit, columns: Sequence[str] | None = None) -> pa.Table | None:
    """The rows of one unit as an Arrow table, reading only the row groups that overlap it (``None`` if none do);
    only ``columns`` when given, every column otherwise.

    The file's footer is parsed once for all its units: it describes every row group of every column, so it grows
    with the file, and parsing it took longer than reading a small unit's rows."""
    stat = os.stat(unit.file)
    parquet = pq.ParquetFile(unit.file, metadata=_footer(str(unit.file), stat.st_size, stat.st_mtime_ns))
    groups, first_row, position = [], None, 0
    for number in range(parquet.metadata.num_row_groups):
        size = parquet.metadata.row_group(number).num_rows
        if position < unit.stop and position + size > unit.start:
            groups.append(number)
            first_row = position if first_row is None else first_row
        position += size
    if not groups:
        return None
    table = parquet.read_row_groups(groups, columns=list(columns) if columns is not None else None)
    return table.slice(unit.start - first_row, unit.stop - unit.start)


def read_unit(unit: Unit, columns: Sequence[str] | None = None) -> list[Article]:
    """The articles of one unit (see `read_unit_table`); fields not read keep their defaults: no links unless
    ``columns`` names them."""
    table = read_unit_table(unit, columns)
    return [] if table is None else [Article.from_dict(row) for row in table.to_pylist()]


def list_items(column: pa.ChunkedArray | pa.Array) -> tuple[pa.StructArray, np.ndarray]:
    """A list-of-structs column (``sections``, ``links``) as the items of every row (one struct array, the
    column's slice taken into account) and the row boundaries: row ``i``'s items are ``offsets[i]:offsets[i + 1]``."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    offsets = array.offsets.to_numpy()
    return array.flatten(), offsets - offsets[0]


def list_fields(column: pa.ChunkedArray | pa.Array, *fields: str) -> list[list]:
    """Per row of a list-of-structs column, its items' ``fields``: a value per item for one field, a tuple per
    item for several. Read field by field from Arrow, without building the corpus's Section or Link objects (the
    costliest part of reading a unit with its links)."""
    items, offsets = list_items(column)
    values = [items.field(name).to_pylist() for name in fields]
    flat = values[0] if len(fields) == 1 else list(zip(*values, strict=True))
    bounds = offsets.tolist()
    return [flat[start:stop] for start, stop in zip(bounds[:-1], bounds[1:], strict=True)]
