"""FirstP, MaxP and SumP measured on a collection of long documents, with a scorer that needs no training.

Its table: docs/evaluation.md ("MS MARCO documents and documents longer than the model")::

    python -m dataset_scripts.wikir --input data/samples/wikipedia/enwiki-sample.xml.bz2 --output-dir wikir-whole \\
        --min-links 1 --validation-size 0 --test-size 15 --bm25-k 20 --whole-documents --skip-first-sentence
    python -m experiments.long_documents --collection wikir-whole/test --output long_documents.json

Method: docs/benchmarks.md ("How each experiment runs", ``long_documents``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from wikiformer_kit.eval.collections import load_collection
from wikiformer_kit.eval.metrics import evaluate_run
from wikiformer_kit.eval.rerank import LongDocuments, rerank_run
from wikiformer_kit.training.kit_arguments import resolve_model_path

MEASURES = ("nDCG@10", "nDCG@20", "RR@10", "AP")


class CosineScorer:
    """A bi-encoder scoring (query, text) pairs by the cosine of their embeddings (the kit's scorer interface)."""

    def __init__(self, model_path: str, batch_size: int = 32):
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(model_path, device="cpu")
        self.tokenizer = self.model.tokenizer
        self.model_path, self.batch_size = model_path, batch_size
        self.max_length = self.model.max_seq_length
        self.cache: dict = {}

    def score(self, queries, documents, progress=None) -> list[float]:
        """Cosine similarities of the pairs, in input order."""
        # each text is embedded once: a query's many passages share its embedding, and MaxP and SumP their passages
        new = [text for text in dict.fromkeys([*queries, *documents]) if text not in self.cache]
        if new:
            embedded = self.model.encode(new, batch_size=self.batch_size, normalize_embeddings=True)
            self.cache.update(zip(new, embedded, strict=True))
        if progress:
            progress(len(documents))
        return [float(self.cache[q] @ self.cache[t]) for q, t in zip(queries, documents, strict=True)]


def measure(
    collection_spec: str, model: str, window: int, stride: int, run_name: str | None, depth: int | None
) -> dict:
    """Each way's means over the collection's judged queries, with the run's documents' lengths and the time taken."""
    collection = load_collection(collection_spec)
    candidates = collection.runs[run_name] if run_name else collection.default_run()
    if candidates is None:
        raise SystemExit(f"{collection_spec}: no candidate run (the collection's runs: {sorted(collection.runs)})")
    if depth is not None:
        candidates = {qid: dict(sorted(r.items(), key=lambda i: -i[1])[:depth]) for qid, r in candidates.items()}
    scorer = CosineScorer(model)
    words = sorted(len(collection.documents[d].split()) for r in candidates.values() for d in r)
    results = {
        "collection": collection.name,
        "queries": len(candidates),
        "pairs": len(words),
        "document_words": {"median": words[len(words) // 2], "max": words[-1]},
        "model": Path(model).name,
        "model_max_length": scorer.max_length,
        "depth": depth,
        "first_stage": evaluate_run(candidates, collection.qrels, MEASURES, collection.relevance_level).means(),
    }
    for mode in ("firstp", "maxp", "sump"):
        setting = LongDocuments(mode, window, stride)
        started = time.perf_counter()
        run = rerank_run(collection, candidates, scorer, progress=False, long_documents=setting)
        means = evaluate_run(run, collection.qrels, MEASURES, collection.relevance_level).means()
        results[mode] = {**setting.to_dict(), "means": means, "seconds": round(time.perf_counter() - started, 1)}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collection", required=True, help="a collection with long documents and a candidate run")
    parser.add_argument("--candidates", help="the collection's run to re-rank (default: its first)")
    parser.add_argument("--model", default=None, help="a sentence-transformers bi-encoder (default: embedded MiniLM)")
    parser.add_argument("--passage-window", type=int, default=200, help="MaxP/SumP passage length in tokens")
    parser.add_argument("--passage-stride", type=int, default=100, help="MaxP/SumP tokens between passage starts")
    parser.add_argument("--depth", type=int, help="re-rank each query's top N candidates only (default: all)")
    parser.add_argument("--output", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    results = measure(
        args.collection,
        resolve_model_path(args.model),
        args.passage_window,
        args.passage_stride,
        args.candidates,
        args.depth,
    )
    print(f"| way | {' | '.join(MEASURES)} | seconds |\n|---|{'---|' * len(MEASURES)}---|")
    first_stage = results["first_stage"]
    print(f"| first stage | {' | '.join(f'{first_stage[m]:.4f}' for m in MEASURES)} | |")
    for mode in ("firstp", "maxp", "sump"):
        means = results[mode]["means"]
        print(f"| {mode} | {' | '.join(f'{means[m]:.4f}' for m in MEASURES)} | {results[mode]['seconds']} |")
    if args.output:
        Path(args.output).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
