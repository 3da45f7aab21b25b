"""Articles read twice (the same page id, or title, in one language): the first in input order is kept, each later
one is a counted skip naming its file and the file of the one kept (``docs/reliability.md``).

The tasks of a build read their shards apart, so a record repeated across shards is only seen once they are done:
:func:`drop_duplicates` then reads the keys every task recorded of its articles (:data:`.steps.KEY_SCHEMA`: small,
never the articles themselves), orders them as the input holds them (:func:`.steps.input_group`) and takes the
later copies out of the tasks' files. The kept rows, the skips and the statistics are therefore the same whatever
``--num-proc``. Templates counted while a copy was parsed stay counted (they were parsed).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats.base import Skipped
from wikiformer_kit.dataset_scripts.corpus.steps import (
    KEY_SCHEMA,
    ROWS_PER_BATCH,
    SKIPPED_SCHEMA,
    TITLES_NOT_UNIQUE,
    count_article,
    keys_file,
    write_json_atomically,
)

_SEPARATOR = "\x1f"


def drop_duplicates(output_dir: str | Path) -> Counter:
    """Take the later copies of every article out of a built corpus folder's task files (``data/``, its keys, with
    a ``skipped/`` row and the statistics in ``stats/`` of each), keeping the first in input order; returns the
    skips by reason. A folder without duplicates is only read (its keys)."""
    output_dir = Path(output_dir)
    ranks = sorted(int(path.stem) for path in (output_dir / "data").glob("[0-9]*.parquet") if path.stem.isdigit())
    if not ranks:
        return Counter()
    keys = pa.concat_tables([_task_keys(output_dir, rank) for rank in ranks])
    dropped = _later_copies(keys)
    by_rank: dict[int, dict[int, Skipped]] = {}
    for (rank, row), skipped in dropped.items():
        by_rank.setdefault(rank, {})[row] = skipped
    for rank, rows in sorted(by_rank.items()):
        _drop_rows(output_dir, rank, rows)
    return Counter(skipped.reason for skipped in dropped.values())


def _task_keys(output_dir: Path, rank: int) -> pa.Table:
    """A task's keys with its rank and each row's number; read from its data file where the keys file is missing
    or does not match it (a task written before keys were recorded), in the order of its rows."""
    data = output_dir / "data" / f"{rank:05d}.parquet"
    rows = pq.ParquetFile(data).metadata.num_rows
    ranks, numbers = pa.array([rank] * rows, pa.int64()), pa.array(range(rows), pa.int64())
    path = keys_file(output_dir, rank)
    keys = pq.read_table(path, schema=KEY_SCHEMA) if path.exists() else None
    if keys is None or keys.num_rows != rows:
        columns = pq.read_table(data, columns=["language", "id", "title", "source"])
        unique = pc.invert(pc.is_in(columns["source"], pa.array(sorted(TITLES_NOT_UNIQUE), pa.string())))
        keys = pa.table(
            {
                "language": columns["language"],
                "id": columns["id"],
                "title": pc.if_else(unique, columns["title"], ""),
                "group": ranks,
                "position": numbers,
                "file": pa.array([""] * rows, pa.string()),
            },
            schema=KEY_SCHEMA,
        )
    return keys.append_column("rank", ranks).append_column("row", numbers)


def _repeated(values: pa.ChunkedArray) -> pa.Array:
    """The values that occur more than once (empty ones never count: no id, or a title not checked)."""
    counts = pc.value_counts(values.filter(pc.not_equal(pc.utf8_length(values), 0)))
    return counts.field("values").filter(pc.greater(counts.field("counts"), 1))


def _later_copies(keys: pa.Table) -> dict[tuple[int, int], Skipped]:
    """The ``(rank, row)`` of each article that repeats an earlier one's id or title (in the same language), with
    its skip. Only the rows whose id or title occurs more than once are read into Python."""
    ids = pc.binary_join_element_wise(keys["language"], keys["id"], _SEPARATOR)
    titles = pc.binary_join_element_wise(keys["language"], keys["title"], _SEPARATOR)
    repeated_ids, repeated_titles = _repeated(ids), _repeated(titles)
    if not len(repeated_ids) and not len(repeated_titles):
        return {}
    involved = pc.or_(pc.is_in(ids, repeated_ids), pc.is_in(titles, repeated_titles))
    candidates = keys.filter(involved).to_pylist()
    candidates.sort(key=lambda key: (key["group"], key["position"], key["rank"], key["row"]))
    first_id: dict[tuple[str, str], dict] = {}
    first_title: dict[tuple[str, str], dict] = {}
    dropped: dict[tuple[int, int], Skipped] = {}
    for key in candidates:
        id_key, title_key = (key["language"], key["id"]), (key["language"], key["title"])
        if key["id"] and id_key in first_id:
            dropped[key["rank"], key["row"]] = _skip(key, "duplicate-id", f"page id {key['id']}", first_id[id_key])
        elif key["title"] and title_key in first_title:
            dropped[key["rank"], key["row"]] = _skip(
                key, "duplicate-title", f"title {key['title']!r}", first_title[title_key]
            )
        else:
            first_id.setdefault(id_key, key)
            first_title.setdefault(title_key, key)
    return dropped


def _skip(key: dict, reason: str, what: str, first: dict) -> Skipped:
    """The skip of a later copy (``key``) of the article ``first``, naming both files."""
    where = f" from {first['file']}" if first["file"] else ""
    also = f" as page id {first['id']}" if reason == "duplicate-title" else ""
    return Skipped(
        reason,
        key["file"],
        f"{key['id']} ({key['title']})" if key["title"] else key["id"],
        f"{what} ({key['language']}) already read{where}{also}: the first one is kept",
    )


def _drop_rows(output_dir: Path, rank: int, rows: dict[int, Skipped]) -> None:
    """Take ``rows`` out of task ``rank``'s data and keys files, add their skips to its ``skipped/`` file and take
    them out of its statistics (each file replaced whole, atomically)."""
    stats, held = _filter_data(output_dir / "data" / f"{rank:05d}.parquet", rows)
    keys = keys_file(output_dir, rank)
    if keys.exists():
        table = pq.read_table(keys, schema=KEY_SCHEMA)
        if table.num_rows == held:
            _write_parquet(keys, table.filter(pa.array([row not in rows for row in range(held)])))
        else:
            keys.unlink()  # it did not match the data file (read from the data file instead): so next time too
    skipped = output_dir / "skipped" / f"{rank:05d}.parquet"
    added = pa.Table.from_pylist([vars(rows[row]) for row in sorted(rows)], schema=SKIPPED_SCHEMA)
    earlier = pq.read_table(skipped, schema=SKIPPED_SCHEMA) if skipped.exists() else None
    _write_parquet(skipped, pa.concat_tables([earlier, added]) if earlier is not None else added)
    stats_path = output_dir / "stats" / f"{rank:05d}.json"
    counts = Counter(json.loads(stats_path.read_text())) if stats_path.exists() else Counter()
    counts.subtract(stats)
    counts.update(Counter(f"skipped:{skip.reason}" for skip in rows.values()))
    write_json_atomically(stats_path, dict(counts))


def _filter_data(path: Path, rows: dict[int, Skipped]) -> tuple[Counter, int]:
    """Rewrite a task's data file without ``rows``, a row group at a time (a task's file may hold a large part of
    the corpus); the statistics of the rows taken out, and the rows the file held."""
    stats: Counter = Counter()
    parquet = pq.ParquetFile(path)
    start = 0

    def write(tmp: Path) -> None:
        nonlocal start
        with pq.ParquetWriter(tmp, parquet.schema_arrow, compression="zstd") as writer:
            for group in range(parquet.num_row_groups):
                table = parquet.read_row_group(group)
                keep = pa.array([start + row not in rows for row in range(table.num_rows)])
                for row in table.filter(pc.invert(keep)).to_pylist():
                    count_article(stats, Article.from_dict(row))
                start += table.num_rows
                kept = table.filter(keep)
                if kept.num_rows:
                    writer.write_table(kept)

    atomic_write(path, write)
    return stats, start


def _write_parquet(path: Path, table: pa.Table) -> None:
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression="zstd", row_group_size=ROWS_PER_BATCH))
