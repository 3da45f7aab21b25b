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

from .see_also_join import _write_parts, crc32_of, lookup_buckets, read_part

LINK_SCHEMA = pa.schema([("key", pa.string()), ("target", pa.string()), ("rank", pa.int64())])
LINKS_PER_BUCKET = 500_000
"""Corpus links per plan bucket: a bucket's keys, targets and ranks as Python objects stay near 100 MB."""
MAX_BUCKETS = 4096


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
    keys, targets, ranks = (table.column(name).to_pylist() for name in ("key", "target", "rank"))
    destinations: dict[str, set[int]] = {}
    occurrences: dict[str, list[int]] = {}
    for key, row, rank in zip(keys, resolve_unique(resolve, targets), ranks, strict=True):
        if row is not None and eligible[row]:
            destinations.setdefault(key, set()).add(row)
            occurrences.setdefault(key, []).append(rank)
    plan = [
        (key, ",".join(map(str, sorted(rows))), sorted(occurrences[key])[:max_pairs][-1])
        for key, rows in sorted(destinations.items())
        if len(rows) >= 2
    ]
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


def resolve_unique(resolve, titles: Sequence[str]) -> list:
    """``resolve(titles)`` with each distinct title resolved once (links name the same pages again and again)."""
    unique = list(dict.fromkeys(titles))
    if len(unique) == len(titles):
        return resolve(unique)
    rows = dict(zip(unique, resolve(unique), strict=True))
    return [rows[title] for title in titles]


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
