"""experiments/long_documents.py: FirstP, MaxP and SumP with a bi-encoder's cosine, on the MS MARCO document sample."""

from __future__ import annotations

import json

from tests.eval.conftest import EVAL_SAMPLES, run_fresh


def test_the_three_ways_are_measured_and_written(tmp_path):
    output = tmp_path / "long.json"
    collection = EVAL_SAMPLES / "msmarco-doc-mini"
    args = [
        "-m",
        "experiments.long_documents",
        "--collection",
        str(collection),
        "--output",
        str(output),
        "--depth",
        "5",
    ]
    done = run_fresh([*args, "--passage-window", "16", "--passage-stride", "8"], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(output.read_text())
    assert results["queries"] == 6 and results["first_stage"]["RR@10"] == 1.0  # BM25 ranks each answer first
    assert results["maxp"]["window"] == 16 and results["sump"]["stride"] == 8 and results["firstp"]["mode"] == "firstp"
    assert results["pairs"] == 6 * 5 and results["depth"] == 5
    for mode in ("firstp", "maxp", "sump"):
        assert 0.0 < results[mode]["means"]["nDCG@10"] <= 1.0
    assert "| maxp |" in done.stdout
