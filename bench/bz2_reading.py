"""CPU of reading bz2 dumps: this tree against an older tree's code, in one run.

    python bench/bz2_reading.py --baseline-tree OLD [--articles 3000] [--parts 4] [--rounds 3] [--corpus-stage]

Writes a multistream dump in ``--parts`` part files with ``bench/big_dump.py`` (or reads ``--dump-dir``), then
measures, each in a fresh process and alternating in every round, the CPU seconds of

1. reading alone: ``mediawiki_xml.read_raw`` over the shards the corpus stage plans (byte ranges of the parts'
   bz2 streams), every record drawn and hashed;
2. with ``--corpus-stage``, the whole corpus stage: ``python -m dataset_scripts.corpus PARTS --output-dir OUT
   --num-proc 1 --read-ahead off``; the Parquet tables of the two builds are compared row by row.

"before" is ``--baseline-tree OLD``'s code (e.g. ``git worktree add /tmp/old HEAD~1``); "after" is this tree. (It
also ran with indexed_bzip2 decompressing in this tree, the bz2 module in OLD: docs/benchmarks.md.)
Prints each round's CPU seconds and ratio (before / after: above 1 means less CPU now), their median, and the ratio
of each side's least CPU (its run least disturbed by other work on a shared machine).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from big_dump import write_dump  # noqa: E402

_READ = """
import hashlib, sys
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.sources import plan_shards
digest, count = hashlib.sha256(), 0
for shard in plan_shards(sys.argv[1:])[0]:
    for record in mediawiki_xml.read_raw(shard.path, byte_range=shard.byte_range):
        digest.update(repr(record).encode())
        count += 1
print(count, digest.hexdigest())
"""
_CORPUS = "import runpy; runpy.run_module('dataset_scripts.corpus', run_name='__main__', alter_sys=True)\n"


def cpu_seconds(command: list[str], tree: Path) -> tuple[float, str]:
    """CPU seconds (user + system, the whole process tree) of a command run in ``tree``, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(command[:3])} ... failed:\n{done.stderr[-3000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def parquet_tables(folder: Path) -> dict[str, object]:
    """Every Parquet file of a built corpus, by its path relative to the folder."""
    import pyarrow.parquet as pq

    return {str(path.relative_to(folder)): pq.read_table(path) for path in sorted(folder.rglob("*.parquet"))}


def same_tables(first: Path, second: Path) -> bool:
    """Whether two built corpora hold the same Parquet files with equal tables, row by row."""
    a, b = parquet_tables(first), parquet_tables(second)
    return a.keys() == b.keys() and bool(a) and all(a[name].equals(b[name]) for name in a)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles", type=int, default=3000)
    parser.add_argument("--parts", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dump-dir", type=Path, help="an existing dump written by bench/big_dump.py")
    parser.add_argument("--corpus-stage", action="store_true", help="also the whole corpus stage")
    parser.add_argument("--baseline-tree", type=Path, required=True, help="an older checkout as 'before'")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bz2-reading-"))
    try:
        dump_dir = args.dump_dir or work / "dump"
        if args.dump_dir is None:
            write_dump(dump_dir, args.articles, parts=args.parts, workers=2)
        parts = sorted(str(p) for p in dump_dir.glob("*-multistream[0-9]*.xml*.bz2")) or sorted(
            str(p) for p in dump_dir.glob("*.xml.bz2")
        )
        python = sys.executable
        variants = {"before": args.baseline_tree.resolve(), "after": ROOT}
        measures = {"reading": [], "corpus stage": []} if args.corpus_stage else {"reading": []}
        print(f"{len(parts)} input files, {sum(Path(p).stat().st_size for p in parts) / 1e6:.1f} MB of bz2")
        for round_number in range(args.rounds):
            order = list(variants) if round_number % 2 == 0 else list(reversed(variants))
            for measure in measures:
                seconds, outputs = {}, {}
                for name in order:
                    tree = variants[name]
                    if measure == "reading":
                        seconds[name], outputs[name] = cpu_seconds([python, "-c", _READ, *parts], tree)
                    else:
                        out = work / f"{name}-{round_number}"
                        command = [python, "-c", _CORPUS, *parts, "--output-dir", str(out)]
                        command += ["--num-proc", "1", "--read-ahead", "off"]
                        seconds[name], _ = cpu_seconds(command, tree)
                        outputs[name] = out
                if measure == "reading":
                    same = outputs["before"] == outputs["after"]
                else:
                    same = same_tables(outputs["before"], outputs["after"])
                    for out in outputs.values():
                        shutil.rmtree(out, ignore_errors=True)
                ratio = seconds["before"] / seconds["after"]
                measures[measure].append((ratio, seconds["before"], seconds["after"]))
                print(
                    f"round {round_number + 1} {measure}: before {seconds['before']:.2f} CPU s, after "
                    f"{seconds['after']:.2f} CPU s, {ratio:.2f}x; the same output: {same}",
                    flush=True,
                )
                if not same:
                    raise SystemExit(f"{measure}: the outputs differ")
        for measure, rows in measures.items():
            ratios = [ratio for ratio, _, _ in rows]
            least = min(before for _, before, _ in rows) / min(after for _, _, after in rows)
            print(
                f"{measure}: median {statistics.median(ratios):.2f}x less CPU (rounds {min(ratios):.2f}-"
                f"{max(ratios):.2f}); the least CPU of each, {least:.2f}x"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
