"""OpenMatch's re-ranking JSON lines (its TREC-COVID candidates' layout), from a real sample of OpenMatch's CORD-19
file: detected, read into documents, queries, the first stage's run and the positive labels; the paper's TREC-COVID
benchmark run on it."""

from __future__ import annotations

import json
import logging

import pytest

from tests.conftest import SAMPLES
from tests.eval.conftest import save_tiny_ranker
from wikiformer_kit.eval.cli import main
from wikiformer_kit.eval.collections import CollectionFormatError, load_collection
from wikiformer_kit.eval.collections.openmatch import read_openmatch_candidates
from wikiformer_kit.eval.collections.sniff import sniff

COVID = SAMPLES / "eval" / "openmatch-covid-mini"


def test_openmatch_candidates_are_read():
    records = [json.loads(line) for line in (COVID / "dev_toy.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sniff(COVID / "dev_toy.jsonl").kind == "openmatch"
    collection = load_collection(str(COVID))
    assert collection.queries == {"THUMSR-22": "Classification treatment COVID-19", "THUMSR-36": records[15]["query"]}
    assert len(collection.documents) == 30
    run = collection.runs["dev_toy"]
    first = records[0]
    assert run[first["query_id"]][first["paper_id"]] == first["retrieval_score"]
    positives = {(r["query_id"], r["paper_id"]): r["label"] for r in records if r["label"] > 0}
    assert {(q, d): g for q, docs in collection.qrels.items() for d, g in docs.items()} == positives
    assert collection.relevance_level == 1


def test_a_line_without_its_keys_is_named(tmp_path):
    path = tmp_path / "test.jsonl"
    path.write_text('{"query": "q", "doc": "d", "query_id": "1", "doc_id": "a"}\n{"query": "q", "doc": "d"}\n')
    with pytest.raises(CollectionFormatError, match=r"test.jsonl:2: not an OpenMatch candidate"):
        read_openmatch_candidates(path)


def test_paper_trec_covid_on_openmatchs_candidates(tmp_path):
    ranker = save_tiny_ranker(tmp_path / "ranker", initializer_range=0.2)
    out = tmp_path / "out"
    command = ["paper", "trec-covid-round2", "--model", str(ranker), "--collection", str(COVID), "--tag", "mine"]
    assert main([*command, "--output-dir", str(out), "--max-length", "128"]) == 0
    record = json.loads((out / "paper-table.json").read_text(encoding="utf-8"))
    assert record["paper"]["Wikiformer"] == {"nDCG@10": 0.5449}
    assert set(record["this_run"]) == {"dev_toy", "mine"} and set(record["this_run"]["mine"]) == {"nDCG@10", "P@5"}
    assert "| | model | N@10 | P@5 |" in (out / "paper-table.md").read_text(encoding="utf-8")


def test_a_qrels_file_beside_is_the_judgments(tmp_path):
    import shutil

    shutil.copy(COVID / "dev_toy.jsonl", tmp_path / "dev_toy.jsonl")
    records = [json.loads(line) for line in (COVID / "dev_toy.jsonl").read_text(encoding="utf-8").splitlines()]
    judged = [f"{r['query_id']} 0 {r['paper_id']} {r['label']}" for r in records]
    (tmp_path / "qrels.txt").write_text("\n".join(judged) + "\n", encoding="utf-8")
    collection = load_collection(str(tmp_path))
    assert sum(len(docs) for docs in collection.qrels.values()) == 30  # the judged 0s too, from the file
    assert collection.qrels["THUMSR-22"][records[2]["paper_id"]] == 0


def write_records(path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


def candidate(query_id="1", doc_id="a", query="a query", doc="a document", **more) -> dict:
    return {"query_id": query_id, "doc_id": doc_id, "query": query, "doc": doc, **more}


def test_a_retrieval_score_that_is_not_a_number_names_file_and_line(tmp_path):
    path = tmp_path / "test.jsonl"
    write_records(path, [candidate(retrieval_score=3.5), candidate(doc_id="b", retrieval_score="high")])
    with pytest.raises(
        CollectionFormatError, match=rf"^{path}:2: retrieval_score 'high' of query '1', document 'b' is not a number"
    ):
        read_openmatch_candidates(path)


def test_numbers_written_as_text_are_scores(tmp_path):
    path = tmp_path / "test.jsonl"
    write_records(path, [candidate(retrieval_score="3.5"), candidate(doc_id="b", retrieval_score=2)])
    assert read_openmatch_candidates(path)[2] == {"1": {"a": 3.5, "b": 2.0}}


def test_an_id_given_again_with_another_text_keeps_the_first_and_is_counted(tmp_path, caplog):
    path = tmp_path / "test.jsonl"
    records = [
        candidate(),
        candidate(query_id="2", doc="a document"),  # the same text again: silent
        candidate(query_id="2", doc="another document"),
        candidate(query_id="2", doc_id="b", query="another query"),
    ]
    write_records(path, records)
    with caplog.at_level(logging.WARNING):
        documents, queries, run, _ = read_openmatch_candidates(path)
    assert documents == {"a": "a document", "b": "a document"}
    assert queries == {"1": "a query", "2": "a query"}
    assert run == {"1": {"a": 0.0}, "2": {"a": 0.0, "b": -1.0}}
    assert f"{path}: 2 ids given again with another text, the first text kept (e.g. document 'a' at line 3)" in (
        caplog.text
    )


def test_a_null_query_text_is_a_counted_skip_naming_the_query(tmp_path, caplog):
    path = tmp_path / "test.jsonl"
    write_records(path, [candidate(query=None), candidate(query_id="2", doc_id="b", query="q2", doc=None)])
    with caplog.at_level(logging.WARNING):
        documents, queries, run, _ = read_openmatch_candidates(path)
    assert queries == {"2": "q2"} and documents == {"a": "a document"}
    assert set(run) == {"1", "2"}  # the run keeps them: the query goes unranked, the document missing, both counted
    assert f"{path}: 2 null texts not read (e.g. query '1' at line 1)" in caplog.text


def test_a_text_that_is_not_text_names_file_and_line(tmp_path):
    path = tmp_path / "test.jsonl"
    write_records(path, [candidate(), candidate(query=["a", "list"])])
    with pytest.raises(CollectionFormatError, match=rf"^{path}:2: the text of query '1' is a list, not text"):
        read_openmatch_candidates(path)
