"""Corpus build throughput against wikiextractor, on the same real dump, in one run.

    python bench/corpus_throughput.py [--dump data/samples/wikipedia/enwiki-sample.xml.bz2] [--repeat 4] [--rounds 3]

Builds a larger real dump by repeating the pages of ``--dump`` ``--repeat`` times (page ids made unique), then
measures, each in its own process (wall time, CPU time and peak RSS), ``--rounds`` times in turn (the median is
reported: a shared machine's speed drifts from minute to minute; the runs go in a new order each round):

1. ``python -m wikiextractor.WikiExtractor --json --processes 1`` (plain text only);
2. ``python -m dataset_scripts.corpus --num-proc 1`` (structure, links and See also as well);
3. the same with the dump split into 4 part files: ``--num-proc 1`` and ``--num-proc 2`` as they run by default
   (``--read-ahead auto``: a reader process per task only when a core is free for it), the same with one core per
   task (``--read-ahead off``), and the same steps run by a plain process pool of 2 workers (what datatrove's
   executor costs);
4. the machine's own ceiling for 2 processes: a pure-Python loop run twice in one process, then once in each of 2,
   and the same build work as 2 independent processes at once (what the machine gives this workload: on a shared
   VM, two memory-heavy processes slow each other down where a pure loop does not);
5. peak memory of our build on the original dump and on the repeated one (it must not grow with the input).

Prints a Markdown table. Figures depend on the machine: compare the ratios, measured side by side.
"""

from __future__ import annotations

import argparse
import bz2
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.memory_sampler import TreeSampler  # noqa: E402


def repeated_dump(source: Path, repeat: int, directory: Path, parts: int = 1) -> list[Path]:
    """The pages of ``source`` repeated ``repeat`` times (ids and titles made unique), in ``parts`` files."""
    xml = bz2.open(source).read().decode()
    header, rest = xml.split("<page>", 1)
    pages = ["<page>" + p for p in rest.split("</mediawiki>")[0].split("<page>")]
    copies = []
    for copy in range(repeat):
        for page in pages:
            page = re.sub(
                r"<id>(\d+)</id>", lambda m, c=copy: f"<id>{int(m.group(1)) + c * 10_000_000}</id>", page, count=1
            )
            copies.append(page.replace("<title>", f"<title>{copy} ", 1) if copy else page)
    paths = []
    for part in range(parts):
        path = directory / f"enwiki-repeated{repeat}-p{part + 1}.xml.bz2"
        with bz2.open(path, "wt", encoding="utf-8") as out:
            out.write(header + "".join(copies[part::parts]) + "</mediawiki>\n")
        paths.append(path)
    return paths


def plain_pool_build(paths: list[str], output_dir: str, workers: int) -> None:
    """The same reader, extractor and writer steps run by a plain process pool instead of datatrove's executor."""
    from concurrent.futures import ProcessPoolExecutor

    from dataset_scripts.corpus.sources import plan_shards

    shards, _ = plan_shards(paths)
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_run_shard, [(shards, rank, output_dir) for rank in range(len(shards))]))


def _run_shard(job: tuple) -> None:
    from dataset_scripts.corpus.reading import resolve_read_ahead
    from dataset_scripts.corpus.steps import ArticleExtractor, CorpusWriter, ShardReader

    shards, rank, output_dir = job
    reader = ShardReader(shards, read_ahead=resolve_read_ahead("auto", min(2, len(shards))))
    data = reader(None, rank, len(shards))
    for _ in CorpusWriter(output_dir)(ArticleExtractor()(data, rank, len(shards)), rank, len(shards)):
        pass


def busy_loop(steps: int = 20_000_000) -> int:
    """Pure-Python work with no I/O and no shared state: what 2 processes can gain on this machine at best."""
    total = 0
    for step in range(steps):
        total += step * step % 7
    return total


def machine_ceiling() -> float:
    """How much faster 2 processes run two equal pure-Python loops than 1 process runs both."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:
        list(pool.map(busy_loop, [1000, 1000]))  # workers started before the clock
        start = time.perf_counter()
        list(pool.map(busy_loop, [20_000_000, 20_000_000]))
        parallel = time.perf_counter() - start
    start = time.perf_counter()
    busy_loop()
    busy_loop()
    return (time.perf_counter() - start) / parallel


def measure(command: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system over the process and all its descendants, forked-server workers
    included) and peak memory (MB: the largest sum of RSS over the process tree, sampled every 50 ms) of a
    command in its own process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with TreeSampler(process.pid, interval=0.05) as sampler:
        process.wait()
    peak = sampler.peaks["tree_rss"]
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    # rusage misses descendants nobody waited for (datatrove's fork-server workers); sampling misses a process's
    # last 50 ms: take the larger.
    waited = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, max(waited, sampler.cpu_seconds), peak / 2**20


def wikitext_megabytes(paths: list[Path]) -> float:
    """MB of wikitext in the pages of the dumps."""
    total = 0
    for path in paths:
        text = bz2.open(path).read().decode()
        total += sum(len(t.encode()) for t in re.findall(r"<text[^>]*>(.*?)</text>", text, re.S))
    return total / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", type=Path, default=ROOT / "data/samples/wikipedia/enwiki-sample.xml.bz2")
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3, help="measure every run this many times, in turn")
    args = parser.parse_args()
    articles_per_copy = 106 if args.dump.name == "enwiki-sample.xml.bz2" else None
    work = Path(tempfile.mkdtemp(prefix="corpus-bench-"))
    try:
        (big,) = repeated_dump(args.dump, args.repeat, work)
        (work / "parts").mkdir()
        parts = [*map(str, repeated_dump(args.dump, args.repeat, work / "parts", 4))]
        articles = (articles_per_copy or 0) * args.repeat
        megabytes = wikitext_megabytes([big])
        ours = [sys.executable, "-m", "dataset_scripts.corpus"]
        out = work / "out"  # every run writes below it; emptied after each run
        wx, one = "wikiextractor --json --processes 1", "ours --num-proc 1"
        p1, p2 = "ours, 4 part files, --num-proc 1", "ours, 4 part files, --num-proc 2"
        q1, q2 = p1 + " --read-ahead off", p2 + " --read-ahead off"
        pool = "plain process pool, 4 part files, 2 workers"
        twins = "2 independent builds at once, 2 part files each, --read-ahead off"
        pool_code = (
            "import sys; sys.path[:0] = ['bench', '.']; from corpus_throughput import plain_pool_build; "
            f"plain_pool_build({parts!r}, {str(out / 'pool')!r}, 2)"
        )
        # The same work as --num-proc 2, as two unrelated processes: what this machine gives this workload.
        twin = [*ours, "--read-ahead", "off", "--output-dir"]
        twins_code = (
            "import subprocess; "
            f"jobs = [subprocess.Popen({twin + [str(out / 't1'), *parts[:2]]!r}), "
            f"subprocess.Popen({twin + [str(out / 't2'), *parts[2:]]!r})]; "
            "assert all(job.wait() == 0 for job in jobs)"
        )
        runs = {
            wx: [sys.executable, "-m", "wikiextractor.WikiExtractor", "--json", "--processes", "1", "-q",
                 "-o", str(out / "wx"), str(big)],
            one: ours + [str(big), "--output-dir", str(out / "o1")],
            p1: ours + [*parts, "--output-dir", str(out / "p1")],
            p2: ours + [*parts, "--output-dir", str(out / "p2"), "--num-proc", "2"],
            pool: [sys.executable, "-c", pool_code],
            q1: ours + [*parts, "--output-dir", str(out / "q1"), "--read-ahead", "off"],
            q2: ours + [*parts, "--output-dir", str(out / "q2"), "--num-proc", "2", "--read-ahead", "off"],
            twins: [sys.executable, "-c", twins_code],
        }  # fmt: skip
        samples: dict[str, list] = {name: [] for name in runs}
        ceilings = []
        order = random.Random(0)
        for _ in range(args.rounds):
            # A new order each round: on a shared VM a run is slower or faster by what ran just before it.
            ceilings.append(machine_ceiling())
            for name in order.sample(list(runs), len(runs)):
                samples[name].append(measure(runs[name]))
                shutil.rmtree(out, ignore_errors=True)
        results = {
            name: tuple(statistics.median(v[i] for v in values) for i in range(3)) for name, values in samples.items()
        }

        def per_round(slow: str, fast: str, column: int = 0) -> list[float]:
            """slow / fast in each round (each pair measured in the same round)."""
            return [a[column] / b[column] for a, b in zip(samples[slow], samples[fast], strict=True)]

        def ratio(slow: str, fast: str, column: int = 0) -> str:
            """The median over rounds of slow / fast, with the range."""
            each = sorted(per_round(slow, fast, column))
            spread = f" ({each[0]:.2f}-{each[-1]:.2f})" if len(each) > 1 else ""
            return f"{statistics.median(each):.2f}x{spread}"

        results["ours on the original dump (memory)"] = measure(ours + [str(args.dump), "--output-dir", str(out)])
        rows = []
        for name, (seconds, cpu, rss) in results.items():
            scale = 1 / args.repeat if "original" in name else 1
            rate = f"{articles * scale / seconds:.1f} | {megabytes * scale / seconds:.2f}"
            rows.append(f"| {name} | {seconds:.1f} | {rate} | {cpu:.1f} | {articles * scale / cpu:.1f} | {rss:.0f} |")
        print(
            f"input: {args.dump.name} x{args.repeat} = {articles} articles, {megabytes:.1f} MB of wikitext; "
            f"{os.cpu_count()} cores; medians of {args.rounds} rounds (ratios: median and range of the rounds)\n"
        )
        print("| run | seconds | articles/s | MB wikitext/s | CPU s | articles per CPU s | peak RSS MB |")
        print("|---|---|---|---|---|---|---|")
        print("\n".join(rows))
        print(f"\nours / wikiextractor speed: {ratio(wx, one)}; per CPU second: {ratio(wx, one, column=1)}")
        print(
            f"--num-proc 2 / --num-proc 1, by default: {ratio(p1, p2)}; with one core per task (--read-ahead off): "
            f"{ratio(q1, q2)}; CPU seconds of 2 tasks / 1 task (--read-ahead off): {ratio(q2, q1, column=1)}"
        )
        print(
            f"the same work as 2 independent processes / 1 process: {ratio(q1, twins)} (this machine's ceiling for "
            f"this workload); --num-proc 2 against it: {ratio(twins, q2)}"
        )
        print(
            "\n| round | pure-Python loop, 2 processes / 1 | 2 independent builds / 1 "
            "| --num-proc 2 / 1 (--read-ahead off) |\n|---|---|---|---|"
        )
        for number, (ceiling, alone, speedup) in enumerate(
            zip(ceilings, per_round(q1, twins), per_round(q1, q2), strict=True), 1
        ):
            print(f"| {number} | {ceiling:.2f}x | {alone:.2f}x | {speedup:.2f}x |")
        print()
        print(f"datatrove / plain pool with 2 workers: {ratio(pool, p2)}")
        small_rss, big_rss = results["ours on the original dump (memory)"][2], results[one][2]
        print(f"peak RSS on x1 vs x{args.repeat} input: {small_rss:.0f} MB vs {big_rss:.0f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
