"""Re-ranking throughput: WikiformerForRanking.rerank/score against sentence-transformers CrossEncoder.predict.

Both score the same real (query, passage) pairs (TREC DL 2020 BM25 candidates) with the same all-MiniLM-L6-v2
weights, batch size and max length, in one process. Timing alternates between the two, query by query (and
which one goes first), so that load from other processes on a shared machine falls on both alike. Scores are
checked to agree before any figure is printed.

Usage (from the repository root)::

    python bench/rerank_throughput.py                     # 2,000 pairs, batch 32, max length 256
    python bench/rerank_throughput.py --num-pairs 500 --max-length 512
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "eval" / "trec_dl20_passage" / "retrieve_results_dl20.json"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="rank_llm-style retrieve_results JSON")
    parser.add_argument("--num-pairs", type=int, default=2000, help="pairs to re-rank (whole queries, in file order)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-length", type=int, default=256, help="pair length in tokens, for both")
    parser.add_argument("--model", default=None, help="BERT checkpoint (default: the embedded all-MiniLM-L6-v2)")
    return parser.parse_args(argv)


def load_queries(path: Path, num_pairs: int) -> list[tuple[str, list[str]]]:
    """(query, passages) groups from a rank_llm retrieve_results file, cut to `num_pairs` pairs in total."""
    if not path.is_file():
        sys.exit(
            f"rerank_throughput: data file not found: {path}\n(it lives in ../shared/data during development; "
            "pass --data with a rank_llm-style retrieve_results JSON)"
        )
    groups = []
    remaining = num_pairs
    for index, record in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        try:
            passages = [hit["content"] for hit in record["hits"]][:remaining]
            query = record["query"]
        except (KeyError, TypeError) as error:
            sys.exit(
                f"rerank_throughput: {path}: record {index} lacks {error} (expected {{query, hits: [{{content}}]}})"
            )
        groups.append((query, passages))
        remaining -= len(passages)
        if remaining <= 0:
            break
    if remaining > 0:
        print(f"note: {path} holds only {num_pairs - remaining} pairs", file=sys.stderr)
    return groups


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    groups = load_queries(args.data, args.num_pairs)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(REPO_ROOT))

    import torch
    from sentence_transformers import CrossEncoder
    from tqdm import tqdm
    from transformers import AutoTokenizer

    from modeling_wikiformer import WikiformerForRanking, save_for_hub

    torch.manual_seed(0)
    model = WikiformerForRanking.from_bert(args.model).eval()
    tokenizer = AutoTokenizer.from_pretrained(model.name_or_path)
    with tempfile.TemporaryDirectory() as folder:
        save_for_hub(model, tokenizer, folder, max_length=args.max_length)
        cross_encoder = CrossEncoder(folder, max_length=args.max_length, device="cpu")

    def ours(query: str, passages: list[str]) -> torch.Tensor:
        hits = model.rerank(query, passages, tokenizer, batch_size=args.batch_size, max_length=args.max_length)
        scores = torch.empty(len(passages))
        for hit in hits:
            scores[hit["corpus_id"]] = hit["score"]
        return torch.sigmoid(scores)

    def theirs(query: str, passages: list[str]) -> torch.Tensor:
        scores = cross_encoder.predict([(query, passage) for passage in passages], batch_size=args.batch_size)
        return torch.as_tensor(scores)

    ours(*groups[0])  # warm-up: first-call allocations and lazy initialisation, for both
    theirs(*groups[0])
    seconds = {"ours": 0.0, "theirs": 0.0}
    largest_difference = 0.0
    for index, (query, passages) in enumerate(tqdm(groups, desc="queries", unit="query")):
        runners = [("ours", ours), ("theirs", theirs)]
        results = {}
        for name, run in runners if index % 2 == 0 else runners[::-1]:
            start = time.perf_counter()
            results[name] = run(query, passages)
            seconds[name] += time.perf_counter() - start
        largest_difference = max(largest_difference, (results["ours"] - results["theirs"]).abs().max().item())
    if largest_difference > 1e-4:
        sys.exit(f"rerank_throughput: scores disagree (largest difference {largest_difference:.2e}); no figures")

    pairs = sum(len(passages) for _, passages in groups)
    rows = [
        ("`WikiformerForRanking.rerank`", seconds["ours"]),
        ("`sentence_transformers.CrossEncoder.predict`", seconds["theirs"]),
    ]
    print(
        f"\n{pairs:,} (query, passage) pairs from {args.data.name} ({len(groups)} queries), "
        f"all-MiniLM-L6-v2 weights, batch {args.batch_size}, max length {args.max_length}, "
        f"{torch.get_num_threads()} torch threads, load average {os.getloadavg()[0]:.1f}; "
        f"largest score difference {largest_difference:.1e}\n"
    )
    print("| method | seconds | pairs/s | speed vs CrossEncoder |")
    print("|---|---:|---:|---:|")
    for name, elapsed in rows:
        print(f"| {name} | {elapsed:.1f} | {pairs / elapsed:.1f} | {seconds['theirs'] / elapsed:.2f}x |")


if __name__ == "__main__":
    main()
