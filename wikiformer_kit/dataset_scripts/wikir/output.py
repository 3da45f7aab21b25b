"""Everything a WIKIR build writes: BM25 runs and their trec_eval figures, the Hugging Face dataset (BEIR
layout + training triples) and one TREC folder per split that ``python -m eval`` reads as a collection."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.dataset_scripts.fingerprint import stamp, unstamp
from wikiformer_kit.dataset_scripts.wikir.assemble import SPLITS, Collection
from wikiformer_kit.dataset_scripts.wikir.options import WikirOptions
from wikiformer_kit.eval.collections.trec import ranked, write_trec_run
from wikiformer_kit.eval.first_stage.bm25 import BM25Options, BM25Retriever
from wikiformer_kit.eval.metrics import evaluate_run

logger = logging.getLogger(__name__)

MEASURES = ("P@5", "P@10", "P@20", "nDCG@5", "nDCG@10", "nDCG@20", "nDCG@100", "AP", "R@100", "RR@10")
"""The original's BM25 measures (P@5/10/20, nDCG@5/10/20/100, MAP, R@100), plus MRR@10 for re-ranking."""
CANDIDATE_SPLITS = ("validation", "test")
"""Splits whose folder also gets rank_llm candidates with the document texts (re-ranking and checkpoint
selection read them); the training split gets triples instead."""
ROWS_PER_SHARD = 250_000

CORPUS_SCHEMA = pa.schema(
    [("_id", pa.string()), ("title", pa.string()), ("text", pa.string()), ("article", pa.string())]
)
QUERIES_SCHEMA = pa.schema(
    [("_id", pa.string()), ("text", pa.string()), ("article", pa.string()), ("split", pa.string())]
)
QRELS_SCHEMA = pa.schema([("query-id", pa.string()), ("corpus-id", pa.string()), ("score", pa.int32())])
TRIPLES_SCHEMA = pa.schema(
    [("query", pa.string()), ("positive", pa.string()), ("negatives", pa.list_(pa.string())),
     ("query_id", pa.string()), ("negative_ids", pa.list_(pa.string()))]
)  # fmt: skip


def bm25_run(collection: Collection, options: WikirOptions, language: str) -> dict[str, dict[str, float]]:
    """The BM25 top ``bm25_k`` of every query (bm25s; index and queries stemmed and stopped alike)."""
    if not collection.queries:
        return {}
    stemmer, stopwords = options.bm25_language(language)
    bm25 = BM25Options(k1=options.k1, b=options.b, stemmer=stemmer, stopwords=stopwords)
    return BM25Retriever(collection.documents, bm25).retrieve(collection.queries, k=options.bm25_k)


def split_figures(collection: Collection, run: dict[str, dict[str, float]]) -> dict[str, dict[str, Any]]:
    """trec_eval means of the BM25 run per split (relevance >= 1 for binary measures, as the original)."""
    figures = {}
    for split, ids in collection.splits.items():
        judged = {q: collection.qrels[q] for q in ids}
        split_run = {q: run[q] for q in ids if q in run}
        if not split_run:
            continue
        evaluation = evaluate_run(split_run, judged, MEASURES, relevance_level=1)
        figures[split] = {"queries": len(ids), "retrieved": len(split_run), "means": evaluation.means()}
    return figures


DATASET_PARTS = ("corpus", "queries", "qrels", "triples")
"""The folders of the Hugging Face dataset, one per part."""


def _atomic_parquet(table: pa.Table, path: Path) -> None:
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))


def _write_sharded(rows: list[dict[str, Any]], schema: pa.Schema, folder: Path, stem: str) -> None:
    for old in folder.glob("*.parquet"):
        old.unlink()
    shards = -(-len(rows) // ROWS_PER_SHARD)
    for shard in range(shards):
        chunk = rows[shard * ROWS_PER_SHARD : (shard + 1) * ROWS_PER_SHARD]
        name = f"{stem}-{shard:05d}-of-{shards:05d}.parquet"
        _atomic_parquet(pa.Table.from_pylist(chunk, schema=schema), folder / name)


def training_rows(collection: Collection, run: dict[str, dict[str, float]], negatives: int) -> tuple[list, int]:
    """``query, positive, negatives`` rows of the training split: the positive is the query's own article, the
    negatives the best BM25 documents not judged relevant. Returns the rows and how many queries had no negative."""
    rows, without = [], 0
    for qid in collection.splits["train"]:
        picked = [d for d, _ in ranked(run.get(qid, {})) if d not in collection.qrels[qid]][:negatives]
        if not picked:
            without += 1
            continue
        rows.append(
            {
                "query": collection.queries[qid],
                "positive": collection.documents[qid],
                "negatives": [collection.documents[d] for d in picked],
                "query_id": qid,
                "negative_ids": picked,
            }
        )
    return rows, without


def write_dataset(
    root: Path, collection: Collection, triples: list[dict[str, Any]]
) -> tuple[dict[str, list[str]], str]:
    """The Hugging Face dataset: ``corpus/``, ``queries/``, ``qrels/<split>.parquet``, ``triples/train.parquet``.

    ``datasets`` cannot load a split without rows, so an empty part is not written (and a stale one from an
    earlier build is removed). The files' names end with their content fingerprint (``-fp<16 hex>.parquet``:
    :mod:`dataset_scripts.fingerprint`). Returns the parts written (config -> splits) and the fingerprint.
    """
    folders = [root / part for part in DATASET_PARTS]
    unstamp(folders)
    corpus = [
        {"_id": d, "title": "", "text": text, "article": collection.titles[d]}
        for d, text in collection.documents.items()
    ]
    _write_sharded(corpus, CORPUS_SCHEMA, root / "corpus", "corpus")
    split_of = {q: split for split, ids in collection.splits.items() for q in ids}
    queries = [
        {"_id": q, "text": text, "article": collection.titles[q], "split": split_of[q]}
        for q, text in collection.queries.items()
    ]
    _write_sharded(queries, QUERIES_SCHEMA, root / "queries", "queries")
    parts = {"corpus": ["corpus"] * bool(corpus), "queries": ["queries"] * bool(queries), "qrels": [], "triples": []}
    for split, ids in collection.splits.items():
        qrels = [{"query-id": q, "corpus-id": d, "score": g} for q in ids for d, g in collection.qrels[q].items()]
        _write_part(qrels, QRELS_SCHEMA, root / "qrels" / f"{split}.parquet")
        parts["qrels"] += [split] * bool(qrels)
    _write_part(triples, TRIPLES_SCHEMA, root / "triples" / "train.parquet")
    parts["triples"] += ["train"] * bool(triples)
    return parts, stamp(root, folders)


def _write_part(rows: list[dict[str, Any]], schema: pa.Schema, path: Path) -> None:
    if rows:
        _atomic_parquet(pa.Table.from_pylist(rows, schema=schema), path)
    else:
        path.unlink(missing_ok=True)


def write_trec_folders(
    root: Path, collection: Collection, run: dict[str, dict[str, float]], figures: dict[str, Any], name: str
) -> list[str]:
    """One collection folder per non-empty split: ``topics.tsv``, ``qrels.txt``, ``bm25.run``,
    ``bm25.metrics.json``, ``collection.json`` and (validation, test) ``candidates.json``. Returns the splits
    written."""
    written = []
    for split in SPLITS:
        ids = collection.splits[split]
        folder = root / split
        if not ids:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        _write_text(folder / "topics.tsv", (f"{q}\t{collection.queries[q]}\n" for q in ids))
        _write_text(folder / "qrels.txt", (f"{q} 0 {d} {g}\n" for q in ids for d, g in collection.qrels[q].items()))
        write_trec_run({q: run[q] for q in ids if q in run}, folder / "bm25.run", tag="BM25")
        (folder / "collection.json").write_text(
            json.dumps({"name": f"{name}-{split}", "relevance_level": 1}, indent=1) + "\n", encoding="utf-8"
        )
        if split in figures:
            (folder / "bm25.metrics.json").write_text(json.dumps(figures[split], indent=1) + "\n", encoding="utf-8")
        if split in CANDIDATE_SPLITS:
            entries = [
                {
                    "query": collection.queries[q],
                    "hits": [
                        {"content": collection.documents[d], "qid": q, "docid": d, "rank": rank, "score": score}
                        for rank, (d, score) in enumerate(ranked(run[q]), start=1)
                    ],
                }
                for q in ids
                if run.get(q)
            ]
            (folder / "candidates.json").write_text(json.dumps(entries, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(split)
    return written


def _write_text(path: Path, lines: Iterable[str]) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(lines)
