"""Re-ranking throughput: WikiformerForRanking.rerank and ``python -m eval rerank``'s PairScorer against
sentence-transformers CrossEncoder.predict.

All three score the same real (query, passage) pairs (TREC DL 2020 BM25 candidates) with the same
all-MiniLM-L6-v2 weights, batch size, max length and device (``--device``, default cuda when available; ``--bf16``
autocasts all three), in one process. Timing rotates between them query by query (and which one goes first), so
that load from other processes on a shared machine falls on all alike; on a GPU each timing waits for the device.
Scores are checked to agree before any figure is printed. Printed: the device (GPU name), pairs/s, and GPU
utilization and peak memory over the whole run.

Usage (from the repository root)::

    python bench/rerank_throughput.py                     # 2,000 pairs, batch 32, max length 256
    python bench/rerank_throughput.py --num-pairs 5400 --max-length 512 --device cuda
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from bench.device import GpuMonitor, add_device_arguments, describe, now, resolve_device  # noqa: E402

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "eval" / "trec_dl20_passage" / "retrieve_results_dl20.json"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="rank_llm-style retrieve_results JSON")
    parser.add_argument("--num-pairs", type=int, default=2000, help="pairs to re-rank (whole queries, in file order)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-length", type=int, default=256, help="pair length in tokens, for both")
    parser.add_argument("--model", default=None, help="BERT checkpoint (default: the embedded all-MiniLM-L6-v2)")
    add_device_arguments(parser)
    args = parser.parse_args(argv)
    resolve_device(args)
    return args


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


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    groups = load_queries(args.data, args.num_pairs)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import torch
    from sentence_transformers import CrossEncoder
    from tqdm import tqdm
    from transformers import AutoTokenizer

    from eval.rerank import PairScorer
    from modeling_wikiformer import WikiformerForRanking, save_for_hub

    torch.manual_seed(0)
    model = WikiformerForRanking.from_bert(args.model).eval().to(args.device)
    tokenizer = AutoTokenizer.from_pretrained(model.name_or_path)
    folder = tempfile.mkdtemp(prefix="rerank-bench-")
    save_for_hub(model, tokenizer, folder, max_length=args.max_length)
    cross_encoder = CrossEncoder(folder, max_length=args.max_length, device=args.device)
    scorer = PairScorer(folder, max_length=args.max_length, batch_size=args.batch_size, device=args.device)

    def ours(query: str, passages: list[str]) -> torch.Tensor:
        hits = model.rerank(query, passages, tokenizer, batch_size=args.batch_size, max_length=args.max_length)
        scores = torch.empty(len(passages))
        for hit in hits:
            scores[hit["corpus_id"]] = hit["score"]
        return torch.sigmoid(scores)

    def eval_rerank(query: str, passages: list[str]) -> torch.Tensor:
        return torch.sigmoid(torch.tensor(scorer.score([query] * len(passages), passages)))

    def theirs(query: str, passages: list[str]) -> torch.Tensor:
        scores = cross_encoder.predict([(query, passage) for passage in passages], batch_size=args.batch_size)
        return torch.as_tensor(scores).float()

    runners = [("ours", ours), ("eval", eval_rerank), ("theirs", theirs)]
    autocast = torch.autocast(torch.device(args.device).type, dtype=torch.bfloat16, enabled=args.bf16)
    with autocast:
        for _, run in runners:  # warm-up: first-call allocations and lazy initialisation, for all
            run(*groups[0])
    seconds = dict.fromkeys((name for name, _ in runners), 0.0)
    largest_difference = 0.0
    with GpuMonitor(args.device) as monitor, autocast:
        for index, (query, passages) in enumerate(tqdm(groups, desc="queries", unit="query")):
            results = {}
            shift = index % len(runners)
            for name, run in runners[shift:] + runners[:shift]:
                start = now(args.device)
                results[name] = run(query, passages)
                seconds[name] += now(args.device) - start
            for name in ("ours", "eval"):
                largest_difference = max(largest_difference, (results[name] - results["theirs"]).abs().max().item())
    tolerance = 2e-2 if args.bf16 else 1e-4
    if largest_difference > tolerance:
        sys.exit(f"rerank_throughput: scores disagree (largest difference {largest_difference:.2e}); no figures")

    pairs = sum(len(passages) for _, passages in groups)
    rows = [
        ("`WikiformerForRanking.rerank`", seconds["ours"]),
        ("`python -m eval rerank` (PairScorer)", seconds["eval"]),
        ("`sentence_transformers.CrossEncoder.predict`", seconds["theirs"]),
    ]
    print(
        f"\n{pairs:,} (query, passage) pairs from {args.data.name} ({len(groups)} queries), "
        f"{args.model or 'all-MiniLM-L6-v2'} weights, batch {args.batch_size}, max length {args.max_length}, "
        f"bf16 {args.bf16}, load average {os.getloadavg()[0]:.1f}; largest score difference {largest_difference:.1e}"
    )
    print(f"device: {describe(args.device)}; {monitor.summary() or 'no GPU'}\n")
    print("| method | seconds | pairs/s | speed vs CrossEncoder |")
    print("|---|---:|---:|---:|")
    for name, elapsed in rows:
        print(f"| {name} | {elapsed:.1f} | {pairs / elapsed:.1f} | {seconds['theirs'] / elapsed:.2f}x |")
    return {
        "device": describe(args.device),
        "pairs": pairs,
        "pairs_per_second": {name: pairs / elapsed for name, elapsed in rows},
        "vs_cross_encoder": {name: seconds["theirs"] / elapsed for name, elapsed in rows},
        "gpu_utilization": monitor.utilization,
        "peak_gpu_memory_bytes": monitor.peak_memory,
    }


if __name__ == "__main__":
    main()
