"""Cost of building PROP + HARP data against the four Wikiformer tasks, per article, from the same corpus.

The target: PROP and HARP together cost at most 3x the four Wikiformer tasks per article; HARP's
attention scoring is measured apart, per 1,000 sentences on CPU (it is a model's forward pass, cached across
builds). Each build runs as ``python -m dataset_scripts.build`` in a fresh process on an already built corpus, in
one process by default (``--num-proc``); its CPU seconds are those of its whole process tree (user + system; wall
seconds alongside, but on a shared machine only CPU compares).

A build costs a fixed start-up (imports, the tokenizer, the datatrove stages) plus a cost per article. Both are
separated by building two corpora of the same real articles: the vendored samples once (``bench/big_dump.py``,
copy 0), and ``--copies`` times (the copies are renamed and relinked among themselves, so their links resolve as
in a real dump): per article = (CPU large - CPU small) / (articles large - articles small), start-up = CPU small -
articles small x per article; each build runs ``--repeats`` times, interleaved, and the least CPU counts (the
machine may be shared). The attention cache is filled by a first PROP + HARP build of the small corpus (its
time, with the scoring, is reported too); every other build reads it (the copies repeat the same sentences)::

    python bench/baseline_build.py --output-dir /tmp/bench-baseline-build --copies 6 --repeats 3

``--baseline-tree OLD`` (another checkout, e.g. ``git worktree add OLD REV``) builds PROP + HARP with its code too,
interleaved with the others, so that a before/after ratio comes from one run on one machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(PROJECT_ROOT), str(PROJECT_ROOT / "bench")]

SAMPLES = [
    PROJECT_ROOT / "data/samples/wikipedia/enwiki-sample.xml.bz2",
    PROJECT_ROOT / "data/samples/wikipedia/ltgwiki-sample.xml.bz2",
]
TARGET = 3.0
"""PROP + HARP at most this many times the four Wikiformer tasks, per article."""
BUILDS = {"wikiformer": "wikiformer", "prop + harp": "prop,harp", "prop": "prop"}
BASELINE_TREE_BUILD = "prop + harp, baseline tree"


def timed_build(arguments: list[str], tree: Path = PROJECT_ROOT) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one build process and all its workers, with the code of ``tree``.

    The CPU is the larger of what the build's waited-for children report (``getrusage``) and the sum over its process
    tree sampled every 50 ms: workers started by multiprocessing's fork server are not children of the build, so
    ``getrusage`` alone misses them."""
    from memory_sampler import TreeSampler

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "dataset_scripts.build", *arguments]
    process = subprocess.Popen(command, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with TreeSampler(process.pid, interval=0.05) as sampler:
        process.wait()
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, command)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return max(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, sampler.cpu_seconds), wall


def make_corpus(samples: list[Path], copies: int, folder: Path) -> int:
    """A corpus of ``copies`` copies of each sample (big_dump.py); returns its number of articles."""
    import pyarrow.parquet as pq

    from bench.big_dump import Sample, write_dump
    from dataset_scripts.corpus.build import build_corpus

    dumps = []
    for sample in samples:
        per_copy = Sample(sample).articles_per_copy
        prefix = sample.name.split("-")[0] + "-bench"
        dumps += write_dump(folder / "dump", per_copy * copies, prefix=prefix, sample_path=sample)
    build_corpus(dumps, folder / "corpus")
    return sum(pq.ParquetFile(p).metadata.num_rows for p in (folder / "corpus" / "data").glob("*.parquet"))


def attention_per_1000_sentences(corpus: Path, count: int, batch_size: int) -> dict[str, float]:
    """Seconds to score ``count`` real linked sentences (each with its anchors) with the embedded MiniLM on CPU,
    scaled to 1,000 sentences (the model load is excluded)."""
    import pyarrow.parquet as pq
    import torch

    from dataset_scripts.corpus.article import Article
    from dataset_scripts.tasks.anchors import anchor_starts
    from dataset_scripts.tasks.attention import AttentionScorer

    items = []
    for path in sorted((corpus / "data").glob("*.parquet")):
        for row in pq.read_table(path).to_pylist():
            article = Article.from_dict(row)
            spans: dict[str, list] = {}
            for link, start in zip(article.links, anchor_starts(article), strict=True):
                if start >= 0:
                    spans.setdefault(link.sentence, []).append((start, start + len(link.anchor.strip())))
            items.extend(spans.items())
            if len(items) >= count:
                break
        if len(items) >= count:
            break
    items = items[:count]
    scorer = AttentionScorer(device="cpu", batch_size=batch_size)
    scorer.score(items[:batch_size])  # load the model and warm up
    started, wall = time.process_time(), time.perf_counter()
    scorer.score(items)
    seconds, wall = time.process_time() - started, time.perf_counter() - wall
    return {
        "sentences": len(items),
        "threads": torch.get_num_threads(),
        "cpu_seconds_per_1000": round(seconds / len(items) * 1000, 2),
        "wall_seconds_per_1000": round(wall / len(items) * 1000, 2),
    }


def split_cost(small: tuple[int, float], large: tuple[int, float]) -> dict[str, float]:
    """Start-up CPU seconds and CPU milliseconds per article from two builds ``(articles, CPU seconds)``."""
    (n_small, cpu_small), (n_large, cpu_large) = small, large
    per_article = (cpu_large - cpu_small) / (n_large - n_small)
    return {
        "cpu_ms_per_article": round(per_article * 1000, 3),
        "startup_cpu_s": round(cpu_small - n_small * per_article, 2),
        "cpu_s_small": round(cpu_small, 2),
        "cpu_s_large": round(cpu_large, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", nargs="+", type=Path, default=SAMPLES, help="real MediaWiki dumps to repeat")
    parser.add_argument("--copies", type=int, default=6, help="copies in the large corpus (the small one: 1)")
    parser.add_argument("--output-dir", type=Path, default=Path("/tmp/bench-baseline-build"))
    parser.add_argument("--attention-cache", type=Path, default=None, help="default: OUTPUT/attention.sqlite")
    parser.add_argument("--sentences", type=int, default=1000, help="sentences for the attention measurement")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3, help="builds of each kind; the least CPU is kept")
    parser.add_argument(
        "--num-proc", type=int, default=1, help="the builds' processes (1: no worker start-up in the figures)"
    )
    parser.add_argument(
        "--baseline-tree", type=Path, default=None, help="another checkout: its PROP + HARP build too, interleaved"
    )
    args = parser.parse_args(argv)
    if args.copies < 2 or args.repeats < 1:
        parser.error("--copies must be at least 2 and --repeats at least 1")
    out = args.output_dir
    shutil.rmtree(out, ignore_errors=True)
    sizes = {"small": make_corpus(args.samples, 1, out / "small")}
    sizes["large"] = make_corpus(args.samples, args.copies, out / "large")
    cache = str(args.attention_cache or out / "attention.sqlite")

    builds = dict(BUILDS) | ({BASELINE_TREE_BUILD: BUILDS["prop + harp"]} if args.baseline_tree else {})

    def build(size: str, name: str, tasks: str) -> tuple[float, float]:
        folder = out / size / f"build-{name.replace(' + ', '-').replace(' ', '-')}"
        shutil.rmtree(folder, ignore_errors=True)  # a build into a finished folder would resume: nothing to do
        arguments = ["--input", str(out / size / "corpus"), "--output-dir", str(folder), "--articles-per-unit", "200"]
        arguments += ["--num-proc", str(args.num_proc)]
        tree = args.baseline_tree.resolve() if name == BASELINE_TREE_BUILD else PROJECT_ROOT
        return timed_build([*arguments, "--tasks", tasks, "--harp-attention-cache", cache], tree)

    cold = build("small", "cold", "prop,harp")  # fills the attention cache
    cpu: dict[str, dict[str, float]] = {}
    wall: dict[str, dict[str, float]] = {}
    for _ in range(args.repeats):  # interleaved, so that a change of load hits every build alike; the least kept
        for size in ("small", "large"):
            for name, tasks in builds.items():
                seconds, elapsed = build(size, name, tasks)
                least, fastest = cpu.setdefault(name, {}), wall.setdefault(name, {})
                least[size], fastest[size] = (
                    min(seconds, least.get(size, seconds)),
                    min(elapsed, fastest.get(size, elapsed)),
                )
    costs = {name: split_cost((sizes["small"], c["small"]), (sizes["large"], c["large"])) for name, c in cpu.items()}
    base, ours = costs["wikiformer"], costs["prop + harp"]
    result = {
        "articles": sizes,
        "cost": costs,
        "ratio_per_article": round(ours["cpu_ms_per_article"] / base["cpu_ms_per_article"], 2),
        "ratio_total_large": round(cpu["prop + harp"]["large"] / cpu["wikiformer"]["large"], 2),
        "ratio_total_small": round(cpu["prop + harp"]["small"] / cpu["wikiformer"]["small"], 2),
        **(
            {
                "ratio_per_article_baseline_tree": round(
                    costs[BASELINE_TREE_BUILD]["cpu_ms_per_article"] / base["cpu_ms_per_article"], 2
                )
            }
            if args.baseline_tree
            else {}
        ),  # fmt: skip
        "target": TARGET,
        "prop_harp_small_attention_computed_cpu_s": round(cold[0], 1),
        "wall_s": {name: {k: round(v, 1) for k, v in w.items()} for name, w in wall.items()},
        "attention": attention_per_1000_sentences(out / "small" / "corpus", args.sentences, args.batch_size),
    }
    print(f"articles: small {sizes['small']}, large {sizes['large']} ({args.copies} copies); CPU = user + system, "
          f"least of {args.repeats}")  # fmt: skip
    print(f"{'build':<28}{'ms/article':>12}{'start-up s':>12}")
    for name, cost in costs.items():
        print(f"{name:<28}{cost['cpu_ms_per_article']:>12.3f}{cost['startup_cpu_s']:>12.2f}")
    verdict = "met" if result["ratio_per_article"] <= TARGET else "missed"
    print(f"PROP + HARP / Wikiformer per article: {result['ratio_per_article']}x (target <= {TARGET}x: {verdict}); "
          f"whole build {result['ratio_total_large']}x at {sizes['large']} articles, "
          f"{result['ratio_total_small']}x at {sizes['small']}")  # fmt: skip
    if args.baseline_tree:
        print(f"the baseline tree's PROP + HARP / Wikiformer per article: {result['ratio_per_article_baseline_tree']}x")
    print(f"attention (MiniLM, CPU): {result['attention']['cpu_seconds_per_1000']} CPU s per 1,000 sentences")
    print(json.dumps(result, indent=1))
    (out / "result.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
