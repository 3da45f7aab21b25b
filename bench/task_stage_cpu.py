"""CPU seconds per article of the task stage alone (SRR/RWI/ATI + LTM index, then LTM), in-process, no start-up,
against an earlier revision of the code on the same corpus, rounds interleaved.

    python bench/task_stage_cpu.py CORPUS_DIR [--baseline-rev a6c0b58] [--rounds 3]

``CORPUS_DIR`` is a built corpus (``python -m dataset_scripts.corpus``, e.g. of ``bench/big_dump.py --articles 500``).
The baseline is the ``dataset_scripts`` folder of that git revision, extracted with ``git archive``. CPU time, not
wall time: on a shared machine the neighbours change the wall time, much less the CPU time.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(corpus: Path, out: Path) -> str:
    """Run both task stages over ``corpus`` into ``out`` in this process; one line with the CPU seconds."""
    from wikiformer_kit.dataset_scripts.tasks.corpus_units import corpus_files, plan_units
    from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions

    try:
        steps = importlib.import_module("wikiformer_kit.dataset_scripts.tasks.steps")
    except ImportError:  # revisions before the rename
        steps = importlib.import_module("wikiformer_kit.dataset_scripts.tasks.pipeline")
    data, redirects = corpus_files(corpus)
    units = plan_units(data, 100)
    tasks, options = ("srr", "rwi", "ati", "ltm"), TaskOptions()
    if hasattr(steps, "SeeAlsoJoinStep"):  # the See also title join on disk (its own stage)
        from wikiformer_kit.dataset_scripts.tasks.see_also_join import bucket_count

        buckets = bucket_count(sum(u.stop - u.start for u in units))
        first = steps.ArticleTasksStep(out, units, tasks, options, redirects, buckets)
        join = steps.SeeAlsoJoinStep(out, units, len(redirects), buckets)
        second = [join, steps.LtmStep(out, units, options, buckets)]
    else:  # revisions resolving titles in memory
        first = steps.ArticleTasksStep(out, units, tasks, options)
        second = [steps.LtmStep(out, units, redirects, options)]
    start = time.process_time()
    list(first.run())
    middle = time.process_time()
    for step in second:
        list(step.run())
    end = time.process_time()
    n = sum(u.stop - u.start for u in units)
    return f"{n} articles: stage 1 {middle - start:.2f} CPU s, LTM {end - middle:.2f} CPU s, {n / (end - start):.0f} articles per CPU s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--baseline-rev", default="a6c0b58", help="git revision to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", type=Path, help=argparse.SUPPRESS)  # internal: measure into this folder and exit
    args = parser.parse_args()
    if args.only:
        print(measure(args.corpus.resolve(), args.only))
        return
    work = Path(tempfile.mkdtemp(prefix="task-cpu-"))
    try:
        baseline = work / "baseline"
        baseline.mkdir()
        archive = subprocess.run(["git", "archive", args.baseline_rev, "dataset_scripts"], cwd=ROOT, capture_output=True, check=True)  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(baseline)], input=archive.stdout, check=True)
        for round_number in range(1, args.rounds + 1):
            for name, path in ((args.baseline_rev, baseline), ("this tree", ROOT)):
                out = work / "out"
                shutil.rmtree(out, ignore_errors=True)
                env = {**os.environ, "PYTHONPATH": str(path)}
                command = [sys.executable, __file__, str(args.corpus.resolve()), "--only", str(out)]
                result = subprocess.run(command, env=env, cwd=work, capture_output=True, text=True, check=True)
                print(f"round {round_number}, {name}: {result.stdout.strip().splitlines()[-1]}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
