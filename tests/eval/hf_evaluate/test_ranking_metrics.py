"""The `evaluate` module: loaded as a downstream user would, in a fresh process with a clean HF_HOME."""

from __future__ import annotations

import json

import pytest

from tests.eval.conftest import DL20_MINI, run_fresh
from wikiformer_kit.eval.collections import load_collection
from wikiformer_kit.eval.metrics import evaluate_run

SCRIPT = """
import json, evaluate
from wikiformer_kit.eval.collections import load_collection
collection = load_collection("data/samples/eval/dl20-mini")
run = collection.runs["bm25"]
predictions = [{"query_id": q, "doc_ids": list(r), "scores": list(r.values())} for q, r in run.items()]
predictions = predictions[:6] + [{"query_id": p["query_id"], "doc_ids": [], "scores": []} for p in predictions[6:]]
references = [{"query_id": q, "doc_ids": list(j), "relevance": list(j.values())} for q, j in collection.qrels.items()]
metric = evaluate.load("wikiformer_kit/eval/hf_evaluate/ranking_metrics")
result = metric.compute(predictions=predictions, references=references, measures=["RR@10", "nDCG@10", "AP", "P@5"],
                        relevance_level=2, per_query=True)
print(json.dumps(result))
"""


def test_evaluate_load_matches_eval_metrics(tmp_path):
    result = run_fresh(["-c", SCRIPT], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    computed = json.loads(result.stdout.strip().splitlines()[-1])
    collection = load_collection(str(DL20_MINI))
    first_six = dict(list(collection.runs["bm25"].items())[:6])
    expected = evaluate_run(first_six, collection.qrels, ["RR@10", "nDCG@10", "AP", "P@5"], relevance_level=2)
    for name, value in expected.means().items():
        assert computed[name] == pytest.approx(value)
    for name, values in expected.per_query.items():
        assert computed["per_query"][name] == pytest.approx(values)
    assert len(computed["per_query"]["AP"]) == 6  # judged queries without predictions are left out


MISMATCHED = """
import evaluate
from wikiformer_kit.eval.collections import load_collection
collection = load_collection("data/samples/eval/dl20-mini")
predictions = [{"query_id": q, "doc_ids": ["X" + d for d in r], "scores": list(r.values())}
               for q, r in collection.runs["bm25"].items()]
references = [{"query_id": q, "doc_ids": list(j), "relevance": list(j.values())} for q, j in collection.qrels.items()]
evaluate.load("wikiformer_kit/eval/hf_evaluate/ranking_metrics").compute(predictions=predictions, references=references)
"""


def test_predictions_that_match_no_reference_are_refused(tmp_path):
    result = run_fresh(["-c", MISMATCHED], tmp_path)
    assert result.returncode != 0
    assert "ValueError: none of the 10 queries' predicted doc_ids is in its references" in result.stderr
