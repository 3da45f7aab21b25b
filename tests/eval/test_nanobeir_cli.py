"""``python -m eval nanobeir``: figures printed and written under sentence-transformers' keys, read back as a
record (the card's input), equal to CrossEncoderNanoBEIREvaluator's on the same checkpoint and data."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from tests.conftest import PROJECT_ROOT
from tests.eval.conftest import run_fresh, save_tiny_ranker
from tests.eval.nanobeir_data import DEPTH, build_mini_nanobeir
from wikiformer_kit.eval.hub_results import check_eval_results
from wikiformer_kit.eval.nanobeir import NanoBEIREvaluator
from wikiformer_kit.eval.nanobeir_report import NanoBEIRRecord
from wikiformer_kit.eval.rerank import PairScorer


@pytest.fixture(scope="module")
def nano_folder(tmp_path_factory):
    return build_mini_nanobeir(tmp_path_factory.mktemp("nanobeir"))


@pytest.fixture(scope="module")
def spread_ranker(tmp_path_factory):
    return save_tiny_ranker(tmp_path_factory.mktemp("spread_ranker"), initializer_range=0.2)


def test_cli_writes_the_cards_figures(nano_folder, spread_ranker, tmp_path):
    from sentence_transformers.cross_encoder import CrossEncoder
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderNanoBEIREvaluator

    out = tmp_path / "out"
    command = ["-m", "eval", "nanobeir", str(spread_ranker), "--sets", "msmarco", "scifact"]
    command += ["--data", str(nano_folder), "--rerank-k", str(DEPTH), "--output-dir", str(out)]
    result = run_fresh(command, tmp_path)
    assert result.returncode == 0, result.stderr
    record = NanoBEIRRecord.load(out)
    theirs = CrossEncoderNanoBEIREvaluator(
        ["msmarco", "scifact"], dataset_id=str(nano_folder), rerank_k=DEPTH, write_csv=False
    )(CrossEncoder(str(spread_ranker)))
    assert set(record.results) == set(theirs)
    for key, value in theirs.items():
        assert record.results[key] == pytest.approx(value, abs=1e-6), key
    assert record.primary_metric == "NanoBEIR_R20_mean_ndcg@10"
    assert record.sets == ["msmarco", "scifact"] and record.rerank_k == DEPTH
    assert record.settings["long_documents"] == {"mode": "firstp"}
    mean = record.results["NanoBEIR_R20_mean_ndcg@10"]
    assert f"NanoBEIR_R20_mean_ndcg@10: {mean:.4f}" in result.stdout
    assert "| NanoMSMARCO_R20 |" in result.stdout and "| **mean of 2 sets** |" in result.stdout


def test_record_table_and_errors(tmp_path):
    results = {
        f"{prefix}_{base}{metric}": value
        for prefix, value in (("NanoNQ_R100", 0.5), ("NanoBEIR_R100_mean", 0.5))
        for base in ("", "base_")
        for metric in ("map", "mrr@10", "ndcg@10")
    }
    record = NanoBEIRRecord("m", "d", ["nq"], 100, 10, True, results)
    table = record.markdown_table()
    assert table.splitlines()[0] == ("| set | ndcg@10 | BM25 ndcg@10 | mrr@10 | BM25 mrr@10 | map | BM25 map |")
    assert "| NanoNQ_R100 | 0.5000 | 0.5000 |" in table
    del results["NanoNQ_R100_mrr@10"]
    with pytest.raises(ValueError, match="NanoBEIR figures lack NanoNQ_R100_mrr@10"):
        record.markdown_table()
    (tmp_path / "nanobeir.json").write_text(json.dumps({"results": {}}))
    with pytest.raises(ValueError, match="nanobeir.json: not a nanobeir.json written by python -m eval nanobeir"):
        NanoBEIRRecord.load(tmp_path)


def test_cli_reads_the_sets_by_their_hub_id(hub, nano_folder, spread_ranker, tmp_path):
    """A user's fresh process naming the dataset by its Hub id (the local test Hub), as ``--data ns/ID``."""
    hub.upload_dataset("ns/NanoBEIR-mini", nano_folder, tmp_path / "home_pusher")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "wikiformer_kit.eval", "nanobeir", str(spread_ranker), "--sets", "scifact"]
    command += ["--data", "ns/NanoBEIR-mini", "--rerank-k", str(DEPTH), "--output-dir", str(out)]
    env = {**hub.env(tmp_path / "home_user"), "PYTHONPATH": str(PROJECT_ROOT)}
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    from_hub = NanoBEIRRecord.load(out)
    assert from_hub.dataset_id == "ns/NanoBEIR-mini"
    local = NanoBEIREvaluator(["scifact"], dataset_id=nano_folder, rerank_k=DEPTH)(PairScorer(str(spread_ranker)))
    assert from_hub.results == pytest.approx(local, abs=1e-6)
    # the figures as the Hub's evaluation results, under the dataset read, a task per set
    [primary] = yaml.safe_load((out / ".eval_results" / "nanobeir_mini.yaml").read_text())
    assert primary["dataset"] == {"id": "ns/NanoBEIR-mini", "task_id": "NanoSciFact"}
    assert primary["value"] == round(from_hub.results[f"NanoSciFact_R{DEPTH}_ndcg@10"], 4)
    for path in (out / ".eval_results").glob("*.yaml"):
        check_eval_results(path)
