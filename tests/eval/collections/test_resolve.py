from __future__ import annotations

import json
import logging
import shutil

import pytest

from tests.eval.conftest import CRANFIELD_MINI, DL20_MINI, NPL_MINI
from wikiformer_kit.eval.collections import Collection, CollectionFormatError, load_collection


def test_dl20_sample_is_detected_with_its_metadata():
    collection = load_collection(str(DL20_MINI))
    assert collection.name == "dl20-mini" and collection.relevance_level == 2
    assert sorted(collection.runs) == ["bm25", "candidates"]
    assert collection.runs["bm25"]["23849"] == pytest.approx(collection.runs["candidates"]["23849"])
    assert len(collection.qrels) == 10 and collection.judged_query_ids() == list(collection.queries)
    assert load_collection(str(DL20_MINI), relevance_level=1).relevance_level == 1


def test_smart_and_sgml_samples_are_detected():
    cranfield = load_collection(str(CRANFIELD_MINI))
    assert (len(cranfield.documents), len(cranfield.queries), len(cranfield.qrels)) == (50, 5, 5)
    assert cranfield.qrels["2"]["12"] == 4  # Cleverdon code 1 read through the SMART qrels reader
    npl = load_collection(f"trec-sgml:{NPL_MINI}")
    assert (len(npl.documents), len(npl.queries), len(npl.qrels)) == (50, 5, 5)
    assert npl.queries["1"] == "MEASUREMENT OF DIELECTRIC CONSTANT OF LIQUIDS BY THE USE OF MICROWAVE TECHNIQUES"


def test_format_prefix_must_match(tmp_path):
    with pytest.raises(CollectionFormatError, match="asked for format 'smart' but the files look like 'trec-sgml'"):
        load_collection(f"smart:{NPL_MINI}")
    with pytest.raises(FileNotFoundError, match="is not a folder"):
        load_collection(str(tmp_path / "missing"))


def test_folder_errors(tmp_path):
    with pytest.raises(CollectionFormatError, match="no collection file recognised"):
        load_collection(str(tmp_path))
    shutil.copy(DL20_MINI / "qrels.txt", tmp_path / "qrels.a")
    shutil.copy(DL20_MINI / "qrels.txt", tmp_path / "qrels.b")
    with pytest.raises(CollectionFormatError, match=r"several qrels files \['qrels.a', 'qrels.b'\]"):
        load_collection(str(tmp_path))


def test_trec_folder_with_tsv_documents(tmp_path):
    (tmp_path / "collection.tsv").write_text("d1\tfirst passage\nd2\tsecond passage\n")
    (tmp_path / "topics.tsv").write_text("q1\tfirst\nq2\tunjudged\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "collection.json").write_text(json.dumps({"name": "tiny", "relevance_level": 1}))
    collection = load_collection(f"trec:{tmp_path}")
    assert collection.documents == {"d1": "first passage", "d2": "second passage"}
    assert collection.queries == {"q1": "first", "q2": "unjudged"} and collection.name == "tiny"
    assert collection.qrels == {"q1": {"d1": 1}}


def test_problems_are_counted(caplog):
    collection = Collection(
        "bad",
        documents={"d1": "text", "d2": " "},
        queries={"q1": "a query", "q2": "", "q3": "unjudged"},
        qrels={"q1": {"d1": 1}, "q2": {"d1": 1}, "q4": {"d1": 1}},
        runs={"bm25": {"q1": {"d1": 1.0, "d9": 0.5, "d8": 0.1}}},
    )
    problems = collection.problems()
    assert any(p.startswith("1 of 3 queries have no judgments") for p in problems)
    assert any(p.startswith("1 of 3 judged queries have no query text") for p in problems)
    assert any(p.startswith("1 queries have an empty text") for p in problems)
    assert any(p.startswith("1 documents have an empty text") for p in problems)
    assert any("run 'bm25': 2 candidate documents are not in the corpus" in p for p in problems)
    with caplog.at_level(logging.WARNING):
        collection.log_problems()
    assert caplog.text.count("bad: ") == 5
    assert Collection("ok", {"d": "t"}, {"q": "t"}, {"q": {"d": 1}}).problems() == []
