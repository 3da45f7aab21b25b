"""Memory and start-up time of ``train.py`` as the task datasets grow: 1x, 10x and 100x the vendored sample.

The four task datasets are built from the vendored enwiki sample (``data/samples/wikipedia``) by
``dataset_scripts.build``; each scale repeats every task's rows N times into a Parquet folder (the shape
``dataset_scripts.build`` writes and the Hub serves). For each scale ``train.py`` runs twice in a fresh process
with an empty datasets cache: cold (Parquet converted to Arrow, rows checked, both cached) and warm (the cache
found). Measured for the whole process tree (train.py and any dataloader workers), sampled every 20 ms:

- peak RSS, and peak anonymous RSS (``RssAnon``: memory that is the process's own; memory-mapped Arrow pages are
  counted in RSS but are shared between ranks and workers and given back under pressure);
- start-up: from launch to the first logged training step (``--logging_steps 1``; one step of a tiny batch).

Also printed: the Arrow bytes per group of each task and, from the sample's groups per article, what a full English
Wikipedia build needs on disk and in memory.

Run: ``python -m wikiformer_kit.benchmarks.train_memory`` (CPU, ~10 minutes on 2 cores); ``--scales 1 10 100 --device cuda`` on a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

from wikiformer_kit.benchmarks.common import TASKS, build_task_datasets, python_module, table_head
from wikiformer_kit.benchmarks.memory_sampler import TreeSampler

ENWIKI_ARTICLES = 6_900_000  # English Wikipedia articles (namespace 0, without redirects), 2024-2025


def write_scaled(source: Path, target: Path, times: int) -> int:
    """Write ``source``'s rows ``times`` times over as ``target/data/train.parquet``; returns the row count."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from datasets import load_dataset

    table = load_dataset(str(source), split="train").data.table
    target.mkdir(parents=True, exist_ok=True)
    (target / "data").mkdir(exist_ok=True)
    with pq.ParquetWriter(target / "data" / "train.parquet", table.schema) as writer:
        for start in range(0, times, 10):
            writer.write_table(pa.concat_tables([table] * min(10, times - start)))
    return table.num_rows * times


def run_measured(command: list[str], env: dict[str, str]) -> dict:
    """Run ``command``; peak RSS and anonymous RSS of its process tree, and seconds to the first logged step."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    sampler = TreeSampler(process.pid, interval=0.02).start()
    first_step, lines = None, []
    for line in process.stdout:
        lines.append(line)
        if first_step is None and re.search(r"'loss': ", line):
            first_step = time.perf_counter() - start
    process.wait()
    sampler.stop()
    if process.returncode:
        raise SystemExit(f"train.py failed ({process.returncode}):\n{''.join(lines[-40:])}")
    return {"peak_rss": sampler.peaks["tree_rss"], "peak_anon": sampler.peaks["tree_anon"], "startup_s": first_step}


def arrow_bytes(cache: Path) -> int:
    """Bytes of the Arrow tables ``datasets`` wrote for the train split (cache files of filters not included)."""
    return sum(path.stat().st_size for path in cache.rglob("*-train*.arrow"))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    parser.add_argument("--workers", type=int, default=0, help="dataloader workers (their memory is counted too)")
    parser.add_argument("--work-dir", type=Path, default=None, help="default: a temporary folder")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="wikiformer-memory-"))
    tasks = build_task_datasets(work / "tasks", tasks=TASKS)
    results = {}
    for scale in args.scales:
        folder = work / f"x{scale}"
        groups = {
            name: write_scaled(tasks / f"wikiformer-{name}", folder / f"wikiformer-{name}", scale) for name in TASKS
        }
        env = {key: value for key, value in os.environ.items() if not key.startswith("HF_")}
        env.update(HF_HOME=str(folder / "hf_home"), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
        command = python_module(
            "wikiformer_kit.train", "--train_datasets", *[folder / f"wikiformer-{n}" for n in TASKS]
        )
        command += ["--query_max_lengths", *"16 16 16 32".split(), "--doc_max_lengths", *"48 48 48 32".split()]
        command += ["--output_dir", str(folder / "run"), "--dataloader_num_workers", str(args.workers)]
        command += "--max_steps 2 --per_device_train_batch_size 4 --group_size 4 --logging_steps 1".split()
        command += "--save_strategy no --report_to none --disable_tqdm true".split()
        command += ["--use_cpu", "true"] if args.device == "cpu" else []
        cold = run_measured(command, env)
        warm = run_measured(command, env)
        cache_bytes = arrow_bytes(folder / "hf_home" / "datasets")
        results[scale] = {"groups": groups, "arrow_bytes": cache_bytes, "cold": cold, "warm": warm}
        print(f"x{scale}: {sum(groups.values()):,} groups, {json.dumps(results[scale])}", flush=True)
    base = results[args.scales[0]]
    print("\n" + table_head("scale", "groups", "Arrow MB", "peak RSS MB (cold / warm)", "peak anon MB (cold / warm)",
                            "start-up s (cold / warm)", right=(1, 2)))  # fmt: skip
    for scale, result in results.items():
        cold, warm = result["cold"], result["warm"]
        print(
            f"| {scale}x | {sum(result['groups'].values()):,} | {result['arrow_bytes'] / 1e6:.1f} | "
            f"{cold['peak_rss'] / 2**20:.0f} / {warm['peak_rss'] / 2**20:.0f} | "
            f"{cold['peak_anon'] / 2**20:.0f} / {warm['peak_anon'] / 2**20:.0f} | "
            f"{cold['startup_s']:.1f} / {warm['startup_s']:.1f} |"
        )
    last = results[args.scales[-1]]
    for key in ("peak_rss", "peak_anon", "startup_s"):
        print(
            f"{args.scales[-1]}x vs {args.scales[0]}x, {key}: cold {last['cold'][key] / base['cold'][key]:.2f}x, "
            f"warm {last['warm'][key] / base['warm'][key]:.2f}x"
        )
    per_group = base["arrow_bytes"] / sum(base["groups"].values())
    articles = 106  # the vendored sample
    groups_per_article = sum(base["groups"].values()) / (articles * args.scales[0])
    full_groups = groups_per_article * ENWIKI_ARTICLES
    print(
        f"\nArrow bytes per group (all four tasks): {per_group:,.0f}; the sample has {groups_per_article:.1f} groups "
        f"per article, so English Wikipedia ({ENWIKI_ARTICLES:,} articles) gives ~{full_groups / 1e6:.0f}M groups, "
        f"~{full_groups * per_group / 1e9:.0f} GB of Arrow cache (plus the Parquet, ~1/3 of that, and 9 bytes a "
        f"row of check caches), and per rank ~{full_groups * 4 / 2**20:.0f} MiB for the sampler's row orders."
    )
    summary = {"scales": results, "bytes_per_group": per_group, "groups_per_article": groups_per_article}
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
