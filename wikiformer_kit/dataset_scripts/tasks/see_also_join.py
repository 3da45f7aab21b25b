"""The See Also Graph's title join on disk, partitioned by a hash of the normalised title.

Resolving a See also target means finding the corpus row of its normalised title, following up to
``MAX_REDIRECT_HOPS`` redirects. Holding every title and redirect of the corpus in each process (7M titles and
10M redirects for English Wikipedia: gigabytes per process) is what this module avoids:

1. Stage 1 writes, for each unit, its titles with their corpus rows cut into ``B`` buckets by
   :func:`bucket_of` (one Arrow IPC file a unit, record batch ``b`` = bucket ``b``); it cuts the corpus redirect
   files the same way, by source title (:func:`write_title_parts`, :func:`write_redirect_parts`).
2. The join stage builds each bucket on its own (:func:`build_bucket`): record batch ``b`` of every part file,
   sorted, the first row of each title kept (the lowest corpus row; for redirects, the first in corpus order:
   what the in-memory lookup of :class:`.see_also_graph.ArticleIndex` picks), written as one SQLite file with two
   indexed tables. It holds one bucket at a time: ``~ (titles + redirects) / B`` rows.
3. LTM resolves a batch of targets by indexed lookups (:class:`TitleJoin`): each title and each redirect hop is
   looked up in its own bucket's file. A process holds the batch's targets and SQLite's page cache of one bucket
   file at a time, whatever the corpus size.

The folder of the join is named after ``B`` (``B`` follows from the corpus size, :func:`bucket_count`), so a
build resumed with another ``B`` rebuilds the parts instead of mixing them.
"""

from __future__ import annotations

import itertools
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.tasks.see_also_graph import MAX_REDIRECT_HOPS, normalize_titles

TITLE_SCHEMA = pa.schema([("title", pa.string()), ("row", pa.int64())])
REDIRECT_SCHEMA = pa.schema([("source", pa.string()), ("target", pa.string())])
TITLES_PER_BUCKET = 250_000
"""Corpus articles per bucket: with redirects (about 1.5 a title in English Wikipedia) a bucket holds ~600k rows,
a few tens of MB while it is built; English Wikipedia (7M articles) gets 28 buckets."""
MAX_BUCKETS = 1024
_INSERT_ROWS = 10_000  # rows turned into Python objects at a time while a bucket file is written
_LOOKUP_KEYS = 500  # below SQLite's default limit of bound parameters


class JoinPartError(ValueError):
    """A part file of the join does not hold the expected number of buckets; the message names it."""


def bucket_count(articles: int) -> int:
    """The number of buckets for a corpus of ``articles`` articles (1 for a small corpus)."""
    return int(min(MAX_BUCKETS, max(1, -(-articles // TITLES_PER_BUCKET))))


def crc32_text(text: str) -> int:
    """The CRC-32 of a text's UTF-8 bytes (the same in every process and on every machine, unlike ``hash``)."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def bucket_of(title: str, buckets: int) -> int:
    """The bucket of a normalised title: its :func:`crc32_text` modulo ``buckets``."""
    return crc32_text(title) % buckets


def crc32_of(texts: Iterable[str]) -> np.ndarray:
    """:func:`crc32_text` of each text (``uint64``: ready to combine), each distinct text's computed once (a
    sentence's links, an anchor text's occurrences)."""
    texts = list(texts)
    crcs = dict.fromkeys(texts)
    for text in crcs:
        crcs[text] = crc32_text(text)
    return np.fromiter(map(crcs.__getitem__, texts), dtype=np.uint64, count=len(texts))


def _bucket_keys(titles: pa.Array, buckets: int) -> np.ndarray:
    """The bucket of every title of an Arrow string array."""
    if buckets == 1:  # no title needs to become a Python string
        return np.zeros(len(titles), dtype=np.int64)
    return np.fromiter((bucket_of(t, buckets) for t in titles.to_pylist()), dtype=np.int64, count=len(titles))


def _write_parts(table: pa.Table, keys: np.ndarray, buckets: int, path: Path) -> None:
    """``table`` as an Arrow IPC file of exactly ``buckets`` record batches, batch ``b`` = the rows whose key is
    ``b``, in their order (a stable sort)."""
    order = np.argsort(keys, kind="stable")
    counts = np.bincount(keys, minlength=buckets)
    batches = table.take(pa.array(order, pa.int64())).combine_chunks().to_batches()  # one batch, or none
    batch = batches[0] if batches else pa.RecordBatch.from_pylist([], schema=table.schema)
    starts = np.concatenate([[0], np.cumsum(counts)])
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        for bucket in range(buckets):
            writer.write_batch(batch.slice(int(starts[bucket]), int(counts[bucket])))


def write_title_parts(titles: pa.Array | pa.ChunkedArray, first_row: int, buckets: int, path: Path) -> None:
    """A unit's normalised titles (corpus rows ``first_row``, ``first_row + 1``, ...) cut into buckets."""
    titles = titles.combine_chunks() if isinstance(titles, pa.ChunkedArray) else titles
    rows = pa.array(np.arange(first_row, first_row + len(titles), dtype=np.int64))
    table = pa.table({"title": titles, "row": rows}, schema=TITLE_SCHEMA)
    _write_parts(table, _bucket_keys(titles, buckets), buckets, path)


def write_redirect_parts(redirect_file: Path, buckets: int, path: Path) -> None:
    """A corpus redirect file (Parquet, ``source`` and ``target``) with both titles normalised, cut into buckets
    by source title."""
    table = pq.read_table(redirect_file, columns=["source", "target"])
    sources = normalize_titles(table.column("source"))
    targets = normalize_titles(table.column("target"))
    normal = pa.table({"source": sources, "target": targets}, schema=REDIRECT_SCHEMA)
    _write_parts(normal, _bucket_keys(sources, buckets), buckets, path)


def read_part(path: Path, bucket: int, buckets: int) -> pa.RecordBatch:
    """Bucket ``bucket`` of a part file (memory-mapped, not copied)."""
    reader = pa.ipc.open_file(pa.memory_map(str(path), "r"))
    if reader.num_record_batches != buckets:
        raise JoinPartError(
            f"{path} holds {reader.num_record_batches} buckets, the join expects {buckets}: a part file of another "
            "build; delete the folder's .build/see-also-join-* and rerun"
        )
    return reader.get_batch(bucket)


def _first_of_each(table: pa.Table, key: str, order: str) -> pa.Table:
    """The rows sorted by ``key``, only the first (by ``order``) of each key kept."""
    table = table.take(pc.sort_indices(table, [(key, "ascending"), (order, "ascending")]))
    keys = table.column(key).combine_chunks()
    if len(keys) < 2:
        return table
    repeated = pc.equal(keys.slice(1), keys.slice(0, len(keys) - 1)).fill_null(False)
    keep = pa.concat_arrays([pa.array([True]), pc.invert(repeated)])
    return table.filter(keep)


def build_bucket(bucket: int, buckets: int, title_parts: Sequence[Path], redirect_parts: Sequence[Path], db: Path):
    """Write bucket ``bucket`` of the join as a SQLite file ``db`` (``titles(title, row)`` and
    ``redirects(source, target)``, both keyed by their title); ``title_parts`` in corpus order and
    ``redirect_parts`` in the order of the corpus redirect files decide which row of a repeated title counts."""
    connection = sqlite3.connect(db)
    try:
        connection.executescript(
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
            "CREATE TABLE titles (title TEXT PRIMARY KEY, row INTEGER NOT NULL) WITHOUT ROWID;"
            "CREATE TABLE redirects (source TEXT PRIMARY KEY, target TEXT NOT NULL) WITHOUT ROWID;"
        )
        # one table at a time, so that the bucket's titles and its redirects are never held together
        titles = pa.Table.from_batches([read_part(p, bucket, buckets) for p in title_parts], schema=TITLE_SCHEMA)
        _insert_sorted(connection, "titles", _first_of_each(titles, "title", "row"))
        del titles
        redirects = pa.Table.from_batches(
            [read_part(p, bucket, buckets) for p in redirect_parts], schema=REDIRECT_SCHEMA
        )
        redirects = redirects.append_column("order", pa.array(np.arange(redirects.num_rows, dtype=np.int64)))
        _insert_sorted(connection, "redirects", _first_of_each(redirects, "source", "order").select([0, 1]))
        connection.commit()
    finally:
        connection.close()


def _insert_sorted(connection: sqlite3.Connection, name: str, table: pa.Table) -> None:
    """Insert a two-column table sorted by its key (SQLite then appends to its B-tree in order), a slice at a time
    as Python objects."""
    for start in range(0, table.num_rows, _INSERT_ROWS):
        chunk = table.slice(start, _INSERT_ROWS)
        connection.executemany(
            f"INSERT INTO {name} VALUES (?, ?)", zip(*(c.to_pylist() for c in chunk.columns), strict=True)
        )


RESOLVED_KEPT = 100_000
"""Titles whose resolution a :class:`TitleJoin` keeps (about 10 MiB): the pages links name most (countries, years)
are named from most units, and each would otherwise be looked up again, redirects and all."""


class TitleJoin:
    """Resolve See also targets to corpus rows against the bucket files of the join.

    Args:
        bucket_files: the SQLite file of each bucket, bucket ``b`` at position ``b``.
        kept: titles whose answer is kept for the next calls (the oldest dropped first; 0: none). The bucket
            files do not change during a build, so a kept answer is the one a lookup would give.
    """

    def __init__(self, bucket_files: Sequence[Path], kept: int = RESOLVED_KEPT):
        self.bucket_files = [Path(p) for p in bucket_files]
        self.kept = kept
        self._resolved: dict[str, int | None] = {}

    def resolve(self, titles: Sequence[str]) -> list[int | None]:
        """Row numbers of the articles the titles name (after following up to ``MAX_REDIRECT_HOPS`` redirects),
        ``None`` when missing: the same answer as :meth:`.see_also_graph.ArticleIndex.resolve`."""
        if not self.kept:
            return self._resolve(titles)
        resolved = self._resolved
        new = [title for title in dict.fromkeys(titles) if title not in resolved]
        if new:
            resolved.update(zip(new, self._resolve(new), strict=True))
        rows = [resolved[title] for title in titles]
        excess = len(resolved) - self.kept
        if excess > 0:  # dicts keep insertion order: the oldest answers go first
            for title in list(itertools.islice(resolved, excess)):
                del resolved[title]
        return rows

    def _resolve(self, titles: Sequence[str]) -> list[int | None]:
        current = normalize_titles(pa.array(titles, pa.string())).to_pylist()  # only odd titles through Python
        rows = self._lookup("titles", current)
        for _ in range(MAX_REDIRECT_HOPS):
            pending = [i for i, row in enumerate(rows) if row is None]
            if not pending:
                break
            hops = self._lookup("redirects", [current[i] for i in pending])
            followed = [(i, target) for i, target in zip(pending, hops, strict=True) if target is not None]
            if not followed:
                break
            found = self._lookup("titles", [target for _, target in followed])
            for (i, target), row in zip(followed, found, strict=True):
                current[i], rows[i] = target, row
        return rows

    def _lookup(self, table: str, keys: Sequence[str]) -> list:
        """``table``'s value for each key (``None`` when absent), one bucket file open at a time."""
        key_column, value_column = ("title", "row") if table == "titles" else ("source", "target")
        found = dict(
            lookup_buckets(
                self.bucket_files, keys, f"SELECT {key_column}, {value_column} FROM {table} WHERE {key_column}"
            )
        )
        return [found.get(key) for key in keys]


def lookup_buckets(bucket_files: Sequence[Path], keys: Iterable[str], select: str) -> Iterator[tuple]:
    """The rows of ``select`` (a query ending in ``WHERE <key column>``) for the ``keys``, each key asked of the
    bucket file :func:`bucket_of` puts it in, one file open at a time, read-only."""
    buckets = len(bucket_files)
    by_bucket: dict[int, set[str]] = {}
    if buckets == 1:  # a corpus of up to TITLES_PER_BUCKET articles: no key needs hashing
        every = set(keys)
        by_bucket = {0: every} if every else {}
    else:
        for key in keys:
            by_bucket.setdefault(bucket_of(key, buckets), set()).add(key)
    for bucket in sorted(by_bucket):
        wanted = sorted(by_bucket[bucket])
        uri = f"{Path(bucket_files[bucket]).resolve().as_uri()}?mode=ro&immutable=1"
        connection = sqlite3.connect(uri, uri=True)
        try:
            for start in range(0, len(wanted), _LOOKUP_KEYS):
                chunk = wanted[start : start + _LOOKUP_KEYS]
                yield from connection.execute(f"{select} IN ({','.join('?' * len(chunk))})", chunk)
        finally:
            connection.close()
