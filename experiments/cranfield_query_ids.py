"""Cranfield scored with the wrong query ids: why published BM25 figures computed through ir_datasets are near 0.

Its figures: docs/evaluation.md ("Where the collections come from", Cranfield's published BM25 figures)::

    python -m experiments.cranfield_query_ids [--collection FOLDER] [--k 1000]

Method: docs/benchmarks.md ("How each experiment runs", ``cranfield_query_ids``).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from wikiformer_kit.benchmarks.common import SHARED_DATA, table_head
from wikiformer_kit.eval.collections import load_collection
from wikiformer_kit.eval.first_stage import BM25Retriever
from wikiformer_kit.eval.metrics.trec_eval import evaluate_run

MEASURES = ("AP", "nDCG@10", "P@10")


def dot_i_numbers(query_file: Path) -> list[str]:
    """The ``.I`` value of each query in ``cran.qry``, in file order, leading zeros dropped."""
    return [str(int(n)) for n in re.findall(r"^\.I\s+(\d+)", query_file.read_text(), re.M)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--collection",
        type=Path,
        default=SHARED_DATA / "eval" / "cranfield",
        help="a folder of Cranfield's SMART files (cran.qry's .I numbers are read from it): Glasgow's cran.tar.gz, "
        "http://ir.dcs.gla.ac.uk/resources/test_collections/cran/, unpacked; the default is the local copy for "
        "development",
    )
    parser.add_argument("--k", type=int, default=1000)
    args = parser.parse_args()
    collection = load_collection(str(args.collection))
    run = BM25Retriever(collection.documents).retrieve(collection.queries, k=args.k)
    by_position = evaluate_run(run, collection.qrels, MEASURES).means()

    dot_i = dot_i_numbers(args.collection / "cran.qry")
    relabelled = {dot_i[int(qid) - 1]: ranking for qid, ranking in run.items()}
    matched = {qid: ranking for qid, ranking in relabelled.items() if qid in collection.qrels}
    by_dot_i = evaluate_run(matched, {qid: collection.qrels[qid] for qid in matched}, MEASURES).means()
    relevant = sum(grade > 0 for qid in matched for grade in collection.qrels[qid].values())

    print(table_head("query ids", "queries scored", "relevant judgments", *MEASURES))
    total = sum(grade > 0 for judged in collection.qrels.values() for grade in judged.values())
    print(f"| file order 1..225 (ours, cranqrel's) | {len(run)} | {total} | "
          + " | ".join(f"{by_position[m]:.4f}" for m in MEASURES) + " |")  # fmt: skip
    print(f"| cran.qry's .I values | {len(matched)} | {relevant} | "
          + " | ".join(f"{by_dot_i[m]:.4f}" for m in MEASURES) + " |")  # fmt: skip


if __name__ == "__main__":
    main()
