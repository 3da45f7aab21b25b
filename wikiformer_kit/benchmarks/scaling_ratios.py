"""The two speed-ups of 2 processes over 1 that the build is held to, in one run, and the plan's prediction beside
the task stage's measured wall times.

    python -m wikiformer_kit.benchmarks.scaling_ratios [--copies 95] [--dump-articles 3000] [--parts 4] [--num-proc 1 2] [--rounds 3]
                                   [--dump-only | --tasks-only]

Method: docs/benchmarks.md ("How each benchmark measures", ``scaling_ratios``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from wikiformer_kit.benchmarks.big_dump import write_dump
from wikiformer_kit.benchmarks.build_throughput import measure
from wikiformer_kit.benchmarks.build_timeline import run as run_timeline
from wikiformer_kit.benchmarks.build_timeline import timeline
from wikiformer_kit.benchmarks.common import ENWIKI_SAMPLE, corpus_articles, python_module, table_head
from wikiformer_kit.benchmarks.copy_corpus import copy_corpus

BUILD = "wikiformer_kit.dataset_scripts.build"


def plan_seconds(corpus: Path, processes: list[int], work: Path) -> dict[int, float]:
    """The plan's predicted wall seconds of the task stage on ``corpus`` at each process count."""
    from wikiformer_kit.dataset_scripts.build_plan import PlanFigures, predict

    figures = work / "plan.json"
    command = python_module(BUILD, "--input", corpus, "--plan", "--plan-sample", 1000, "--plan-json", figures)
    subprocess.run(command, check=True, capture_output=True)
    measured = json.loads(figures.read_text())
    plan = PlanFigures.from_dict(measured)
    return {p: predict(plan, measured["articles"], p, corpus_stage=False).total for p in processes}


def timed(command: list[str], processes: int) -> dict[str, float]:
    """Wall and CPU seconds of a build, and its critical path (``benchmarks/build_timeline.py``: each stage's busiest
    process, the build process's part alone before it): the wall time on quiet cores, which a shared machine
    still measures."""
    seen, ends, start, end = run_timeline(command, 0.1)
    figures = timeline(seen, ends, start, end, processes)
    return {"s": figures["wall"], "cpu": figures["cpu"], "critical": figures["critical_path_cpu"]}


def interleaved(processes: list[int], rounds: int) -> list[tuple[int, int]]:
    """``(round, processes)`` in run order: every process count once a round, the order reversed every other round,
    so that a machine whose speed drifts during the bench slows neither side of a ratio more than the other."""
    order = []
    for round_ in range(rounds):
        order += [(round_, p) for p in (processes if round_ % 2 == 0 else processes[::-1])]
    return order


def ratios(results: dict[str, dict], kind: str, first: int, other: int, rounds: int, key: str = "s") -> list[float]:
    """Each round's ``first``-process figure over its ``other``-process one (wall seconds, or ``key``)."""
    return [results[f"{kind}{first}-{r}"][key] / results[f"{kind}{other}-{r}"][key] for r in range(rounds)]


def spread(values: list[float]) -> str:
    """The median of the rounds' ratios, bold, then each round's."""
    each = ", ".join(f"{v:.2f}" for v in values)
    return f"**{statistics.median(values):.2f}x** (rounds: {each})" if len(values) > 1 else f"**{values[0]:.2f}x**"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=95, help="copies of the sample's corpus for the task stage")
    parser.add_argument("--dump-articles", type=int, default=3000, help="articles of the dump for dump -> datasets")
    parser.add_argument("--parts", type=int, default=4, help="part files of that dump")
    parser.add_argument("--num-proc", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every build, the order alternating")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure here")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--dump-only", action="store_true", help="only dump -> datasets (no task stage, no plan)")
    only.add_argument("--tasks-only", action="store_true", help="only the task stage and the plan (no dump)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    load = os.getloadavg()[0]
    order = interleaved(args.num_proc, args.rounds)
    with tempfile.TemporaryDirectory(prefix="scaling-ratios-", ignore_cleanup_errors=True) as scratch:
        work = Path(scratch)
        parts = [] if args.tasks_only else write_dump(work / "dump", args.dump_articles, parts=args.parts, workers=2)
        results: dict[str, dict] = {}
        tasks_runs = not args.dump_only
        if tasks_runs:
            one = work / "corpus-x1"
            corpus_command = python_module("wikiformer_kit.dataset_scripts.corpus", ENWIKI_SAMPLE, "--output-dir", one)
            subprocess.run(corpus_command, check=True, capture_output=True)
            corpus = work / f"corpus-x{args.copies}"
            copy_corpus(one, args.copies, corpus)
            n_corpus = corpus_articles(corpus)
            for r, p in order:
                out = work / f"t{p}"
                f = results[f"tasks{p}-{r}"] = measure(python_module(BUILD, "--input", corpus, "--output-dir", out, "--num-proc", p))  # fmt: skip
                print(f"round {r + 1}, task stage, --num-proc {p}: {f['s']:.1f} s, {f['cpu']:.1f} CPU s", flush=True)
                shutil.rmtree(out)
        for r, p in order if parts else ():
            out = work / f"e{p}"
            figures = timed(python_module(BUILD, "--input", *parts, "--output-dir", out, "--num-proc", p), p)
            results[f"dump{p}-{r}"] = figures
            print(f"round {r + 1}, dump -> datasets, --num-proc {p}: {figures['s']:.1f} s, {figures['cpu']:.1f} CPU s, critical path {figures['critical']:.1f} CPU s", flush=True)  # fmt: skip
            n_dump = json.loads((out / ".build" / "summary.json").read_text())["articles"]
            shutil.rmtree(out)
        predicted = plan_seconds(corpus, args.num_proc, work) if tasks_runs else {}

    print(f"\n{os.cpu_count()} cores; load average before the run: {load:.1f}; {args.rounds} round(s), the order alternating\n")  # fmt: skip
    print(table_head("run", "articles", "--num-proc", "round", "wall s", "CPU s", "plan's prediction s", "critical path CPU s", right=7))  # fmt: skip
    for r, p in sorted(order) if tasks_runs else ():
        f = results[f"tasks{p}-{r}"]
        print(f"| task stage | {n_corpus:,} | {p} | {r + 1} | {f['s']:.1f} | {f['cpu']:.1f} | {predicted[p]:.1f} | - |")
    for r, p in sorted(order) if parts else ():
        f = results[f"dump{p}-{r}"]
        print(f"| dump -> datasets ({len(parts)} part files) | {n_dump:,} | {p} | {r + 1} | {f['s']:.1f} | {f['cpu']:.1f} | - | {f['critical']:.1f} |")  # fmt: skip
    first = args.num_proc[0]
    for p in args.num_proc[1:]:
        if tasks_runs:
            tasks = ratios(results, "tasks", first, p, args.rounds)
            plan = predicted[first] / predicted[p]
            print(f"\n- task stage, {n_corpus:,} articles, --num-proc {p} / {first}: {spread(tasks)} (wall; the plan predicted {plan:.2f}x)")  # fmt: skip
        if not parts:
            continue
        dump = ratios(results, "dump", first, p, args.rounds)
        critical = ratios(results, "dump", first, p, args.rounds, key="critical")
        print(f"- dump -> datasets, {n_dump:,} articles in {len(parts)} part files, --num-proc {p} / {first}: {spread(dump)} (wall; {statistics.median(critical):.2f}x by the critical paths)")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"results": results, "plan": predicted}, indent=1) + "\n")


if __name__ == "__main__":
    main()
