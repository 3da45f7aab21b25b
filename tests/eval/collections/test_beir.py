from __future__ import annotations

import json
import logging

import pytest

from tests.eval.conftest import DL20_MINI, run_fresh
from wikiformer_kit.eval.collections import (
    CollectionFormatError,
    load_beir_folder,
    load_collection,
    read_jsonl_queries,
    read_rankllm_candidates,
)


@pytest.fixture(scope="module")
def dl20_parts():
    documents, queries, _ = read_rankllm_candidates(DL20_MINI / "candidates.json")
    qrels = [line.split() for line in (DL20_MINI / "qrels.txt").read_text().splitlines()]
    return documents, queries, qrels


def write_beir_folder(folder, documents, queries, qrels):
    (folder / "qrels").mkdir(parents=True)
    with open(folder / "corpus.jsonl", "w") as out:
        for docid, text in documents.items():
            out.write(json.dumps({"_id": docid, "title": "", "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w") as out:
        for qid, text in queries.items():
            out.write(json.dumps({"_id": qid, "text": text}) + "\n")
    with open(folder / "qrels" / "test.tsv", "w") as out:
        out.write("query-id\tcorpus-id\tscore\n")
        out.writelines(f"{q}\t{d}\t{g}\n" for q, _, d, g in qrels)


def test_beir_folder(tmp_path, dl20_parts):
    write_beir_folder(tmp_path / "dl20", *dl20_parts)
    collection = load_collection(str(tmp_path / "dl20"))
    assert (len(collection.documents), len(collection.queries)) == (300, 10)
    assert collection.qrels["23849"]["1020327"] == 2
    assert load_collection(f"beir:{tmp_path / 'dl20'}@test").qrels == collection.qrels


def test_beir_errors(tmp_path, dl20_parts):
    write_beir_folder(tmp_path / "dl20", *dl20_parts)
    with pytest.raises(CollectionFormatError, match=r"dev.tsv: missing file"):
        load_beir_folder(tmp_path / "dl20", split="dev")
    (tmp_path / "dl20" / "queries.jsonl").write_text('{"_id": "1", "text": "a"}\n{"text": "b"}\n')
    with pytest.raises(CollectionFormatError, match=r"queries.jsonl:2: record lacks \['_id'\]"):
        load_beir_folder(tmp_path / "dl20")


README = """---
configs:
- config_name: corpus
  data_files:
  - split: corpus
    path: corpus/*.parquet
- config_name: queries
  data_files:
  - split: queries
    path: queries/*.parquet
{qrels}---
"""
QRELS_CONFIG = """- config_name: default
  data_files:
  - split: test
    path: qrels/test.parquet
"""


def write_hf_folder(folder, documents, queries, qrels, with_qrels=True):
    from datasets import Dataset

    folder.mkdir(parents=True)
    Dataset.from_dict(
        {"_id": list(documents), "title": [""] * len(documents), "text": list(documents.values())}
    ).to_parquet(str(folder / "corpus" / "corpus.parquet"))
    Dataset.from_dict({"_id": list(queries), "text": list(queries.values())}).to_parquet(
        str(folder / "queries" / "queries.parquet")
    )
    rows = {"query-id": [q for q, *_ in qrels], "corpus-id": [r[2] for r in qrels], "score": [int(r[3]) for r in qrels]}
    qrels_folder = folder if with_qrels else folder.with_name(folder.name + "-qrels")
    Dataset.from_dict(rows).to_parquet(str(qrels_folder / "qrels" / "test.parquet"))
    (folder / "README.md").write_text(README.format(qrels=QRELS_CONFIG if with_qrels else ""))


SCRIPT = """
import json, sys
from wikiformer_kit.eval.collections import load_collection
c = load_collection(sys.argv[1])
print(json.dumps({"docs": len(c.documents), "queries": len(c.queries), "judgments": sum(map(len, c.qrels.values())),
                  "grade": c.qrels["23849"]["1020327"], "name": c.name}))
"""


@pytest.mark.parametrize("layout", ["mteb", "beir-hub"])
def test_hf_dataset_folder_in_fresh_process(tmp_path, dl20_parts, layout):
    folder = tmp_path / "dl20"
    write_hf_folder(folder, *dl20_parts, with_qrels=layout == "mteb")
    if layout == "beir-hub":  # the BEIR Hub layout keeps qrels in a companion "<id>-qrels" dataset
        (tmp_path / "dl20-qrels" / "README.md").write_text(
            "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: qrels/test.parquet\n---\n"
        )
    for spec in (f"hf:{folder}", str(folder)):
        result = run_fresh(["-c", SCRIPT, spec], tmp_path)
        assert result.returncode == 0, result.stderr[-3000:]
        assert json.loads(result.stdout.strip().splitlines()[-1]) == {
            "docs": 300,
            "queries": 10,
            "judgments": 2157,
            "grade": 2,
            "name": "dl20",
        }


def test_a_null_query_text_is_a_counted_skip_naming_the_file_and_query(tmp_path, dl20_parts, caplog):
    documents, queries, qrels = dl20_parts
    write_beir_folder(tmp_path / "dl20", documents, {**queries, "23849": None}, qrels)
    with caplog.at_level(logging.WARNING):
        collection = load_collection(str(tmp_path / "dl20"))
    assert "23849" not in collection.queries and len(collection.queries) == 9
    assert f"{tmp_path / 'dl20' / 'queries.jsonl'}: 1 queries with a null text skipped (e.g. ['23849'])" in caplog.text


def test_a_null_query_text_of_ir_datasets_jsonl_is_a_counted_skip(tmp_path, caplog):
    path = tmp_path / "queries.jsonl"
    path.write_text('{"query_id": "1", "text": "a query"}\n{"query_id": "2", "text": null}\n', encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert read_jsonl_queries(path) == {"1": "a query"}
    assert f"{path}: 1 queries with a null text skipped (e.g. ['2'])" in caplog.text
