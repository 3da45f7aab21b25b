"""CPU seconds per 1,000 articles of the HARP part of the baselines' stage 1 (passage index, link records, title
and QDM link parts), in-process, no start-up, against another checkout of the code on the same corpus, rounds
interleaved::

    git archive REV dataset_scripts | tar -x -C /tmp/old
    python bench/harp_stage_one_cpu.py --corpus CORPUS_DIR --baseline-tree /tmp/old [--units 2] [--rounds 3]

``CORPUS_DIR`` is a built corpus (``python -m dataset_scripts.corpus``, or ``bench/copy_corpus.py`` copies). Each
round runs each tree in a fresh process over the first ``--units`` units (all with ``--units 0``); the table gives
every round and the least CPU of each tree (the machine may be shared: CPU time, not wall time).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MEASURE = """
import json, sys, tempfile, time
from pathlib import Path
from wikiformer_kit.dataset_scripts.tasks.anchors import HarpOptions
from wikiformer_kit.dataset_scripts.tasks.attention import load_passage_tokenizer
from wikiformer_kit.dataset_scripts.tasks.baseline_steps import CorpusStatsStep, _columns
from wikiformer_kit.dataset_scripts.tasks.corpus_units import corpus_files, plan_units, read_unit_table
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.prop import PropOptions

corpus, count = Path(sys.argv[1]), int(sys.argv[2])
data, redirects = corpus_files(corpus)
units = plan_units(data, 1000)
units = units[:count] if count else units
tasks = ("rqp", "qdm", "rdp", "acm")
arguments = (tempfile.mkdtemp(), units, tasks, TaskOptions(), PropOptions(), HarpOptions())
try:
    step = CorpusStatsStep(*arguments, redirects)
except TypeError:  # code from before the title join took the redirects in stage 1
    step = CorpusStatsStep(*arguments)
tokenizer = load_passage_tokenizer("embedded:minilm")
tables = [read_unit_table(unit, _columns(tasks)) for unit in units]
cpu = time.process_time()
for unit, table in zip(units, tables):
    step._harp(unit, table, tokenizer)
cpu = time.process_time() - cpu
print(json.dumps({"articles": sum(t.num_rows for t in tables), "units": len(units), "cpu": cpu}))
"""


def measure(tree: Path, corpus: Path, units: int) -> dict:
    """One run of the HARP part of stage 1 with the code of ``tree``."""
    command = [sys.executable, "-c", MEASURE, str(corpus.resolve()), str(units)]
    result = subprocess.run(command, cwd=tree, check=True, capture_output=True, text=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, help="a built corpus folder")
    parser.add_argument("--baseline-tree", type=Path, default=None, help="another checkout to compare with")
    parser.add_argument("--units", type=int, default=2, help="units measured (0: all)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    trees = {"this tree": ROOT} | ({"baseline tree": args.baseline_tree.resolve()} if args.baseline_tree else {})
    per_1000: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            result = measure(tree, args.corpus, args.units)
            per_1000[name].append(1000 * result["cpu"] / result["articles"])
    print(f"{args.corpus.name}: {result['articles']:,} articles in {result['units']} units, {args.rounds} rounds\n")
    print("| code | CPU s per 1,000 articles, each round | least |\n|---|---|---:|")
    for name, values in per_1000.items():
        print(f"| {name} | {', '.join(f'{v:.2f}' for v in values)} | {min(values):.2f} |")


if __name__ == "__main__":
    main()
