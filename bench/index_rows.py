"""Reading rows spread over many index shards: ``ArticleIndex.rows`` against a take per shard, in the same run.

A unit's destinations (HARP) and negatives (LTM) lie in most shards of a large corpus's passage index, a few rows
in each. The peer is what ``rows`` did before: per shard touched, select the three columns, take the rows and
convert them, then unmap the shard's pages. Both read the same bytes and unmap the same pages::

    python bench/index_rows.py --shards 3000 --rows-per-shard 40 --rows 2000 --calls 5 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from wikiformer_kit.dataset_scripts.tasks.see_also_graph import INDEX_SCHEMA, ArticleIndex, write_index  # noqa: E402


def write_shards(folder: Path, shards: int, rows_per_shard: int, seed: int = 1) -> list[Path]:
    """Index shards of ``rows_per_shard`` rows with texts of 20-200 words."""
    rng, files = random.Random(seed), []
    for shard in range(shards):
        rows = range(rows_per_shard)
        table = pa.table(
            {
                "title": [f"t{shard}-{row}" for row in rows],
                "article_id": [f"{shard}-{row}" for row in rows],
                "display_title": [f"T{shard}-{row}" for row in rows],
                "text": ["word " * rng.randrange(20, 200) for _ in rows],
                "eligible": [True for _ in rows],
            },
            schema=INDEX_SCHEMA,
        )
        files.append(folder / f"{shard:05d}.arrow")
        write_index(table, files[-1])
    return files


def take_per_shard(index: ArticleIndex, rows) -> dict[int, tuple[str, str, str]]:
    """The peer: one select, take and conversion per shard touched, then its pages unmapped."""
    unique = np.unique(np.asarray(list(rows), dtype=np.int64))
    shard_of = np.searchsorted(index.offsets, unique, side="right") - 1
    found: dict[int, tuple[str, str, str]] = {}
    for shard in np.unique(shard_of):
        wanted = unique[shard_of == shard]
        local = pa.array(wanted - index.offsets[shard], type=pa.int64())
        taken = index._shards[shard].select(["article_id", "display_title", "text"]).take(local)
        columns = [taken.column(c).to_pylist() for c in taken.column_names]
        found.update(zip(wanted.tolist(), zip(*columns, strict=True), strict=True))
        index._release(index._maps[shard])
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shards", type=int, default=3000)
    parser.add_argument("--rows-per-shard", type=int, default=40)
    parser.add_argument("--rows", type=int, default=2000, help="rows a call reads, drawn uniformly")
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3, help="the least CPU of this many passes is kept")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        index = ArticleIndex(write_shards(Path(folder), args.shards, args.rows_per_shard))
        rng = random.Random(2)
        calls = [[rng.randrange(len(index)) for _ in range(args.rows)] for _ in range(args.calls)]
        assert all(index.rows(c) == take_per_shard(index, c) for c in calls[:2])
        least = {"rows": float("inf"), "take per shard": float("inf")}
        for _ in range(args.repeats):  # interleaved
            for name, read in (("rows", index.rows), ("take per shard", lambda c: take_per_shard(index, c))):
                started = time.process_time()
                for call in calls:
                    read(call)
                least[name] = min(least[name], time.process_time() - started)
    result = {
        "shards": args.shards,
        "rows_per_call": args.rows,
        "cpu_ms_per_call": {name: round(seconds / args.calls * 1000, 1) for name, seconds in least.items()},
        "speed_up": round(least["take per shard"] / least["rows"], 2),
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
