from __future__ import annotations

import logging
import sys

import pytest

from tests.eval.conftest import CRANFIELD_MINI, DL20_MINI
from wikiformer_kit.eval.collections import load_collection
from wikiformer_kit.eval.first_stage import PAPER_B, PAPER_K1, BM25Options, BM25Retriever, first_stage_run


@pytest.fixture(scope="module")
def cranfield():
    return load_collection(str(CRANFIELD_MINI))


NO_STEMMING = BM25Options(stemmer=None)


def test_a_documents_own_title_finds_it(cranfield):
    retriever = BM25Retriever(cranfield.documents, NO_STEMMING)
    query = {"t": "experimental investigation of the aerodynamics of a wing in a slipstream"}
    run = retriever.retrieve(query, k=5)
    ranking = sorted(run["t"].items(), key=lambda item: -item[1])
    assert ranking[0][0] == "1" and len(ranking) == 5
    assert ranking[0][1] > ranking[1][1] > 0


def test_stemming_matches_inflections():
    pytest.importorskip("Stemmer", reason="BM25 stemming needs PyStemmer")
    documents = {"a": "the wings were tested", "b": "engine noise measurement"}
    stemmed = BM25Retriever(documents).retrieve({"q": "wing testing"}, k=2)
    assert max(stemmed["q"], key=stemmed["q"].get) == "a" and stemmed["q"]["a"] > 0
    assert BM25Retriever(documents, BM25Options(stemmer=None)).retrieve({"q": "wing testing"}, k=2) == {}


def test_paper_parameters_and_stopword_file(tmp_path):
    options = BM25Options.paper(stemmer=None)
    assert (options.k1, options.b) == (PAPER_K1, PAPER_B) == (3.8, 0.87)
    stopwords = tmp_path / "stop.txt"
    stopwords.write_text("engine\nthe\n")
    documents = {"a": "engine noise", "b": "engine wing"}
    run = BM25Retriever(documents, BM25Options(stemmer=None, stopwords=str(stopwords))).retrieve({"q": "engine"}, k=2)
    assert run == {}  # "engine" is a stopword now: the query has no indexed term


def test_missing_pystemmer_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # as on a machine without PyStemmer
    with pytest.raises(ImportError, match="BM25 stemming needs PyStemmer: pip install PyStemmer"):
        BM25Retriever({"a": "text"}, BM25Options(stemmer="english"))


def test_empty_queries_are_skipped_with_a_count(cranfield, caplog):
    retriever = BM25Retriever(cranfield.documents, NO_STEMMING)
    with caplog.at_level(logging.WARNING):
        run = retriever.retrieve({"a": "", "b": "the of", "c": "wing", "d": "zzzqqq"}, k=1000)
    assert list(run) == ["c"] and len(run["c"]) == 50  # k capped at the number of documents
    assert "3 of 4 queries are empty or match no indexed term" in caplog.text


def test_first_stage_defaults_to_judged_queries_and_cuts_given_runs(caplog):
    collection = load_collection(str(DL20_MINI))
    given = first_stage_run(collection, "candidates", k=5)
    assert len(given) == 10 and all(len(r) == 5 for r in given.values())
    assert given["23849"] == dict(sorted(collection.runs["candidates"]["23849"].items(), key=lambda i: -i[1])[:5])
    bm25 = first_stage_run(collection, "bm25", k=3, query_ids=["23849", "156498"], bm25_options=NO_STEMMING)
    assert list(bm25) == ["23849", "156498"] and all(len(r) == 3 for r in bm25.values())
    with caplog.at_level(logging.WARNING):
        partial = first_stage_run(collection, "given", k=3, query_ids=["23849", "nope"])
    assert list(partial) == ["23849"] and "1 of 2 queries have no candidates" in caplog.text
    with pytest.raises(ValueError, match=r"no run 'splade'"):
        first_stage_run(collection, "splade")


def test_ties_across_the_cut_go_as_trec_eval_ranks_them():
    # Five documents score the same for the query; trec_eval orders ties by document id, larger first.
    documents = {d: "lift wing" for d in ("d1", "d3", "d5", "d2", "d4")} | {"x": "lift lift", "y": "noise wing"}
    retriever = BM25Retriever(documents, NO_STEMMING)
    full = retriever.retrieve({"q": "lift"}, k=6)["q"]
    assert full["x"] > full["d1"] == full["d2"] == full["d3"] == full["d4"] == full["d5"] > 0
    for k in range(1, 7):
        top = retriever.retrieve({"q": "lift"}, k=k)["q"]
        expected = ["x", "d5", "d4", "d3", "d2", "d1"][:k]
        assert sorted(top) == sorted(expected), k
        assert all(top[d] == full[d] for d in top)


@pytest.mark.parametrize(("given", "expected"), [(None, "cpu"), ("cuda", "cuda")])
def test_jax_is_kept_off_the_gpu_unless_asked(given, expected):
    """bm25s runs JAX at import when JAX is installed; on CUDA that would take 75% of the GPU from the re-ranker."""
    import os
    import subprocess

    env = {key: value for key, value in os.environ.items() if key != "JAX_PLATFORMS"}
    if given:
        env["JAX_PLATFORMS"] = given
    code = "import os, wikiformer_kit.eval.first_stage.bm25; print(os.environ['JAX_PLATFORMS'])"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == expected
