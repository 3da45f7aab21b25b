"""Throughput and memory of the task-dataset build: dump -> corpus -> SRR/RWI/ATI/LTM datasets.

For each input size (the vendored enwiki sample repeated K times, titles suffixed so that every copy is a distinct
article) and each ``--num-proc``, runs ``python -m dataset_scripts.build`` end to end in a fresh process and
reports wall time, articles/s and the peak memory of the run (RSS summed over the CLI and its workers);
then runs the task stages alone on the corpus that run built (``--input <out>/corpus``).

Usage::

    python bench/build_throughput.py [--repeats 1 2 4] [--num-proc 1 2] [--articles-per-unit 50]

Not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import bz2
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil  # installed with accelerate

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE = PROJECT_ROOT / "data" / "samples" / "wikipedia" / "enwiki-sample.xml.bz2"


def repeated_dumps(folder: Path, repeats: int) -> list[Path]:
    """``repeats`` copies of the sample dump as separate files; copy k > 0 has " (copy k)" after each title."""
    xml = bz2.decompress(SAMPLE.read_bytes()).decode("utf-8")
    files = []
    for copy in range(repeats):
        text = xml if copy == 0 else re.sub(r"<title>(.*?)</title>", rf"<title>\1 (copy {copy})</title>", xml)
        path = folder / f"enwiki-sample-{copy:02d}.xml.bz2"
        path.write_bytes(bz2.compress(text.encode("utf-8"), 1))
        files.append(path)
    return files


def run_build(inputs: list[Path], out: Path, num_proc: int, articles_per_unit: int) -> dict:
    """One CLI run in a fresh process: seconds, peak summed RSS of its process tree (MiB, sampled every 0.1 s:
    the CLI, datatrove's forkserver and its workers), and the article and row counts from its summary."""
    command = [sys.executable, "-m", "dataset_scripts.build", "--input", *map(str, inputs), "--output-dir", str(out)]
    command += ["--num-proc", str(num_proc), "--articles-per-unit", str(articles_per_unit)]
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    root, peak = psutil.Process(process.pid), 0
    while process.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:  # a worker ended between listing and reading
            pass
        time.sleep(0.1)
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        raise RuntimeError(f"build failed ({process.returncode}): {' '.join(command)}")
    summary = json.loads((out / ".build" / "summary.json").read_text())
    rows = {task: summary[task]["rows"] for task in ("srr", "rwi", "ati", "ltm")}
    return {"seconds": seconds, "peak_rss_mib": peak / 2**20, "articles": summary["articles"], "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--num-proc", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--articles-per-unit", type=int, default=50)
    args = parser.parse_args()
    print(
        "| input | --num-proc | articles | end to end s | articles/s | peak RSS MiB, all processes | tasks only s | tasks articles/s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        for repeats in args.repeats:
            (scratch / f"dumps-{repeats}").mkdir()
            dumps = repeated_dumps(scratch / f"dumps-{repeats}", repeats)
            for num_proc in args.num_proc:
                out = scratch / f"out-{repeats}-{num_proc}"
                full = run_build(dumps, out, num_proc, args.articles_per_unit)
                tasks = run_build(
                    [out / "corpus"], scratch / f"tasks-{repeats}-{num_proc}", num_proc, args.articles_per_unit
                )
                n = full["articles"]
                print(
                    f"| sample x{repeats} | {num_proc} | {n} | {full['seconds']:.1f} | {n / full['seconds']:.1f} | "
                    f"{full['peak_rss_mib']:.0f} | {tasks['seconds']:.1f} | {n / tasks['seconds']:.1f} |",
                    flush=True,
                )
                print(f"<!-- rows: {full['rows']} -->", flush=True)


if __name__ == "__main__":
    main()
