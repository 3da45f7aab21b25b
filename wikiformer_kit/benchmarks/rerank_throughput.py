"""Re-ranking throughput: WikiformerForRanking.rerank and ``python -m eval rerank``'s runner against
sentence-transformers CrossEncoder.predict.

    python -m wikiformer_kit.benchmarks.rerank_throughput [--depth 20] [--num-pairs N] [--device cuda] [--dtype bfloat16]

Method: docs/benchmarks.md ("How each benchmark measures", ``rerank_throughput``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from wikiformer_kit.benchmarks.common import SHARED_DATA, table_head
from wikiformer_kit.benchmarks.device import GpuMonitor, add_device_arguments, describe, now, resolve_device

# the development copy of rank_llm's DL20 BM25 top 100:
#   https://github.com/castorini/rank_llm_data/raw/main/retrieve_results/BM25/retrieve_results_dl20_top100.json
DEFAULT_DATA = SHARED_DATA / "eval" / "trec_dl20_passage" / "retrieve_results_dl20.json"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="rank_llm-style retrieve_results JSON: DL20's is https://github.com/castorini/rank_llm_data/raw/main/retrieve_results/BM25/retrieve_results_dl20_top100.json "
        "(MS MARCO text: non-commercial research use); the default is the local copy for development",
    )
    parser.add_argument("--num-pairs", type=int, default=2000, help="pairs to re-rank (whole queries, in file order)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-length", type=int, default=256, help="pair length in tokens, for both")
    parser.add_argument("--depth", type=int, help="re-rank only each query's top N passages (default: all)")
    parser.add_argument("--model", default=None, help="BERT checkpoint (default: the embedded all-MiniLM-L6-v2)")
    parser.add_argument(
        "--dtype",
        choices=("auto", "float32", "bfloat16", "float16"),
        default="auto",
        help="weight dtype of all (default auto: the checkpoint's stored dtype; float16 is refused on a CPU)",
    )
    add_device_arguments(parser)
    args = parser.parse_args(argv)
    resolve_device(args)
    return args


def load_queries(path: Path, num_pairs: int, depth: int | None = None) -> list[tuple[str, list[str]]]:
    """(query, passages) groups from a rank_llm retrieve_results file, the top `depth` passages of each, cut to
    `num_pairs` pairs in total."""
    if not path.is_file():
        sys.exit(
            f"rerank_throughput: data file not found: {path}\n(it lives in ../shared/data during development; "
            "pass --data with a rank_llm-style retrieve_results JSON, e.g. https://github.com/castorini/rank_llm_data/raw/main/retrieve_results/BM25/retrieve_results_dl20_top100.json)"
        )
    groups = []
    remaining = num_pairs
    for index, record in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        try:
            passages = [hit["content"] for hit in record["hits"]][:depth][:remaining]
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
    groups = load_queries(args.data, args.num_pairs, args.depth)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import torch
    from sentence_transformers import CrossEncoder
    from tqdm import tqdm
    from transformers import AutoTokenizer

    from wikiformer_kit.eval.collections.collection import Collection
    from wikiformer_kit.eval.rerank import PairScorer, rerank_run
    from wikiformer_kit.eval.rerank.runner import DEFAULT_WINDOW_BATCHES
    from wikiformer_kit.eval.rerank.scorer import load_dtype
    from wikiformer_kit.modeling_wikiformer import WikiformerForRanking, save_for_hub

    torch.manual_seed(0)
    model = WikiformerForRanking.from_bert(args.model, dtype=load_dtype(args.dtype, torch.device(args.device)))
    model = model.eval().to(args.device)
    dtype = str(model.dtype).removeprefix("torch.")
    tokenizer = AutoTokenizer.from_pretrained(model.name_or_path)
    folder = tempfile.mkdtemp(prefix="rerank-bench-")
    save_for_hub(model, tokenizer, folder, max_length=args.max_length)
    cross_encoder = CrossEncoder(
        folder, max_length=args.max_length, device=args.device, model_kwargs={"dtype": model.dtype}
    )
    scorer = PairScorer(folder, max_length=args.max_length, batch_size=args.batch_size, device=args.device, dtype=dtype)

    qids = [f"q{index}" for index in range(len(groups))]
    documents = {
        f"{qid}-{rank}": passage
        for qid, (_, passages) in zip(qids, groups, strict=True)
        for rank, passage in enumerate(passages)
    }
    queries = {qid: query for qid, (query, _) in zip(qids, groups, strict=True)}
    collection = Collection("bench", documents=documents, queries=queries)
    candidates = {
        qid: {f"{qid}-{rank}": float(len(passages) - rank) for rank in range(len(passages))}
        for qid, (_, passages) in zip(qids, groups, strict=True)
    }
    window = DEFAULT_WINDOW_BATCHES * args.batch_size
    blocks, block, pairs = [], [], 0  # whole queries, as the runner's windows
    for index, (_, passages) in enumerate(groups):
        block.append(index)
        pairs += len(passages)
        if pairs >= window:
            blocks.append(block)
            block, pairs = [], 0
    blocks += [block] if block else []

    def ours(indices: list[int]) -> list[torch.Tensor]:
        results = []
        for index in indices:
            query, passages = groups[index]
            hits = model.rerank(query, passages, tokenizer, batch_size=args.batch_size, max_length=args.max_length)
            scores = torch.empty(len(passages))
            for hit in hits:
                scores[hit["corpus_id"]] = hit["score"]
            results.append(torch.sigmoid(scores))
        return results

    def runner(indices: list[int], window: int | None) -> list[torch.Tensor]:
        ids = [qids[index] for index in indices]
        run = rerank_run(collection, candidates, scorer, query_ids=ids, progress=False, window=window)
        return [torch.sigmoid(torch.tensor([run[qid][docid] for docid in candidates[qid]])) for qid in ids]

    def theirs(indices: list[int]) -> list[torch.Tensor]:
        results = []
        for index in indices:
            query, passages = groups[index]
            scores = cross_encoder.predict([(query, passage) for passage in passages], batch_size=args.batch_size)
            results.append(torch.as_tensor(scores).float())
        return results

    # how full eval rerank's batches are: batches, pairs, padded and real tokens (device sums: no sync per batch)
    fill = {name: [0, 0, 0, torch.zeros((), device=args.device)] for name in ("eval", "eval_per_query")}
    counting: list[str] = []

    def count_batch(_module, _args, kwargs):
        if counting:
            rows, width = kwargs["attention_mask"].shape
            record = fill[counting[0]]
            record[0], record[1], record[2] = record[0] + 1, record[1] + rows, record[2] + rows * width
            record[3] += kwargs["attention_mask"].sum()

    scorer.model.register_forward_pre_hook(count_batch, with_kwargs=True)

    def counted(name: str, window: int | None):
        def run(indices: list[int]) -> list[torch.Tensor]:
            counting[:] = [name]
            try:
                return runner(indices, window)
            finally:
                counting.clear()

        return run

    runners = [
        ("ours", ours),
        ("eval", counted("eval", None)),
        ("eval_per_query", counted("eval_per_query", 1)),
        ("theirs", theirs),
    ]
    autocast = torch.autocast(torch.device(args.device).type, dtype=torch.bfloat16, enabled=args.bf16)
    with autocast:
        for _, run in runners:  # warm-up: first-call allocations and lazy initialisation, for all
            run([0])
    for record in fill.values():
        record[:3], record[3] = [0, 0, 0], torch.zeros((), device=args.device)
    seconds = dict.fromkeys((name for name, _ in runners), 0.0)
    largest_difference = 0.0
    with GpuMonitor(args.device) as monitor, autocast:
        for index, block in enumerate(tqdm(blocks, desc="blocks", unit="block")):
            results = {}
            shift = index % len(runners)
            for name, run in runners[shift:] + runners[:shift]:
                start = now(args.device)
                results[name] = run(block)
                seconds[name] += now(args.device) - start
            for name in ("ours", "eval", "eval_per_query"):
                for mine, reference in zip(results[name], results["theirs"], strict=True):
                    largest_difference = max(largest_difference, (mine - reference).abs().max().item())
    tolerance = 2e-2 if args.bf16 or dtype != "float32" else 1e-4
    if largest_difference > tolerance:
        sys.exit(f"rerank_throughput: scores disagree (largest difference {largest_difference:.2e}); no figures")

    pairs = sum(len(passages) for _, passages in groups)
    rows = [
        ("`WikiformerForRanking.rerank`", seconds["ours"]),
        ("`python -m eval rerank` (batches across queries)", seconds["eval"]),
        ("`python -m eval rerank`, query by query (before)", seconds["eval_per_query"]),
        ("`sentence_transformers.CrossEncoder.predict`", seconds["theirs"]),
    ]
    print(
        f"\n{pairs:,} (query, passage) pairs from {args.data.name} ({len(groups)} queries, depth {args.depth or 'all'}, "
        f"{len(blocks)} blocks), {args.model or 'all-MiniLM-L6-v2'} weights in {dtype}, batch {args.batch_size}, "
        f"max length {args.max_length}, bf16 autocast {args.bf16}, load average {os.getloadavg()[0]:.1f}; "
        f"largest score difference {largest_difference:.1e}"
    )
    print(f"device: {describe(args.device)}; {monitor.summary() or 'no GPU'}\n")
    filled = {}
    for name, (batches, scored, padded, real) in fill.items():
        filled[name] = {"pairs_per_batch": scored / batches, "real_tokens": real.item() / padded}
    print(
        f"eval rerank batches: {filled['eval']['pairs_per_batch']:.1f} pairs a batch across queries, "
        f"{filled['eval_per_query']['pairs_per_batch']:.1f} query by query (of {args.batch_size}); real (unpadded) "
        f"tokens {filled['eval']['real_tokens']:.0%} vs {filled['eval_per_query']['real_tokens']:.0%}\n"
    )
    print(table_head("method", "seconds", "pairs/s", "speed vs CrossEncoder", right=3))
    for name, elapsed in rows:
        print(f"| {name} | {elapsed:.1f} | {pairs / elapsed:.1f} | {seconds['theirs'] / elapsed:.2f}x |")
    return {
        "device": describe(args.device),
        "dtype": dtype,
        "depth": args.depth,
        "pairs": pairs,
        "pairs_per_second": {name: pairs / elapsed for name, elapsed in rows},
        "vs_cross_encoder": {name: seconds["theirs"] / elapsed for name, elapsed in rows},
        "eval_batch_fill": filled,
        "gpu_utilization": monitor.utilization,
        "peak_gpu_memory_bytes": monitor.peak_memory,
    }


if __name__ == "__main__":
    main()
