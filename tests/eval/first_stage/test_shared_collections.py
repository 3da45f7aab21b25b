"""bm25s on the full Cranfield and NPL collections (skipped without ../shared/data)."""

from __future__ import annotations

import pytest

from tests.conftest import shared_data
from wikiformer_kit.eval.collections import load_collection
from wikiformer_kit.eval.first_stage import first_stage_run
from wikiformer_kit.eval.metrics import evaluate_run


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "folder, documents, queries, expected_ndcg10",
    [("eval/cranfield", 1400, 225, 0.3650), ("eval/npl", 11429, 93, 0.4280)],
)
def test_bm25_effectiveness(folder, documents, queries, expected_ndcg10):
    pytest.importorskip("Stemmer", reason="BM25 stemming needs PyStemmer")
    collection = load_collection(str(shared_data(folder)))
    assert (len(collection.documents), len(collection.queries), len(collection.qrels)) == (documents, queries, queries)
    run = first_stage_run(collection, "bm25", k=100)
    means = evaluate_run(run, collection.qrels, ["nDCG@10", "R@100"]).means()
    # bm25s defaults (k1=1.5, b=0.75, Lucene variant), Snowball English stemming, bm25s English stopwords
    assert means["nDCG@10"] == pytest.approx(expected_ndcg10, abs=0.002)
    assert means["R@100"] > 0.55
