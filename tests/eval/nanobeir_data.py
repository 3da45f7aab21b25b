"""NanoBEIR-layout folders built from the vendored real collections, for the NanoBEIR tests."""

from __future__ import annotations

import uuid
from pathlib import Path

from tests.eval.conftest import CRANFIELD_MINI, DL20_MINI

DEPTH = 20
SUBSETS = ("corpus", "queries", "qrels", "bm25")


def nano_subsets(collection, run) -> dict[str, list[dict]]:
    """A collection and its first-stage run as NanoBEIR's four subsets (judged queries with a positive only)."""
    positives = {
        query: [
            doc for doc, grade in judged.items() if grade >= collection.relevance_level and doc in collection.documents
        ]
        for query, judged in collection.qrels.items()
    }
    queries = [query for query in collection.queries if positives.get(query) and run.get(query)]
    ranked = {query: sorted(run[query], key=lambda doc: -run[query][doc])[:DEPTH] for query in queries}
    used = sorted({doc for query in queries for doc in positives[query] + ranked[query]})
    return {
        "corpus": [{"_id": doc, "text": collection.documents[doc]} for doc in used],
        "queries": [{"_id": query, "text": collection.queries[query]} for query in queries],
        "qrels": [{"query-id": query, "corpus-id": doc} for query in queries for doc in positives[query]],
        "bm25": [{"query-id": query, "corpus-ids": ranked[query]} for query in queries],
    }


def write_nanobeir_folder(folder, sets: dict[str, dict[str, list[dict]]]) -> None:
    """Parquet files per subset and split, with the README ``configs:`` block the Hub dataset has."""
    from datasets import Dataset

    lines = ["---", "configs:"]
    for subset in SUBSETS:
        lines += [f"- config_name: {subset}", "  data_files:"]
        for split, subsets in sets.items():
            path = f"{subset}/{split}.parquet"
            (folder / subset).mkdir(parents=True, exist_ok=True)
            Dataset.from_list(subsets[subset]).to_parquet(folder / path)
            lines += [f"  - split: {split}", f"    path: {path}"]
    (folder / "README.md").write_text("\n".join([*lines, "---", ""]), encoding="utf-8")


def build_mini_nanobeir(parent: Path) -> Path:
    """A NanoBEIR-layout folder of two sets in ``parent``: NanoMSMARCO from the vendored TREC DL 2020 passages and
    their BM25 run, NanoSciFact from the vendored Cranfield sample and the kit's BM25 (top ``DEPTH`` each)."""
    from wikiformer_kit.eval.collections import load_collection
    from wikiformer_kit.eval.first_stage import first_stage_run

    dl20 = load_collection(str(DL20_MINI))
    cranfield = load_collection(str(CRANFIELD_MINI))
    # a name of its own: datasets caches a local folder's configs under the folder's name
    folder = parent / f"NanoBEIR-mini-{uuid.uuid4().hex}"
    write_nanobeir_folder(
        folder,
        {
            "NanoMSMARCO": nano_subsets(dl20, dl20.runs["bm25"]),
            "NanoSciFact": nano_subsets(cranfield, first_stage_run(cranfield, "bm25", k=DEPTH)),
        },
    )
    return folder
