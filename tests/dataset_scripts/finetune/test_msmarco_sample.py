"""The vendored MS MARCO-layout sample (real passages, queries and judgments) converted both ways."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from tests.conftest import SAMPLES
from wikiformer_kit.dataset_scripts.finetune.__main__ import main

SAMPLE = SAMPLES / "eval" / "msmarco-train-mini"
TRAINING_FILES = ",".join(str(SAMPLE / name) for name in ("collection.tsv", "queries.train.tsv", "qrels.train.tsv"))


def _rows(folder):
    return pa.concat_tables([pq.read_table(f) for f in sorted((folder / "data").glob("*.parquet"))]).to_pylist()


def _lines(name):
    return [line.split("\t") for line in (SAMPLE / name).read_text(encoding="utf-8").splitlines()]


def test_training_tsvs_mined_with_bm25(tmp_path):
    out = tmp_path / "mined"
    assert main(["--collection", TRAINING_FILES, "--output-dir", str(out), "--depth", "50", "--min-rank", "3"]) == 0
    rows = _rows(out)
    qrels = {(q, d) for q, _, d, _ in _lines("qrels.train.tsv")}
    queries = dict(_lines("queries.train.tsv"))
    assert {(r["query_id"], r["positive_id"]) for r in rows} == qrels
    assert all(r["query"] == queries[r["query_id"]] for r in rows)
    assert not [(r["query_id"], d) for r in rows for d in r["negative_ids"] if (r["query_id"], d) in qrels]
    assert all(1 <= len(r["negatives"]) <= 15 for r in rows)


def test_the_folder_reads_as_a_collection_with_its_triples_left_aside(tmp_path):
    # the folder as a whole: the eval loader reads the three training files and names the triples file as not read
    assert main(["--collection", str(SAMPLE), "--output-dir", str(tmp_path / "folder")]) == 0
    assert len(_rows(tmp_path / "folder")) == len(_lines("qrels.train.tsv"))


def test_triples_as_distributed(tmp_path):
    out = tmp_path / "triples"
    assert main(["--collection", str(SAMPLE / "triples.train.small.tsv"), "--output-dir", str(out)]) == 0
    rows = _rows(out)
    triples = _lines("triples.train.small.tsv")
    assert len(rows) == len({(q, p) for q, p, _ in triples})
    for row in rows:
        expected = [n for q, p, n in triples if q == row["query"] and p == row["positive"]]
        assert row["negatives"] == expected  # 4 per positive, file order
