"""The two speed-ups of 2 processes over 1 that the build is held to, in one run, and the plan's prediction beside
the task stage's measured wall times.

    python bench/scaling_ratios.py [--copies 95] [--dump-articles 3000] [--parts 4] [--num-proc 1 2] [--dump-only]

1. the task stage alone (``python -m dataset_scripts.build --input CORPUS``) on ``bench/copy_corpus.py``'s copies of
   the vendored sample's corpus (95 copies: 10,070 articles), at each ``--num-proc``;
2. dump -> datasets (corpus stage included) on a ``bench/big_dump.py`` multistream dump of ``--dump-articles``
   real articles in ``--parts`` part files, at each ``--num-proc``;
3. the plan (``--plan`` of the build, measured on the first 1,000 articles of that corpus) for the corpus's article
   count at each ``--num-proc``, against the task stage's measured wall time.

Each run is its own process; wall and CPU seconds of its process tree, and for dump -> datasets its critical path
(``bench/build_timeline.py``: the wall time on quiet cores, from CPU seconds). Prints Markdown and the ratios last.
A ratio is only as good as the machine is quiet: on a machine shared with other jobs, read the CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]
from big_dump import write_dump  # noqa: E402
from build_throughput import measure  # noqa: E402
from build_timeline import run as run_timeline  # noqa: E402
from build_timeline import timeline  # noqa: E402
from copy_corpus import copy_corpus  # noqa: E402

SAMPLE = ROOT / "data" / "samples" / "wikipedia" / "enwiki-sample.xml.bz2"
PY = [sys.executable, "-m"]


def articles_of(corpus: Path) -> int:
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(p).metadata.num_rows for p in sorted((corpus / "data").glob("*.parquet")))


def plan_seconds(corpus: Path, processes: list[int], work: Path) -> dict[int, float]:
    """The plan's predicted wall seconds of the task stage on ``corpus`` at each process count."""
    from wikiformer_kit.dataset_scripts.build_plan import PlanFigures, predict

    figures = work / "plan.json"
    command = [*PY, "dataset_scripts.build", "--input", str(corpus), "--plan", "--plan-sample", "1000"]
    subprocess.run([*command, "--plan-json", str(figures)], cwd=ROOT, check=True, capture_output=True)
    measured = json.loads(figures.read_text())
    plan = PlanFigures.from_dict(measured)
    return {p: predict(plan, measured["articles"], p, corpus_stage=False).total for p in processes}


def timed(command: list[str], processes: int) -> dict[str, float]:
    """Wall and CPU seconds of a build, and its critical path (``bench/build_timeline.py``: each stage's busiest
    process, the build process's part alone before it): the wall time on quiet cores, which a shared machine
    still measures."""
    seen, ends, start, end = run_timeline(command, 0.1)
    figures = timeline(seen, ends, start, end, processes)
    return {"s": figures["wall"], "cpu": figures["cpu"], "critical": figures["critical_path_cpu"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=95, help="copies of the sample's corpus for the task stage")
    parser.add_argument("--dump-articles", type=int, default=3000, help="articles of the dump for dump -> datasets")
    parser.add_argument("--parts", type=int, default=4, help="part files of that dump")
    parser.add_argument("--num-proc", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", type=Path, default=None, help="also write every figure here")
    parser.add_argument("--dump-only", action="store_true", help="only dump -> datasets (no task stage, no plan)")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="scaling-ratios-"))
    try:
        parts = write_dump(work / "dump", args.dump_articles, parts=args.parts, workers=2)
        results: dict[str, dict] = {}
        tasks_runs = [] if args.dump_only else args.num_proc
        if tasks_runs:
            one = work / "corpus-x1"
            subprocess.run([*PY, "dataset_scripts.corpus", str(SAMPLE), "--output-dir", str(one)], cwd=ROOT, check=True, capture_output=True)  # fmt: skip
            corpus = work / f"corpus-x{args.copies}"
            copy_corpus(one, args.copies, corpus)
            n_corpus = articles_of(corpus)
        for p in tasks_runs:
            out = work / f"t{p}"
            results[f"tasks{p}"] = measure([*PY, "dataset_scripts.build", "--input", str(corpus), "--output-dir", str(out), "--num-proc", str(p)])  # fmt: skip
            print(f"task stage, --num-proc {p}: {results[f'tasks{p}']['s']:.1f} s, {results[f'tasks{p}']['cpu']:.1f} CPU s", flush=True)  # fmt: skip
            shutil.rmtree(out)
        for p in args.num_proc:
            out = work / f"e{p}"
            results[f"dump{p}"] = timed([*PY, "dataset_scripts.build", "--input", *map(str, parts), "--output-dir", str(out), "--num-proc", str(p)], p)  # fmt: skip
            print(f"dump -> datasets, --num-proc {p}: {results[f'dump{p}']['s']:.1f} s, {results[f'dump{p}']['cpu']:.1f} CPU s, critical path {results[f'dump{p}']['critical']:.1f} CPU s", flush=True)  # fmt: skip
            n_dump = json.loads((out / ".build" / "summary.json").read_text())["articles"]
            shutil.rmtree(out)
        predicted = plan_seconds(corpus, args.num_proc, work) if tasks_runs else {}
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"\n{os.cpu_count()} cores; load average before the run: {load:.1f}\n")
    print("| run | articles | --num-proc | wall s | CPU s | plan's prediction s | critical path CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for p in tasks_runs:
        r = results[f"tasks{p}"]
        print(f"| task stage | {n_corpus:,} | {p} | {r['s']:.1f} | {r['cpu']:.1f} | {predicted[p]:.1f} | - |")
    for p in args.num_proc:
        r = results[f"dump{p}"]
        print(f"| dump -> datasets ({len(parts)} part files) | {n_dump:,} | {p} | {r['s']:.1f} | {r['cpu']:.1f} | - | {r['critical']:.1f} |")  # fmt: skip
    first = args.num_proc[0]
    for p in args.num_proc[1:]:
        dump = results[f"dump{first}"]["s"] / results[f"dump{p}"]["s"]
        if tasks_runs:
            tasks = results[f"tasks{first}"]["s"] / results[f"tasks{p}"]["s"]
            plan = predicted[first] / predicted[p]
            print(f"\n- task stage, {n_corpus:,} articles, --num-proc {p} / {first}: **{tasks:.2f}x** (wall; the plan predicted {plan:.2f}x)")  # fmt: skip
        critical = results[f"dump{first}"]["critical"] / results[f"dump{p}"]["critical"]
        print(f"- dump -> datasets, {n_dump:,} articles in {len(parts)} part files, --num-proc {p} / {first}: **{dump:.2f}x** (wall; {critical:.2f}x by the critical paths)")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"results": results, "plan": predicted}, indent=1) + "\n")


if __name__ == "__main__":
    main()
