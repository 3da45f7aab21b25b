"""Corpus build throughput against wikiextractor, on the same real dump, in one run.

    python -m wikiformer_kit.benchmarks.corpus_throughput [--dump data/samples/wikipedia/enwiki-sample.xml.bz2]
        [--repeat 4] [--rounds 3] [--runs wx,one,...]

Method: docs/benchmarks.md ("How each benchmark measures", ``corpus_throughput``).
"""

from __future__ import annotations

import argparse
import bz2
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

from wikiformer_kit.benchmarks.common import ENWIKI_SAMPLE, loop_ceiling, run_measured, table_head


def dump_pages(source: Path) -> tuple[str, list[str]]:
    """The header of a MediaWiki dump (up to its first page) and its pages' XML."""
    header, rest = bz2.open(source).read().decode().split("<page>", 1)
    return header, ["<page>" + p for p in rest.split("</mediawiki>")[0].split("<page>")]


def repeated_dump(source: Path, repeat: int, directory: Path, parts: int = 1) -> list[Path]:
    """The pages of ``source`` repeated ``repeat`` times (ids and titles made unique), in ``parts`` files."""
    header, pages = dump_pages(source)
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

    from wikiformer_kit.dataset_scripts.corpus.sources import plan_shards

    shards, _ = plan_shards(paths)
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_run_shard, [(shards, rank, output_dir) for rank in range(len(shards))]))


def _run_shard(job: tuple) -> None:
    from wikiformer_kit.dataset_scripts.corpus.reading import resolve_read_ahead
    from wikiformer_kit.dataset_scripts.corpus.steps import ArticleExtractor, CorpusWriter, ShardReader

    shards, rank, output_dir = job
    reader = ShardReader(shards, read_ahead=resolve_read_ahead("auto", min(2, len(shards))))
    data = reader(None, rank, len(shards))
    for _ in CorpusWriter(output_dir)(ArticleExtractor()(data, rank, len(shards)), rank, len(shards)):
        pass


def wikitext_megabytes(paths: list[Path]) -> float:
    """MB of wikitext in the pages of the dumps."""
    total = 0
    for path in paths:
        text = bz2.open(path).read().decode()
        total += sum(len(t.encode()) for t in re.findall(r"<text[^>]*>(.*?)</text>", text, re.S))
    return total / 1e6


RUNS = {
    "wx": "wikiextractor --json --processes 1",
    "one": "ours --num-proc 1",
    "p1": "ours, 4 part files, --num-proc 1",
    "p2": "ours, 4 part files, --num-proc 2",
    "pool": "plain process pool, 4 part files, 2 workers",
    "q1": "ours, 4 part files, --num-proc 1 --read-ahead off",
    "q2": "ours, 4 part files, --num-proc 2 --read-ahead off",
    "twins": "2 independent builds at once, 2 part files each, --read-ahead off",
    "m1": "ours, one multistream file, --num-proc 1",
    "m2": "ours, one multistream file, --num-proc 2",
    "n1": "ours, one multistream file, --num-proc 1 --read-ahead off",
    "n2": "ours, one multistream file, --num-proc 2 --read-ahead off",
}
"""The runs by short name (``--runs``)."""


def multistream_copy(path: Path, directory: Path, pages_per_stream: int = 100) -> Path:
    """The pages of the dump ``path`` as one multistream dump with its index (100 pages a bz2 stream, as Wikimedia writes
    them), for the shards that cut one file by its index."""
    from wikiformer_kit.benchmarks.big_dump import _ID, _TITLE, _part_names, write_streams

    header, pages = dump_pages(path)
    entries = [(page, int(_ID.search(page).group(1)), _TITLE.search(page).group(1)) for page in pages]
    streams = [entries[start : start + pages_per_stream] for start in range(0, len(entries), pages_per_stream)]
    name, index_name = _part_names("enwiki-repeated", None, 0, 0)
    dump = SimpleNamespace(header=header, footer="</mediawiki>\n")
    return write_streams(directory / name, directory / index_name, dump, streams)


def one_article_dump(source: Path, directory: Path) -> Path:
    """The first article page of ``source`` alone: what each tool costs to start and stop."""
    header, pages = dump_pages(source)
    first = next(p for p in pages if "<ns>0</ns>" in p and "<redirect" not in p)
    path = directory / "one-article.xml.bz2"
    with bz2.open(path, "wt", encoding="utf-8") as out:
        out.write(header + first + "</mediawiki>\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", type=Path, default=ENWIKI_SAMPLE)
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3, help="measure every run this many times, in turn")
    parser.add_argument(
        "--runs",
        default=",".join(RUNS),
        help="comma-separated runs to measure (default all): " + ", ".join(f"{k} = {v}" for k, v in RUNS.items()),
    )
    args = parser.parse_args()
    chosen = [name.strip() for name in args.runs.split(",") if name.strip()]
    unknown = set(chosen) - set(RUNS)
    if unknown:
        parser.error(f"unknown runs {sorted(unknown)}; choose from {', '.join(RUNS)}")
    articles_per_copy = 106 if args.dump.name == "enwiki-sample.xml.bz2" else None
    with tempfile.TemporaryDirectory(prefix="corpus-bench-", ignore_cleanup_errors=True) as scratch:
        work = Path(scratch)
        (big,) = repeated_dump(args.dump, args.repeat, work)
        (work / "parts").mkdir()
        parts = [*map(str, repeated_dump(args.dump, args.repeat, work / "parts", 4))]
        (work / "multistream").mkdir()
        multistream = str(multistream_copy(big, work / "multistream"))
        tiny = str(one_article_dump(args.dump, work))
        articles = (articles_per_copy or 0) * args.repeat
        megabytes = wikitext_megabytes([big])
        ours = [sys.executable, "-m", "wikiformer_kit.dataset_scripts.corpus"]
        wikiextractor = [sys.executable, "-m", "wikiextractor.WikiExtractor", "--json", "--processes", "1", "-q"]
        out = work / "out"  # every run writes below it; emptied after each run
        pool_code = (
            "from wikiformer_kit.benchmarks.corpus_throughput import plain_pool_build; "
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
        off = ["--read-ahead", "off"]
        commands = {
            "wx": wikiextractor + ["-o", str(out / "wx"), str(big)],
            "one": ours + [str(big), "--output-dir", str(out / "o1")],
            "p1": ours + [*parts, "--output-dir", str(out / "p1")],
            "p2": ours + [*parts, "--output-dir", str(out / "p2"), "--num-proc", "2"],
            "pool": [sys.executable, "-c", pool_code],
            "q1": ours + [*parts, "--output-dir", str(out / "q1"), *off],
            "q2": ours + [*parts, "--output-dir", str(out / "q2"), "--num-proc", "2", *off],
            "twins": [sys.executable, "-c", twins_code],
            "m1": ours + [multistream, "--output-dir", str(out / "m1")],
            "m2": ours + [multistream, "--output-dir", str(out / "m2"), "--num-proc", "2"],
            "n1": ours + [multistream, "--output-dir", str(out / "n1"), *off],
            "n2": ours + [multistream, "--output-dir", str(out / "n2"), "--num-proc", "2", *off],
        }
        runs = {name: commands[name] for name in chosen}
        # Start-up: each tool on a one-article dump, measured with the runs it stands beside.
        if "wx" in runs:
            runs["wx0"] = wikiextractor + ["-o", str(out / "wx0"), tiny]
        if any(name not in ("wx", "pool", "twins") for name in chosen):
            runs["one0"] = ours + [tiny, "--output-dir", str(out / "one0"), *off]
        labels = {**RUNS, "wx0": "wikiextractor start-up (one article)", "one0": "ours start-up (one article)"}
        samples: dict[str, list] = {name: [] for name in runs}
        ceilings = []
        order = random.Random(0)
        for _ in range(args.rounds):
            # A new order each round: on a shared VM a run is slower or faster by what ran just before it.
            if {"q1", "q2", "n1", "n2"} & set(runs):
                ceilings.append(loop_ceiling(2, 20_000_000))
            for name in order.sample(list(runs), len(runs)):
                measured = run_measured(runs[name])
                samples[name].append((measured.seconds, measured.cpu, measured.sampler.peaks["tree_rss"] / 2**20))
                shutil.rmtree(out, ignore_errors=True)
        results = {
            name: tuple(statistics.median(v[i] for v in values) for i in range(3)) for name, values in samples.items()
        }

        def per_round(slow: str, fast: str, column: int = 0) -> list[float]:
            """slow / fast in each round (each pair measured in the same round)."""
            return [a[column] / b[column] for a, b in zip(samples[slow], samples[fast], strict=True)]

        def past_start_up(name: str) -> list[float]:
            """CPU seconds of each round's run less the start-up run of its tool in the same round."""
            start = "wx0" if name == "wx" else "one0"
            return [run[1] - zero[1] for run, zero in zip(samples[name], samples[start], strict=True)]

        def spread(values: list[float]) -> str:
            values = sorted(values)
            return f"{statistics.median(values):.2f}x" + (
                f" ({values[0]:.2f}-{values[-1]:.2f})" if len(values) > 1 else ""
            )

        def ratio(slow: str, fast: str, column: int = 0) -> str:
            """The median over rounds of slow / fast, with the range."""
            return spread(per_round(slow, fast, column))

        rows = []
        for name, (seconds, cpu, rss) in results.items():
            count = 1 if name in ("wx0", "one0") else articles
            rate = f"{count / seconds:.1f} | {megabytes * (count == articles) / seconds:.2f}"
            rows.append(f"| {labels[name]} | {seconds:.1f} | {rate} | {cpu:.1f} | {count / cpu:.1f} | {rss:.0f} |")
        print(
            f"input: {args.dump.name} x{args.repeat} = {articles} articles, {megabytes:.1f} MB of wikitext; "
            f"{os.cpu_count()} cores; medians of {args.rounds} rounds (ratios: median and range of the rounds)\n"
        )
        print(table_head("run", "seconds", "articles/s", "MB wikitext/s", "CPU s", "articles per CPU s", "peak RSS MB"))
        print("\n".join(rows))
        print()
        if {"wx", "one"} <= set(runs):
            ours_rate = [articles / cpu for cpu in past_start_up("one")]
            their_rate = [articles / cpu for cpu in past_start_up("wx")]
            print(f"ours / wikiextractor speed: {ratio('wx', 'one')}; per CPU second: {ratio('wx', 'one', column=1)}")
            print(
                f"past start-up (a run's CPU less its tool's one-article run): ours "
                f"{statistics.median(ours_rate):.1f} articles per CPU s, wikiextractor {statistics.median(their_rate):.1f}: "
                f"{spread([a / b for a, b in zip(ours_rate, their_rate, strict=True)])}; start-up CPU s: ours "
                f"{results['one0'][1]:.2f}, wikiextractor {results['wx0'][1]:.2f}"
            )
        pairs = [("p1", "p2", "by default"), ("q1", "q2", "with one core per task (--read-ahead off)")]
        pairs += [
            ("m1", "m2", "one multistream file, by default"),
            ("n1", "n2", "one multistream file, --read-ahead off"),
        ]
        for one, two, what in pairs:
            if {one, two} <= set(runs):
                print(
                    f"--num-proc 2 / --num-proc 1, {what}: {ratio(one, two)} in wall time; CPU seconds of 2 tasks / "
                    f"1: {ratio(two, one, column=1)}; CPU-normalised speed-up (2 x CPU s of 1 / CPU s of 2, the "
                    f"most 2 processes could give if both had a core): {spread([2 * a[1] / b[1] for a, b in zip(samples[one], samples[two], strict=True)])}"
                )
        if {"q1", "twins", "q2"} <= set(runs):
            print(
                f"the same work as 2 independent processes / 1 process: {ratio('q1', 'twins')} (this machine's "
                f"ceiling for this workload); --num-proc 2 against it: {ratio('twins', 'q2')}"
            )
        if ceilings:
            print("pure-Python loop, 2 processes / 1 (this machine's ceiling), by round: "
                  + ", ".join(f"{c:.2f}x" for c in ceilings))  # fmt: skip
        if {"pool", "p2"} <= set(runs):
            print(f"datatrove / plain pool with 2 workers: {ratio('pool', 'p2')}")
        if "one" in runs:
            small_rss = (
                run_measured(ours + [str(args.dump), "--output-dir", str(out)]).sampler.peaks["tree_rss"] / 2**20
            )
            print(f"peak RSS on x1 vs x{args.repeat} input: {small_rss:.0f} MB vs {results['one'][2]:.0f} MB")


if __name__ == "__main__":
    main()
