"""HARP's QDM plan on disk, partitioned by a hash of the anchor text, so that no process holds every link's key.

QDM needs, for every anchor text of the corpus, its distinct destinations (after redirects) and which of its
occurrences make its (at most ``qdm_max_pairs``) rows. Collecting that in one process costs memory in proportion to
the corpus's links (a few hundred million in English Wikipedia). As the See also title join
(:mod:`.see_also_join`), the work is cut into buckets:

1. The statistics stage writes, per unit, its links found in their sentence as ``(key, target, rank)`` (the anchor
   text key, the raw target title, the occurrence's seeded rank, :func:`.qdm.occurrence_rank`) cut into ``B``
   buckets by :func:`.see_also_join.bucket_of` of the key (:func:`write_link_parts`).
2. The plan stage builds each bucket on its own (:func:`build_plan_bucket`): its links from every unit, their
   targets resolved in the title join, usable destinations kept, the keys with 2+ destinations and their rank
   cut-off written to one SQLite file. It holds one bucket of links at a time.
3. The rows stage looks up the keys of one unit at a time (:class:`QdmPlan`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from wikiformer_kit.dataset_scripts.tasks.see_also_join import _write_parts, crc32_of, lookup_buckets, read_part

LINK_SCHEMA = pa.schema([("key", pa.string()), ("target", pa.string()), ("rank", pa.int64())])
LINKS_PER_BUCKET = 500_000
"""Corpus links per plan bucket: a bucket built column by column (:func:`plan_entries`) stays near 30 MB."""
MAX_BUCKETS = 4096
RESOLVE_AT_ONCE = 50_000
"""Distinct targets of a plan bucket resolved at a time (their titles as Python strings)."""


def plan_bucket_count(links: int) -> int:
    """The number of plan buckets for a corpus of ``links`` links (1 for a small one)."""
    return int(min(MAX_BUCKETS, max(1, -(-links // LINKS_PER_BUCKET))))


def write_link_parts(
    keys: Sequence[str],
    targets: Sequence[str],
    ranks: Sequence[int],
    buckets: int,
    path: Path,
    key_crcs: np.ndarray | None = None,
):
    """A unit's links ``(key, target, rank)`` cut into ``buckets`` record batches by the key's bucket
    (``key_crcs``: the keys' CRC-32s when already computed, :func:`.see_also_join.crc32_of`)."""
    table = pa.table(
        {"key": list(keys), "target": list(targets), "rank": pa.array(ranks, pa.int64())}, schema=LINK_SCHEMA
    )
    if buckets == 1:
        bucket = np.zeros(len(keys), dtype=np.int64)
    else:
        crcs = crc32_of(keys) if key_crcs is None else np.asarray(key_crcs, dtype=np.uint64)
        bucket = (crcs % np.uint64(buckets)).astype(np.int64)
    _write_parts(table, bucket, buckets, path)


def build_plan_bucket(
    bucket: int,
    buckets: int,
    parts: Sequence[Path],
    resolve,
    eligible: np.ndarray,
    max_pairs: int,
    db: Path,
) -> int:
    """Write bucket ``bucket`` of the plan as a SQLite file ``db``: ``plan(key, destinations, cutoff)`` for the
    keys linking to 2+ usable destinations (``destinations``: their rows, sorted, comma-separated; ``cutoff``: the
    ``max_pairs``-th lowest rank of their usable occurrences). ``resolve`` maps target titles to rows (``None``:
    missing); ``eligible`` flags the usable destination rows. Returns the number of planned keys."""
    table = pa.Table.from_batches([read_part(p, bucket, buckets) for p in parts], schema=LINK_SCHEMA)
    plan = plan_entries(table, resolve, eligible, max_pairs)
    connection = sqlite3.connect(db)
    try:
        connection.executescript(
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
            "CREATE TABLE plan (key TEXT PRIMARY KEY, destinations TEXT NOT NULL, cutoff INTEGER NOT NULL) "
            "WITHOUT ROWID;"
        )
        connection.executemany("INSERT INTO plan VALUES (?, ?, ?)", plan)
        connection.commit()
    finally:
        connection.close()
    return len(plan)


def plan_entries(links: pa.Table, resolve, eligible: np.ndarray, max_pairs: int) -> list[tuple[str, str, int]]:
    """``(key, destinations, cutoff)`` of :func:`build_plan_bucket`, by key, from a bucket's links
    (``LINK_SCHEMA``). Column by column: a Python object is made per distinct target (resolved
    ``RESOLVE_AT_ONCE`` at a time) and per planned key, not per link, so a bucket's memory is a few
    dozen bytes a link."""
    if not links.num_rows:
        return []
    targets = links.column("target").combine_chunks()
    distinct = pc.unique(targets)
    target_rows = np.full(len(distinct), -1, dtype=np.int64)
    for start in range(0, len(distinct), RESOLVE_AT_ONCE):
        found = resolve(distinct.slice(start, RESOLVE_AT_ONCE).to_pylist())
        target_rows[start : start + len(found)] = [-1 if row is None else row for row in found]
    row = target_rows[pc.index_in(targets, value_set=distinct).to_numpy()]
    usable = row >= 0
    usable[usable] = eligible[row[usable]]
    keys = links.column("key").combine_chunks().dictionary_encode()
    code = keys.indices.to_numpy()[usable].astype(np.int64)
    row, rank = row[usable], links.column("rank").to_numpy()[usable]
    if not len(code):
        return []
    # the cut-off: each key's max_pairs-th lowest rank of its usable occurrences (its highest when fewer)
    order = np.lexsort((rank, code))
    by_key, rank = code[order], rank[order]
    first = np.flatnonzero(np.r_[True, by_key[1:] != by_key[:-1]])
    cutoff = np.zeros(len(keys.dictionary), dtype=np.int64)
    cutoff[by_key[first]] = rank[first + np.minimum(np.diff(np.r_[first, len(by_key)]), max_pairs) - 1]
    # the distinct destinations of each key, sorted; the keys with two or more planned
    base = int(row.max()) + 1
    pairs = np.unique(code * base + row)
    pair_key, pair_row = pairs // base, pairs % base
    first = np.flatnonzero(np.r_[True, pair_key[1:] != pair_key[:-1]])
    stops = np.r_[first[1:], len(pairs)]
    ambiguous = np.flatnonzero(stops - first >= 2)
    planned = pair_key[first[ambiguous]]
    names = keys.dictionary.take(pa.array(planned)).to_pylist()
    plan = [
        (name, ",".join(map(str, pair_row[first[i] : stops[i]].tolist())), key_cutoff)
        for name, i, key_cutoff in zip(names, ambiguous.tolist(), cutoff[planned].tolist(), strict=True)
    ]
    plan.sort()
    return plan


class QdmPlan:
    """The plan's entries for given anchor keys, read from the bucket files (one open at a time).

    Args:
        bucket_files: the SQLite file of each bucket, bucket ``b`` at position ``b``.
    """

    def __init__(self, bucket_files: Sequence[Path]):
        self.bucket_files = [Path(p) for p in bucket_files]

    def lookup(self, keys: Iterable[str]) -> dict[str, tuple[list[int], int]]:
        """``key -> (destination rows, rank cut-off)`` for the given keys that are in the plan (ambiguous)."""
        select = "SELECT key, destinations, cutoff FROM plan WHERE key"
        return {
            key: ([int(r) for r in rows.split(",")], cutoff)
            for key, rows, cutoff in lookup_buckets(self.bucket_files, keys, select)
        }
