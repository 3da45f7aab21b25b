"""WIKIR build throughput against the corpus build it starts from, on the same real dump, in one run.

    python -m wikiformer_kit.benchmarks.wikir_throughput [--repeat 16] [--rounds 3] [--num-proc 1]

Method: docs/benchmarks.md ("How each benchmark measures", ``wikir_throughput``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
from pathlib import Path

from wikiformer_kit.benchmarks.common import ENWIKI_SAMPLE, python_module, run_measured, table_head
from wikiformer_kit.benchmarks.corpus_throughput import repeated_dump


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--num-proc", type=int, default=1)
    args = parser.parse_args()
    rows, ratios = [], []
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        dump = repeated_dump(ENWIKI_SAMPLE, args.repeat, scratch)
        for number in range(1, args.rounds + 1):
            corpus, wikir = scratch / "corpus", scratch / "wikir"
            shutil.rmtree(corpus, ignore_errors=True)
            shutil.rmtree(wikir, ignore_errors=True)
            proc = ["--num-proc", args.num_proc]
            build = run_measured(
                python_module("wikiformer_kit.dataset_scripts.corpus", *dump, "--output-dir", corpus, *proc)
            )
            wikir_build = run_measured(
                python_module("wikiformer_kit.dataset_scripts.wikir", "--input", corpus, "--output-dir", wikir, *proc)
            )
            articles = json.loads((corpus / "build_stats.json").read_text())["statistics"]["articles"]
            summary = json.loads((wikir / ".build" / "summary.json").read_text())
            ratio = build.seconds / wikir_build.seconds
            ratios.append(ratio)
            rows.append(
                f"| {number} | {articles:,} | {articles / build.seconds:.1f} ({build.cpu:.1f} CPU s) | "
                f"{articles / wikir_build.seconds:.1f} ({wikir_build.cpu:.1f} CPU s) | {ratio:.2f}x | "
                f"{sum(summary['queries'].values()):,} |"
            )
    print(f"sample x{args.repeat}, --num-proc {args.num_proc}, {args.rounds} rounds")
    columns = ("corpus build articles/s", "WIKIR from the corpus articles/s", "WIKIR / corpus", "queries")
    print(table_head("round", "articles", *columns, right=5))
    print("\n".join(rows))
    print(f"median WIKIR / corpus: {statistics.median(ratios):.2f}x (min {min(ratios):.2f}x, max {max(ratios):.2f}x)")


if __name__ == "__main__":
    main()
