"""Cost of building PROP + HARP data against the four Wikiformer tasks, per article, from the same corpus.

    python -m wikiformer_kit.benchmarks.baseline_build --output-dir /tmp/bench-baseline-build --copies 6 --repeats 3

Method: docs/benchmarks.md ("How each benchmark measures", ``baseline_build``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

from wikiformer_kit.benchmarks.common import ENWIKI_SAMPLE, corpus_articles, python_module, run_measured
from wikiformer_kit.home import kit_environment, kit_file

SAMPLES = [ENWIKI_SAMPLE, kit_file("data/samples/wikipedia/ltgwiki-sample.xml.bz2")]
TARGET = 3.0
"""PROP + HARP at most this many times the four Wikiformer tasks, per article."""
BUILD = "wikiformer_kit.dataset_scripts.build"
BUILDS = {"wikiformer": "wikiformer", "prop + harp": "prop,harp", "prop": "prop"}


def make_corpus(samples: list[Path], copies: int, folder: Path, distinct_anchors: bool = True) -> int:
    """A corpus of ``copies`` copies of each sample (big_dump.py; ``distinct_anchors``: each copy's relinked
    anchor texts its own, see ``Sample.copy``); returns its number of articles."""
    from wikiformer_kit.benchmarks.big_dump import Sample, write_dump
    from wikiformer_kit.dataset_scripts.corpus.build import build_corpus

    dumps = []
    for sample in samples:
        per_copy = Sample(sample).articles_per_copy
        prefix = sample.name.split("-")[0] + "-bench"
        dumps += write_dump(
            folder / "dump", per_copy * copies, prefix=prefix, sample_path=sample, distinct_anchors=distinct_anchors
        )
    build_corpus(dumps, folder / "corpus")
    return corpus_articles(folder / "corpus")


def attention_per_1000_sentences(corpus: Path, count: int, batch_size: int) -> dict[str, float]:
    """Seconds to score ``count`` real linked sentences (each with its anchors) with the embedded MiniLM on CPU,
    scaled to 1,000 sentences (the model load is excluded)."""
    import pyarrow.parquet as pq
    import torch

    from wikiformer_kit.dataset_scripts.corpus.article import Article
    from wikiformer_kit.dataset_scripts.tasks.anchors import anchor_starts
    from wikiformer_kit.dataset_scripts.tasks.attention import AttentionScorer

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


def repeat_costs(articles: dict[str, int], cpu: dict[str, list[float]]) -> list[dict[str, float]]:
    """:func:`split_cost` of each repeat's two builds (run back to back, so that both saw the same machine)."""
    return [
        split_cost((articles["small"], small), (articles["large"], large))
        for small, large in zip(cpu["small"], cpu["large"], strict=True)
    ]


def median_cost(costs: list[dict[str, float]]) -> dict[str, float]:
    """The median of each figure over the repeats, and the range of the per-article cost."""
    per_article = [c["cpu_ms_per_article"] for c in costs]
    return {
        **{key: round(statistics.median(c[key] for c in costs), 3) for key in costs[0]},
        "cpu_ms_per_article_range": [min(per_article), max(per_article)],
    }


def unit_cost(fewer: tuple[int, float], more: tuple[int, float]) -> float:
    """CPU milliseconds a work unit costs, from two builds of the same corpus ``(units, CPU seconds)``."""
    (units_a, cpu_a), (units_b, cpu_b) = fewer, more
    return round((cpu_b - cpu_a) / (units_b - units_a) * 1000, 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", nargs="+", type=Path, default=SAMPLES, help="real MediaWiki dumps to repeat")
    parser.add_argument("--copies", type=int, default=6, help="copies in the large corpus (the small one: 1)")
    parser.add_argument(
        "--shared-anchor-texts", action="store_true",
        help="the copies keep the sample's anchor texts (each then names a page of every copy: QDM's rows multiply)",
    )  # fmt: skip
    parser.add_argument("--output-dir", type=Path, default=Path("/tmp/bench-baseline-build"))
    parser.add_argument("--attention-cache", type=Path, default=None, help="default: OUTPUT/attention.sqlite")
    parser.add_argument("--sentences", type=int, default=1000, help="sentences for the attention measurement")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3, help="builds of each kind and size; medians reported")
    parser.add_argument(
        "--num-proc", type=int, default=1, help="the builds' processes (1: no worker start-up in the figures)"
    )
    parser.add_argument(
        "--articles-per-unit", type=int, nargs="+", default=None,
        help="work unit sizes to measure at (the first gives the verdict; two or more also give the cost per unit; "
        "default: the build's own, then 200)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    from wikiformer_kit.dataset_scripts.tasks.build import BuildOptions
    from wikiformer_kit.dataset_scripts.tasks.corpus_units import corpus_files, plan_units

    args.articles_per_unit = args.articles_per_unit or [BuildOptions.articles_per_unit, 200]
    if args.copies < 2 or args.repeats < 1 or min(args.articles_per_unit) < 1:
        parser.error("--copies must be at least 2, --repeats and --articles-per-unit at least 1")
    out = args.output_dir
    shutil.rmtree(out, ignore_errors=True)
    articles = {"small": make_corpus(args.samples, 1, out / "small")}
    articles["large"] = make_corpus(args.samples, args.copies, out / "large", not args.shared_anchor_texts)
    sizes = tuple(articles)
    cache = str(args.attention_cache or out / "attention.sqlite")

    sizes_per_unit = list(dict.fromkeys(args.articles_per_unit))
    units = {(size, per_unit): len(plan_units(corpus_files(out / size / "corpus")[0], per_unit))
             for size in sizes for per_unit in sizes_per_unit}  # fmt: skip

    def build(size: str, name: str, tasks: str, per_unit: int) -> tuple[float, float]:
        folder = out / size / f"build-{name.replace(' + ', '-').replace(' ', '-')}-{per_unit}"
        shutil.rmtree(folder, ignore_errors=True)  # a build into a finished folder would resume: nothing to do
        command = python_module(BUILD, "--input", out / size / "corpus", "--output-dir", folder, "--tasks", tasks)
        command += ["--articles-per-unit", str(per_unit), "--num-proc", str(args.num_proc)]
        measured = run_measured([*command, "--harp-attention-cache", cache], env=kit_environment())
        return measured.cpu, measured.seconds  # of the build process and all its workers

    cold = build("large", "cold", "prop,harp", sizes_per_unit[0])  # fills the attention cache (copy 0 is small)
    # CPU and wall seconds of every build, by unit size, build and corpus size: one value per repeat
    cpu: dict[int, dict[str, dict[str, list[float]]]] = {per_unit: {} for per_unit in sizes_per_unit}
    wall: dict[int, dict[str, dict[str, list[float]]]] = {per_unit: {} for per_unit in sizes_per_unit}
    for _ in range(args.repeats):  # interleaved, so that a change of load hits every build alike
        for per_unit in sizes_per_unit:
            for name, tasks in BUILDS.items():
                for size in sizes:  # back to back: a repeat's two sizes see the same machine
                    seconds, elapsed = build(size, name, tasks, per_unit)
                    cpu[per_unit].setdefault(name, {}).setdefault(size, []).append(seconds)
                    wall[per_unit].setdefault(name, {}).setdefault(size, []).append(elapsed)
    results = {}
    for per_unit in sizes_per_unit:
        runs = {name: repeat_costs(articles, c) for name, c in cpu[per_unit].items()}
        costs = {name: median_cost(found) for name, found in runs.items()}
        ratios = [
            ours["cpu_ms_per_article"] / base["cpu_ms_per_article"]
            for ours, base in zip(runs["prop + harp"], runs["wikiformer"], strict=True)
            if base["cpu_ms_per_article"] > 0
        ]
        median = {name: {size: statistics.median(v) for size, v in c.items()} for name, c in cpu[per_unit].items()}
        results[per_unit] = {
            "units": {size: units[size, per_unit] for size in sizes},
            "cost": costs,
            "ratio_per_article": round(statistics.median(ratios), 2) if ratios else None,
            "ratio_per_article_repeats": [round(r, 2) for r in ratios],
            "ratio_total_large": round(median["prop + harp"]["large"] / median["wikiformer"]["large"], 2),
            "ratio_total_small": round(median["prop + harp"]["small"] / median["wikiformer"]["small"], 2),
            "cpu_s": {name: {k: [round(x, 2) for x in v] for k, v in c.items()} for name, c in cpu[per_unit].items()},
            "wall_s": {name: {k: round(min(v), 1) for k, v in w.items()} for name, w in wall[per_unit].items()},
        }
    per_unit_ms = {}
    if len(sizes_per_unit) > 1:  # the large corpus at the largest and the smallest unit size (medians)
        few, many = max(sizes_per_unit), min(sizes_per_unit)
        per_unit_ms = {
            name: unit_cost(
                (units["large", few], statistics.median(cpu[few][name]["large"])),
                (units["large", many], statistics.median(cpu[many][name]["large"])),
            )
            for name in BUILDS
        }
    verdict_size = sizes_per_unit[0]
    result = {
        "articles": articles,
        "articles_per_unit": sizes_per_unit,
        "by_unit_size": results,
        "cpu_ms_per_unit": per_unit_ms,
        "target": TARGET,
        "verdict_at_articles_per_unit": verdict_size,
        "prop_harp_large_attention_computed_cpu_s": round(cold[0], 1),
        "attention": attention_per_1000_sentences(out / "small" / "corpus", args.sentences, args.batch_size),
    }
    print(f"articles: small {articles['small']}, large {articles['large']} ({args.copies} copies); "
          f"CPU = user + system, medians of {args.repeats} repeats")  # fmt: skip
    for per_unit, found in results.items():
        print(f"{per_unit} articles a unit (units: small {found['units']['small']}, large {found['units']['large']})")
        print(f"  {'build':<28}{'ms/article':>12}{'start-up s':>12}")
        for name, cost in found["cost"].items():
            print(f"  {name:<28}{cost['cpu_ms_per_article']:>12.3f}{cost['startup_cpu_s']:>12.2f}")
        print(f"  PROP + HARP / Wikiformer per article: {found['ratio_per_article']}x (repeats: "
              f"{', '.join(map(str, found['ratio_per_article_repeats']))}); whole build "
              f"{found['ratio_total_large']}x at {articles['large']} articles, {found['ratio_total_small']}x at "
              f"{articles['small']}")  # fmt: skip
    for name, ms in per_unit_ms.items():
        print(f"CPU per work unit, {name}: {ms} ms")
    ratio = results[verdict_size]["ratio_per_article"]
    verdict = "met" if ratio <= TARGET else "missed"
    print(f"verdict at {verdict_size} articles a unit: {ratio}x (target <= {TARGET}x: {verdict})")
    print(f"attention (MiniLM, CPU): {result['attention']['cpu_seconds_per_1000']} CPU s per 1,000 sentences")
    print(json.dumps(result, indent=1))
    (out / "result.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
