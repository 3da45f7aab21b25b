"""Corpus build throughput against wikiextractor, on the same real dump, in one run.

    python bench/corpus_throughput.py [--dump data/samples/wikipedia/enwiki-sample.xml.bz2] [--repeat 4]

Builds a larger real dump by repeating the pages of ``--dump`` ``--repeat`` times (page ids made unique), then
measures, each in its own process (wall time and peak RSS):

1. ``python -m wikiextractor.WikiExtractor --json --processes 1`` (plain text only);
2. ``python -m dataset_scripts.corpus --num-proc 1`` (structure, links and See also as well);
3. the same with the dump split into 4 part files, ``--num-proc 1`` and ``--num-proc 2``, and the same steps
   run by a plain process pool of 2 workers (what datatrove's executor costs);
4. peak memory of our build on the original dump and on the repeated one (it must not grow with the input).

Prints a Markdown table. Figures depend on the machine: compare the ratios, measured side by side.
"""

from __future__ import annotations

import argparse
import bz2
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def repeated_dump(source: Path, repeat: int, directory: Path, parts: int = 1) -> list[Path]:
    """The pages of ``source`` repeated ``repeat`` times (ids and titles made unique), in ``parts`` files."""
    xml = bz2.open(source).read().decode()
    header, rest = xml.split("<page>", 1)
    pages = ["<page>" + p for p in rest.split("</mediawiki>")[0].split("<page>")]
    copies = []
    for copy in range(repeat):
        for page in pages:
            page = re.sub(r"<id>(\d+)</id>", lambda m, c=copy: f"<id>{int(m.group(1)) + c * 10_000_000}</id>", page, count=1)
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
    from dataset_scripts.corpus.pipeline import ArticleExtractor, CorpusWriter, ShardReader

    shards, rank, output_dir = job
    data = ShardReader(shards)(None, rank, len(shards))
    for _ in CorpusWriter(output_dir)(ArticleExtractor()(data, rank, len(shards)), rank, len(shards)):
        pass


def measure(command: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, the process and all its children) and peak memory (MB: the
    largest sum of RSS over the process and its children, sampled every 50 ms) of a command in its own process."""
    import psutil

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    watched, peak = psutil.Process(process.pid), 0
    while process.poll() is None:
        try:
            tree = [watched, *watched.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.05)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu, peak / 2**20


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
    args = parser.parse_args()
    articles_per_copy = 106 if args.dump.name == "enwiki-sample.xml.bz2" else None
    work = Path(tempfile.mkdtemp(prefix="corpus-bench-"))
    try:
        (big,) = repeated_dump(args.dump, args.repeat, work)
        (work / "parts").mkdir()
        parts = repeated_dump(args.dump, args.repeat, work / "parts", 4)
        articles = (articles_per_copy or 0) * args.repeat
        megabytes = wikitext_megabytes([big])
        ours = [sys.executable, "-m", "dataset_scripts.corpus"]
        rows = []
        runs = {
            "wikiextractor --json --processes 1": [
                sys.executable, "-m", "wikiextractor.WikiExtractor", "--json", "--processes", "1", "-q",
                "-o", str(work / "wx"), str(big),
            ],
            "ours --num-proc 1": ours + [str(big), "--output-dir", str(work / "o1")],
            "ours, 4 part files, --num-proc 1": ours + [*map(str, parts), "--output-dir", str(work / "p1")],
            "ours, 4 part files, --num-proc 2": ours + [*map(str, parts), "--output-dir", str(work / "p2"), "--num-proc", "2"],
            "plain process pool, 4 part files, 2 workers": [
                sys.executable, "-c", "import sys; sys.path[:0] = ['bench', '.']; from corpus_throughput import "
                f"plain_pool_build; plain_pool_build({list(map(str, parts))!r}, {str(work / 'pool')!r}, 2)",
            ],
            "ours on the original dump (memory)": ours + [str(args.dump), "--output-dir", str(work / "small")],
        }  # fmt: skip
        results = {name: measure(command) for name, command in runs.items()}
        for name, (seconds, cpu, rss) in results.items():
            scale = 1 / args.repeat if "original" in name else 1
            rate = f"{articles * scale / seconds:.1f} | {megabytes * scale / seconds:.2f}"
            rows.append(f"| {name} | {seconds:.1f} | {rate} | {cpu:.1f} | {articles * scale / cpu:.1f} | {rss:.0f} |")
        wx, one = results["wikiextractor --json --processes 1"][0], results["ours --num-proc 1"][0]
        wx_cpu, one_cpu = results["wikiextractor --json --processes 1"][1], results["ours --num-proc 1"][1]
        p1, p2 = results["ours, 4 part files, --num-proc 1"][0], results["ours, 4 part files, --num-proc 2"][0]
        print(f"input: {args.dump.name} x{args.repeat} = {articles} articles, {megabytes:.1f} MB of wikitext\n")
        print("| run | seconds | articles/s | MB wikitext/s | CPU s | articles per CPU s | peak RSS MB |")
        print("|---|---|---|---|---|---|---|")
        print("\n".join(rows))
        pool = results["plain process pool, 4 part files, 2 workers"][0]
        print(f"\nours / wikiextractor speed: {wx / one:.2f}x; --num-proc 2 / --num-proc 1: {p1 / p2:.2f}x; "
              f"datatrove / plain pool with 2 workers: {pool / p2:.2f}x; "
              f"ours / wikiextractor per CPU second: {wx_cpu / one_cpu:.2f}x")
        small_rss, big_rss = results["ours on the original dump (memory)"][2], results["ours --num-proc 1"][2]
        print(f"peak RSS on x1 vs x{args.repeat} input: {small_rss:.0f} MB vs {big_rss:.0f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
