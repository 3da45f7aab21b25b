from __future__ import annotations

import json
import logging

import pytest

from tests.eval.conftest import DL20_MINI
from wikiformer_kit.eval.collections import CollectionFormatError, read_rankllm_candidates


def test_vendored_dl20_candidates():
    documents, queries, run = read_rankllm_candidates(DL20_MINI / "candidates.json")
    assert len(queries) == 10 and len(run) == 10
    assert all(len(ranking) == 30 for ranking in run.values())
    assert queries["23849"] == "are naturalization records public information"
    assert documents["4348282"].startswith("Civil Records Definition.")
    assert max(run["23849"], key=run["23849"].get) == "4348282"


def _hit(qid, docid, content="text", score=1.0):
    return {"qid": qid, "docid": docid, "content": content, "rank": 1, "score": score}


def test_duplicates_and_conflicting_texts_are_counted(tmp_path, caplog):
    entries = [
        {"query": "a", "hits": [_hit(1, "d1", score=2.0), _hit(1, "d1", score=1.0), _hit(1, "d2")]},
        {"query": "b", "hits": [_hit(2, "d1", content="other text")]},
        {"query": "c", "hits": []},
    ]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(entries))
    with caplog.at_level(logging.WARNING):
        documents, queries, run = read_rankllm_candidates(path)
    assert run == {"1": {"d1": 2.0, "d2": 1.0}, "2": {"d1": 1.0}}
    assert documents["d1"] == "text"
    assert "1 duplicate hits" in caplog.text and "1 documents appear with different texts" in caplog.text
    assert "entry 2" in caplog.text and "no hits" in caplog.text


@pytest.mark.parametrize(
    "entries, message",
    [
        ({"query": "a"}, "expected a JSON list"),
        ([{"hits": []}], "entry 0 has no 'query'"),
        ([{"query": "a", "hits": [{"qid": 1, "docid": "d"}]}], r"entry 0, hit 0 lacks \['content'\]"),
        ([{"query": "a", "hits": [_hit(1, "d1"), _hit(2, "d2")]}], "several query ids"),
    ],
)
def test_malformed_candidates(tmp_path, entries, message):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(entries))
    with pytest.raises(CollectionFormatError, match=message):
        read_rankllm_candidates(path)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([{"query": "q", "hits": [1]}], "hit 0 is not an object"),
        ([{"query": 3, "hits": []}], "'query' must be text"),
        ([{"query": "q", "hits": [{"qid": 1, "docid": "d", "content": "t", "score": "high"}]}], "not a number"),
        ([{"query": "q", "hits": [{"qid": 1, "docid": "d", "content": None}]}], "'content' is not text"),
    ],
)
def test_malformed_hits_are_named(tmp_path, entries, message):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(entries))
    with pytest.raises(CollectionFormatError, match=message):
        read_rankllm_candidates(path)
