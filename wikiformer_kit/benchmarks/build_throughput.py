"""Dump -> corpus -> SRR/RWI/ATI/LTM at scale: per-process rates, speed-up per process count against the machine's
own ceiling, start-up and merge, peak memory per worker, disk, and a projection for English Wikipedia.

    python -m wikiformer_kit.benchmarks.build_throughput [--articles 2000 10000] [--num-proc 1 2] [--parts 16] [--no-end-to-end]
    python -m wikiformer_kit.benchmarks.build_throughput --corpus CORPUS_DIR [CORPUS_DIR ...] [--num-proc 1 2] [--no-ceiling]

Method: docs/benchmarks.md ("How each benchmark measures", ``build_throughput``).
"""

from __future__ import annotations

import argparse
import bz2
import json
import os
import shutil
import tempfile
from pathlib import Path

from wikiformer_kit.benchmarks.big_dump import write_dump
from wikiformer_kit.benchmarks.common import corpus_articles, loop_ceiling, python_module, run_measured, table_head
from wikiformer_kit.benchmarks.memory_sampler import TreeSampler

ENGLISH_WIKIPEDIA_ARTICLES = 7_000_000
ENGLISH_WIKIPEDIA_BZ2_MIB = 22 * 1000**3 / 2**20  # pages-articles-multistream, ~22 GB
FOOTER = bz2.compress(b"</mediawiki>\n", 9)


def measure(command: list[str] | str, build: Path | None = None) -> dict:
    """Run a command (a list, or a shell line) in its own process: wall s, CPU s of its tree, peak RSS (MiB) of
    its largest process and of the whole tree (sampled every 50 ms), peak anonymous memory and USS of the largest
    process (USS every 0.5 s; see ``memory_sampler``). With ``build`` (a task stage output folder), also the
    peaks of each of its stages (``stages``: name -> figures, in MiB), from the stages' log times."""
    measured = run_measured(command, uss_every=10, keep_samples=build is not None)
    peaks = measured.sampler.peaks
    result = {
        "s": measured.seconds,
        "cpu": measured.cpu,
        "worker_mib": peaks["worker_rss"] / 2**20,
        "tree_mib": peaks["tree_rss"] / 2**20,
        "worker_anon_mib": peaks["worker_anon"] / 2**20,
        "worker_uss_mib": peaks["worker_uss"] / 2**20,
    }
    if build is not None:
        result["stages"] = stage_peaks(measured.sampler, stage_windows(build))
    return result


def stage_peaks(sampler: TreeSampler, windows: dict[str, tuple[float, float]]) -> dict[str, dict[str, float]]:
    """Each stage's peaks (``TreeSampler.peaks`` in MiB) over the samples of its window, and its seconds (``s``)."""
    return {
        name: {key: value / 2**20 for key, value in sampler.peaks_between(*window).items()}
        | {"s": window[1] - window[0]}
        for name, window in windows.items()
    }


def stage_windows(build: Path) -> dict[str, tuple[float, float]]:
    """Each stage of a task stage build (``tasks``, ``see-also-join``, ``ltm``, ``cards``...): from when datatrove
    recorded its start (``executor.json``) to its end (``stats.json``), as ``time.time()`` values, in run order."""
    windows = {}
    for folder in (build / ".build" / "logs").iterdir():
        started, ended = folder / "executor.json", folder / "stats.json"
        if started.exists() and ended.exists():
            windows[folder.name.rsplit("-w", 1)[0]] = (started.stat().st_mtime, ended.stat().st_mtime)
    return dict(sorted(windows.items(), key=lambda item: item[1][0]))


def single_file(parts: list[Path], path: Path) -> Path:
    """The parts joined into one multistream dump (one header stream, every page stream, one footer)."""
    with open(path, "wb") as out:
        for number, part in enumerate(parts):
            data = part.read_bytes()
            index = next(
                part.parent.glob(part.name.replace(".xml-", ".txt-").replace("multistream", "multistream-index"))
            )
            first = int(bz2.open(index, "rt").readline().split(":", 1)[0])
            start = 0 if number == 0 else first
            end = len(data) if number == len(parts) - 1 else len(data) - len(FOOTER)
            assert data.endswith(FOOTER)
            out.write(data[start:end])
    return path


def slices(items: list, count: int) -> list[list]:
    """``items`` cut into ``count`` consecutive slices of (nearly) equal length."""
    return [items[len(items) * i // count : len(items) * (i + 1) // count] for i in range(count)]


def sliced_corpora(corpus: Path, folder: Path, count: int) -> list[Path]:
    """``count`` corpus folders holding one slice of the corpus files each (links), for the independent ceiling."""
    files = sorted((corpus / "data").glob("*.parquet"))
    halves = []
    for number, chunk in enumerate(slices(files, count)):
        half = folder / f"slice{count}-{number}"
        (half / "data").mkdir(parents=True)
        for f in chunk:
            (half / "data" / f.name).symlink_to(f)
        if (corpus / "redirects").exists():
            (half / "redirects").symlink_to(corpus / "redirects")
        halves.append(half)
    return halves


def stage_seconds(build: Path) -> dict:
    """Seconds of the task stage's three stages, from when each wrote its last file."""
    work = build / ".build"
    units = max(p.stat().st_mtime for p in (work / "units").glob("*.json"))
    ltm = max((p.stat().st_mtime for p in (work / "ltm-units").glob("*.json")), default=units)
    cards = (work / "summary.json").stat().st_mtime
    return {"ltm": ltm - units, "merge": cards - ltm}


def disk_mib(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 2**20


RUNS_HEAD = table_head("run", "wall s", "articles/s", "articles/s per process", "CPU s", "articles per CPU s",
                       "peak RSS of one process MiB", "peak RSS all MiB")  # fmt: skip


def row(name: str, articles: int, r: dict, procs: int = 1) -> str:
    return (
        f"| {name} | {r['s']:.1f} | {articles / r['s']:.1f} | {articles / r['s'] / procs:.1f} | {r['cpu']:.1f} | "
        f"{articles / r['cpu']:.1f} | {r['worker_mib']:.0f} | {r['tree_mib']:.0f} |"
    )


def bench_size(articles: int, args, work: Path) -> dict:
    """Every run for one input size; prints its table and returns the figures the summary needs."""
    dump_dir = work / "dump"
    parts = write_dump(dump_dir, articles, parts=args.parts, workers=2)
    single = single_file(parts, work / "single-pages-articles-multistream.xml.bz2")
    out = work / "out"
    corpus_cmd = python_module("wikiformer_kit.dataset_scripts.corpus", "--read-ahead", "off")
    task_cmd = python_module("wikiformer_kit.dataset_scripts.build", "--articles-per-unit", args.articles_per_unit)
    results = {}

    results["wx"] = measure(python_module("wikiextractor.WikiExtractor", "--json", "--processes", "1", "-q", "-o", out / "wx", single))  # fmt: skip
    results["c-single"] = measure([*corpus_cmd, str(single), "--output-dir", str(out / "c-single")])
    n = json.loads((out / "c-single" / "build_stats.json").read_text())["statistics"]["articles"]
    shutil.rmtree(out, ignore_errors=True)
    for p in args.num_proc:
        results[f"c{p}"] = measure([*corpus_cmd, *map(str, parts), "--output-dir", str(out / f"c{p}"), "--num-proc", str(p)])  # fmt: skip
    corpus = out / f"c{args.num_proc[0]}"
    for p in args.num_proc:
        results[f"t{p}"] = measure([*task_cmd, "--input", str(corpus), "--output-dir", str(out / f"t{p}"), "--num-proc", str(p)])  # fmt: skip
        results[f"stages{p}"] = stage_seconds(out / f"t{p}")
    # the ceiling: the same work as p unrelated processes at once, each on 1/p of it, against one process doing all
    for p in args.num_proc[1:]:
        corpus_jobs = [" ".join([*corpus_cmd, *map(str, chunk), "--output-dir", str(out / f"ci{p}-{i}")]) for i, chunk in enumerate(slices(parts, p))]  # fmt: skip
        results[f"c-indep{p}"] = measure(" & ".join(corpus_jobs) + " & wait")
        task_jobs = [" ".join([*task_cmd, "--input", str(c), "--output-dir", str(out / f"ti{p}-{i}")]) for i, c in enumerate(sliced_corpora(corpus, out / "slices", p))]  # fmt: skip
        results[f"t-indep{p}"] = measure(" & ".join(task_jobs) + " & wait")
    tiny = out / "tiny"
    (tiny / "data").mkdir(parents=True)
    import pyarrow.parquet as pq

    pq.write_table(
        pq.read_table(sorted((corpus / "data").glob("*.parquet"))[0]).slice(0, 5), tiny / "data" / "00000.parquet"
    )
    results["startup"] = measure([*task_cmd, "--input", str(tiny), "--output-dir", str(out / "tiny-out")])
    if args.end_to_end:
        for p in args.num_proc:
            results[f"e{p}"] = measure([*task_cmd, "--input", *map(str, parts), "--output-dir", str(out / f"e{p}"), "--num-proc", str(p)])  # fmt: skip
    disk = {
        "dump": sum(p.stat().st_size for p in dump_dir.iterdir()) / 2**20,
        "corpus": disk_mib(corpus),
        "datasets": sum(disk_mib(d) for d in (out / f"t{args.num_proc[0]}").glob("wikiformer-*")),
        "work": disk_mib(out / f"t{args.num_proc[0]}" / ".build"),
    }
    loops = {p: loop_ceiling(p) for p in args.num_proc[1:]}

    print(f"\n### {n} articles ({len(parts)} part files, {disk['dump']:.0f} MiB of bz2), {os.cpu_count()} cores\n")
    runs = [("wikiextractor --json --processes 1 (one file)", "wx", 1)]
    runs += [("corpus stage, --num-proc 1 (one file)", "c-single", 1)]
    runs += [(f"corpus stage, --num-proc {p}", f"c{p}", p) for p in args.num_proc]
    runs += [(f"corpus stage, {p} independent processes on 1/{p} each", f"c-indep{p}", p) for p in args.num_proc[1:]]
    runs += [(f"task stage, --num-proc {p}", f"t{p}", p) for p in args.num_proc]
    runs += [(f"task stage, {p} independent processes on 1/{p} each", f"t-indep{p}", p) for p in args.num_proc[1:]]
    runs += [(f"dump -> datasets, --num-proc {p}", f"e{p}", p) for p in args.num_proc if args.end_to_end]
    print(RUNS_HEAD)
    print("\n".join(row(label, n, results[key], p) for label, key, p in runs))
    first = args.num_proc[0]
    print(
        f"\n- start-up (task stage on a 5-article corpus: imports, executors, 3 stages): {results['startup']['s']:.1f} s"
    )
    for p in args.num_proc:
        stages = results[f"stages{p}"]
        print(f"- task stage --num-proc {p}: LTM over the See Also Graph {stages['ltm']:.1f} s, statistics merge + cards {stages['merge']:.1f} s")  # fmt: skip
    print(f"- corpus stage vs wikiextractor (one file, one process each): {results['wx']['s'] / results['c-single']['s']:.2f}x the speed, {results['wx']['cpu'] / results['c-single']['cpu']:.2f}x per CPU second")  # fmt: skip
    print(f"- task stage vs corpus stage, per CPU second: {results['c' + str(first)]['cpu'] / results['t' + str(first)]['cpu']:.2f}x")  # fmt: skip
    ceilings = {}
    for p in args.num_proc[1:]:
        ceilings[p] = {
            "corpus": results[f"c{first}"]["s"] / results[f"c-indep{p}"]["s"],
            "tasks": results[f"t{first}"]["s"] / results[f"t-indep{p}"]["s"],
        }
        for stage, key in (("corpus", "c"), ("tasks", "t"), ("dump -> datasets", "e")):
            if f"{key}{p}" not in results:
                continue
            speedup = results[f"{key}{first}"]["s"] / results[f"{key}{p}"]["s"]
            # end to end is mostly the corpus stage: its ceiling is the corpus stage's
            limit = ceilings[p].get(stage, ceilings[p]["corpus"])
            target = 1.8 if p == 2 else 12 * p / 16
            print(f"- {stage} --num-proc {p} / {first}: {speedup:.2f}x (target {target:.1f}x); this machine's ceiling for the same work as {p} independent processes: {limit:.2f}x, a pure-Python loop: {loops[p]:.2f}x")  # fmt: skip
    per_m = {k: v * 1e6 / n / 1024 for k, v in disk.items()}
    print(f"- disk per 1M articles: dump {per_m['dump']:.1f} GiB, corpus {per_m['corpus']:.1f} GiB, datasets {per_m['datasets']:.1f} GiB, work files {per_m['work']:.1f} GiB")  # fmt: skip
    return {"n": n, "results": results, "ceilings": ceilings, "loops": loops, "dump_mib": disk["dump"]}


def bench_corpus(corpus: Path, args, work: Path) -> dict:
    """The task stage alone on a built corpus: each ``--num-proc``, its ceiling (the same work as p independent
    processes, and a pure-Python loop; not with ``--no-ceiling``), peak RSS, anonymous memory and USS of one
    worker, per stage too; prints a table and returns the figures."""
    n = corpus_articles(corpus)
    task_cmd = python_module("wikiformer_kit.dataset_scripts.build", "--articles-per-unit", args.articles_per_unit)
    results = {}
    for p in args.num_proc:
        out = work / f"t{p}"
        results[f"t{p}"] = measure([*task_cmd, "--input", str(corpus), "--output-dir", str(out), "--num-proc", str(p)], out)  # fmt: skip
        results[f"stages{p}"] = stage_seconds(out)
        results[f"disk{p}"] = {"datasets": sum(disk_mib(d) for d in out.glob("wikiformer-*")), "work": disk_mib(out / ".build")}  # fmt: skip
        shutil.rmtree(out, ignore_errors=True)  # 500k articles leave ~10 GB
    ceilings = args.num_proc[1:] if args.ceiling else []
    for p in ceilings:
        task_jobs = [" ".join([*task_cmd, "--input", str(c), "--output-dir", str(work / f"ti{p}-{i}")]) for i, c in enumerate(sliced_corpora(corpus, work / "slices", p))]  # fmt: skip
        results[f"t-indep{p}"] = measure(" & ".join(task_jobs) + " & wait")
    loops = {p: loop_ceiling(p) for p in ceilings}
    print(f"\n### task stage on {corpus} ({n} articles), {os.cpu_count()} cores\n")
    print(RUNS_HEAD)
    lines = [row(f"task stage, --num-proc {p}", n, results[f"t{p}"], p) for p in args.num_proc]
    lines += [row(f"task stage, {p} independent processes on 1/{p} each", n, results[f"t-indep{p}"], p) for p in ceilings]  # fmt: skip
    print("\n".join(lines))
    print("\n" + table_head("--num-proc", "stage", "s", "peak RSS of one process MiB", "its anonymous MiB", "its USS MiB",
                            "peak RSS all MiB"))  # fmt: skip
    for p in args.num_proc:
        r = results[f"t{p}"]
        print(f"| {p} | whole run | {r['s']:.1f} | {r['worker_mib']:.0f} | {r['worker_anon_mib']:.0f} | {r['worker_uss_mib']:.0f} | {r['tree_mib']:.0f} |")  # fmt: skip
        for name, m in r["stages"].items():
            print(f"| {p} | {name} | {m['s']:.1f} | {m['worker_rss']:.0f} | {m['worker_anon']:.0f} | {m['worker_uss']:.0f} | {m['tree_rss']:.0f} |")  # fmt: skip
    first = args.num_proc[0]
    for p in args.num_proc:
        stages, disk = results[f"stages{p}"], results[f"disk{p}"]
        print(f"- --num-proc {p}: See also join + LTM {stages['ltm']:.1f} s, statistics merge + cards {stages['merge']:.1f} s; datasets {disk['datasets']:.0f} MiB, work files {disk['work']:.0f} MiB")  # fmt: skip
    for p in args.num_proc[1:]:
        speedup = results[f"t{first}"]["s"] / results[f"t{p}"]["s"]
        ceiling = ""
        if p in loops:
            ceiling = f"; this machine's ceiling for the same work as {p} independent processes: {results[f't{first}']['s'] / results[f't-indep{p}']['s']:.2f}x, a pure-Python loop: {loops[p]:.2f}x"  # fmt: skip
        print(f"- task stage --num-proc {p} / {first}: {speedup:.2f}x (wall){ceiling}")
    return {"n": n, "results": results, "loops": loops}


def projection(summary: dict, num_proc: list[int]) -> None:
    """English Wikipedia hours on 16 and 64 cores from the measured CPU seconds per article of one process (wall
    time on a shared machine measures its neighbours too), for linear scaling and for the speed-up measured here."""
    results, first = summary["results"], num_proc[0]
    key = "e" if f"e{first}" in results else None
    cpu = results[f"e{first}"]["cpu"] if key else results[f"c{first}"]["cpu"] + results[f"t{first}"]["cpu"]
    rate = summary["n"] / cpu
    print(
        f"\nProjection (not a measurement): English Wikipedia, {ENGLISH_WIKIPEDIA_ARTICLES:,} articles, at the "
        f"measured {rate:.1f} articles per CPU second of one process (dump -> datasets, start-up included)"
    )
    # The sample's articles are long (a 1000-article dump is ~15 MiB of bz2, English Wikipedia's 7M articles
    # ~22 GB): by articles the projection is pessimistic, by dump bytes optimistic (fixed per-article costs).
    cpu_per_mib = cpu / summary["dump_mib"]
    for cores in (16, 64):
        by_articles = ENGLISH_WIKIPEDIA_ARTICLES / rate / cores / 3600
        by_bytes = ENGLISH_WIKIPEDIA_BZ2_MIB * cpu_per_mib / cores / 3600
        print(
            f"- {cores} cores: {by_articles:.1f} h by articles, {by_bytes:.1f} h by dump bytes "
            f"({cpu_per_mib:.1f} CPU s per MiB of bz2), at 100% parallel efficiency; / 0.75 at 12x on 16 cores"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--num-proc", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--parts", type=int, default=16, help="part files of the dump (one corpus task at least each)")
    parser.add_argument("--articles-per-unit", type=int, default=250, help="task stage unit size")
    parser.add_argument("--no-end-to-end", dest="end_to_end", action="store_false", help="skip dump -> datasets runs")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure here")
    parser.add_argument("--corpus", type=Path, nargs="+", default=None, help="built corpus folders: task stage only")
    parser.add_argument("--no-ceiling", dest="ceiling", action="store_false", help="--corpus: skip the ceiling runs")
    args = parser.parse_args()
    if args.corpus:
        everything = []
        for corpus in args.corpus:
            with tempfile.TemporaryDirectory(prefix="build-bench-", ignore_cleanup_errors=True) as work:
                everything.append(bench_corpus(corpus.resolve(), args, Path(work)))
        print("\n" + table_head("articles", *(f"one process, --num-proc {p}: peak RSS / anonymous / USS MiB" for p in args.num_proc)))  # fmt: skip
        for s in everything:
            figures = [s["results"][f"t{p}"] for p in args.num_proc]
            print(f"| {s['n']} | " + " | ".join(f"{r['worker_mib']:.0f} / {r['worker_anon_mib']:.0f} / {r['worker_uss_mib']:.0f}" for r in figures) + " |")  # fmt: skip
        if args.json:
            args.json.write_text(json.dumps(everything, indent=1))
        return
    everything = []
    for articles in args.articles:
        with tempfile.TemporaryDirectory(prefix="build-bench-", ignore_cleanup_errors=True) as work:
            everything.append(bench_size(articles, args, Path(work)))
    if len(everything) > 1:
        print(
            "\n"
            + table_head(
                "articles", "peak RSS of one process, corpus stage MiB", "task stage MiB", "dump -> datasets MiB"
            )
        )
        for s in everything:
            r, p = s["results"], args.num_proc[-1]
            e = f"{r[f'e{p}']['worker_mib']:.0f}" if f"e{p}" in r else "-"
            print(f"| {s['n']} | {r[f'c{p}']['worker_mib']:.0f} | {r[f't{p}']['worker_mib']:.0f} | {e} |")
    projection(everything[-1], args.num_proc)
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))


if __name__ == "__main__":
    main()
