"""Memory of resolving See also targets: the in-memory index (every title and redirect in each process) against
the partitioned title join on disk, as the corpus grows past what the sample dumps reach.

    python -m wikiformer_kit.benchmarks.see_also_join_memory [--titles 100000 1000000 3000000] [--targets 20000]

Method: docs/benchmarks.md ("How each benchmark measures", ``see_also_join_memory``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from wikiformer_kit.benchmarks.common import run_child, table_head
from wikiformer_kit.benchmarks.memory_sampler import added_peak

SHARD_ROWS = 10_000


def write_corpus(folder: Path, titles: int) -> dict:
    """Index shards, a redirect file, the join's parts and buckets for ``titles`` articles; returns the paths."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from wikiformer_kit.dataset_scripts.tasks.see_also_graph import INDEX_SCHEMA, write_index
    from wikiformer_kit.dataset_scripts.tasks.see_also_join import (
        bucket_count,
        build_bucket,
        write_redirect_parts,
        write_title_parts,
    )

    buckets = bucket_count(titles)
    index_files, title_parts = [], []
    for first in range(0, titles, SHARD_ROWS):
        names = [f"Article {i}" for i in range(first, min(titles, first + SHARD_ROWS))]
        table = pa.table(
            {
                "title": names,
                "article_id": [str(first + i) for i in range(len(names))],
                "display_title": names,
                "text": ["text"] * len(names),
                "eligible": [True] * len(names),
            },
            schema=INDEX_SCHEMA,
        )
        index_files.append(folder / f"index-{first:09d}.arrow")
        write_index(table, index_files[-1])
        title_parts.append(folder / f"titles-{first:09d}.arrow")
        write_title_parts(table.column("title"), first, buckets, title_parts[-1])
    redirects = folder / "redirects.parquet"
    pq.write_table(
        pa.table({"source": [f"Alias {i}" for i in range(titles)], "target": [f"Article {i}" for i in range(titles)]}),
        redirects,
    )
    write_redirect_parts(redirects, buckets, folder / "redirect-parts.arrow")
    start = time.perf_counter()
    bucket_files = [folder / f"bucket-{b:05d}.sqlite" for b in range(buckets)]
    for bucket, path in enumerate(bucket_files):
        build_bucket(bucket, buckets, title_parts, [folder / "redirect-parts.arrow"], path)
    return {
        "titles": titles,
        "buckets": buckets,
        "index_files": [str(p) for p in index_files],
        "title_parts": [str(p) for p in title_parts],
        "redirects": str(redirects),
        "redirect_parts": [str(folder / "redirect-parts.arrow")],
        "bucket_files": [str(p) for p in bucket_files],
        "build_s": time.perf_counter() - start,
        "bucket_mib": max(p.stat().st_size for p in bucket_files) / 2**20,
    }


def child(kind: str, corpus: dict, targets: int) -> None:
    """One measurement in this process: prints ``{"added_mib", "s"}``."""
    import random

    from wikiformer_kit.dataset_scripts.tasks.see_also_graph import ArticleIndex
    from wikiformer_kit.dataset_scripts.tasks.see_also_join import TitleJoin, build_bucket

    rng = random.Random(0)
    n = corpus["titles"]
    names = [f"Article {rng.randrange(n)}" for _ in range(targets // 3)]
    names += [f"alias_{rng.randrange(n)}" for _ in range(targets // 3)] + [f"Missing {i}" for i in range(targets // 3)]
    with added_peak("rss", interval=0.005) as added:
        start = time.perf_counter()
        if kind == "in-memory":
            rows = ArticleIndex(corpus["index_files"], [corpus["redirects"]]).resolve(names)
        elif kind == "join":
            ArticleIndex(corpus["index_files"])  # what LTM holds besides the join: the eligibility arrays
            rows = TitleJoin(corpus["bucket_files"]).resolve(names)
        else:  # building one bucket (all are the same size up to hashing noise)
            with tempfile.TemporaryDirectory() as tmp:
                parts = corpus["title_parts"], corpus["redirect_parts"]
                build_bucket(0, corpus["buckets"], *parts, Path(tmp) / "b.sqlite")
            rows = [0]
        seconds = time.perf_counter() - start
    assert kind == "build" or sum(r is not None for r in rows) == 2 * (targets // 3)
    print(json.dumps({"added_mib": added["bytes"] / 2**20, "s": seconds}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--titles", type=int, nargs="+", default=[100_000, 1_000_000, 3_000_000])
    parser.add_argument("--targets", type=int, default=20_000, help="See also targets resolved in one batch")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], json.loads(Path(args.child[1]).read_text()), args.targets)
        return
    print(table_head("articles (+ as many redirects)", "buckets", "in memory: added MiB", "s", "join: added MiB", "s",
                     "building one bucket: added MiB", "s", "bucket file MiB"))  # fmt: skip
    for titles in args.titles:
        with tempfile.TemporaryDirectory(prefix="join-memory-") as tmp:
            corpus = write_corpus(Path(tmp), titles)
            spec = Path(tmp) / "corpus.json"
            spec.write_text(json.dumps(corpus))
            figures = {
                kind: run_child(__spec__.name, "--child", kind, spec, "--targets", args.targets)
                for kind in ("in-memory", "join", "build")
            }
            cells = " | ".join(f"{figures[k]['added_mib']:.0f} | {figures[k]['s']:.1f}" for k in ("in-memory", "join", "build"))  # fmt: skip
            print(f"| {titles:,} | {corpus['buckets']} | {cells} | {corpus['bucket_mib']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
