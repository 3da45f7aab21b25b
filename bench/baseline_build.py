"""Cost of building PROP + HARP data against the four Wikiformer tasks, per article, from the same corpus.

The target: PROP and HARP together cost at most 2x the four Wikiformer tasks per article; HARP's attention scoring
is measured apart, per 1,000 sentences on CPU (it is a model's forward pass, cached across builds). Each build runs
as ``python -m dataset_scripts.build`` in a fresh process on an already built corpus; CPU seconds are the child's
(user + system), wall seconds alongside. The PROP + HARP build is run twice: first filling an attention cache (its
time includes the scoring), then, in a new output folder, with that cache warm (the build without the scoring)::

    python bench/baseline_build.py --input data/samples/wikipedia/enwiki-sample.xml.bz2 \\
        data/samples/wikipedia/ltgwiki-sample.xml.bz2 --output-dir /tmp/bench-baseline-build
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
sys.path.insert(0, str(PROJECT_ROOT))


def timed_build(arguments: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one build process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "dataset_scripts.build", *arguments]
    subprocess.run(command, cwd=PROJECT_ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


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
    started = time.perf_counter()
    scorer.score(items)
    seconds = time.perf_counter() - started
    return {
        "sentences": len(items),
        "threads": torch.get_num_threads(),
        "seconds_per_1000": round(seconds / len(items) * 1000, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--input", nargs="+", default=[str(PROJECT_ROOT / "data/samples/wikipedia/enwiki-sample.xml.bz2")]
    )
    parser.add_argument("--output-dir", default="/tmp/bench-baseline-build")
    parser.add_argument("--sentences", type=int, default=1000, help="sentences for the attention measurement")
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args(argv)
    out = Path(args.output_dir)
    shutil.rmtree(out, ignore_errors=True)
    corpus = out / "corpus"
    from dataset_scripts.corpus.build import build_corpus

    build_corpus([Path(p) for p in args.input], corpus)
    import pyarrow.parquet as pq

    articles = sum(pq.ParquetFile(p).metadata.num_rows for p in (corpus / "data").glob("*.parquet"))
    cache = out / "attention.sqlite"
    common = ["--input", str(corpus), "--articles-per-unit", "200"]
    wikiformer = timed_build([*common, "--output-dir", str(out / "wikiformer"), "--tasks", "wikiformer"])
    cold = timed_build([*common, "--output-dir", str(out / "baselines-cold"), "--tasks", "prop,harp",
                        "--harp-attention-cache", str(cache)])  # fmt: skip
    warm = timed_build([*common, "--output-dir", str(out / "baselines-warm"), "--tasks", "prop,harp",
                        "--harp-attention-cache", str(cache)])  # fmt: skip
    prop = timed_build([*common, "--output-dir", str(out / "prop"), "--tasks", "prop"])
    result = {
        "articles": articles,
        "cpu_ms_per_article": {
            "wikiformer (srr, rwi, ati, ltm)": round(wikiformer[0] / articles * 1000, 2),
            "prop + harp, attention cached": round(warm[0] / articles * 1000, 2),
            "prop + harp, attention computed": round(cold[0] / articles * 1000, 2),
            "prop alone": round(prop[0] / articles * 1000, 2),
        },
        "wall_s": {
            "wikiformer": round(wikiformer[1], 1),
            "baselines cached": round(warm[1], 1),
            "baselines computed": round(cold[1], 1),
            "prop": round(prop[1], 1),
        },  # fmt: skip
        "ratio_prop_harp_to_wikiformer_cpu": round(warm[0] / wikiformer[0], 2),
        "attention": attention_per_1000_sentences(corpus, args.sentences, args.batch_size),
    }
    print(json.dumps(result, indent=1))
    (out / "result.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
