"""A model trained by train.py (with evaluation and best-checkpoint selection) loads through every path."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch
from safetensors.torch import load_file

from tests.conftest import PROJECT_ROOT
from tests.training.conftest import DL20_MINI, clean_env, run_train, train_command

PAIRS = [
    ("what is anarchism", "Anarchism is a political philosophy and movement."),
    ("what is anarchism", "Albedo is the fraction of sunlight that is diffusely reflected by a body."),
]

LOAD_EVERY_WAY = """
import json, sys, torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, BertForSequenceClassification
from sentence_transformers import CrossEncoder
path, pairs = sys.argv[1], json.loads(sys.argv[2])
tokenizer = AutoTokenizer.from_pretrained(path)
encoded = tokenizer([q for q, _ in pairs], [d for _, d in pairs], padding=True, return_tensors="pt")
out = {}
for name, load in [
    ("remote", lambda: AutoModelForSequenceClassification.from_pretrained(path, trust_remote_code=True)),
    ("bert", lambda: BertForSequenceClassification.from_pretrained(path)),
]:
    model = load().eval()
    with torch.no_grad():
        out[name] = [type(model).__name__, model(**encoded).logits.view(-1).tolist()]
out["cross_encoder"] = ["CrossEncoder", CrossEncoder(path, activation_fn=torch.nn.Identity()).predict(pairs).tolist()]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def trained_run(tiny_encoder_dir, srr_groups_path, tmp_path_factory):
    if not (DL20_MINI / "candidates.json").exists():
        pytest.skip("data/samples/eval/dl20-mini not vendored")
    tmp_path = tmp_path_factory.mktemp("trained")
    output_dir = tmp_path / "run"
    run_train(
        train_command(
            tiny_encoder_dir,
            srr_groups_path,
            output_dir,
            "--max_steps",
            "6",
            "--eval_dir",
            str(DL20_MINI),
            "--eval_max_queries",
            "3",
            "--eval_depth",
            "5",
            "--eval_max_length",
            "64",
            "--eval_strategy",
            "steps",
            "--eval_steps",
            "2",
            "--save_steps",
            "2",
            "--save_start_step",
            "4",
            "--metric_for_best_model",
            "ndcg@10",
            "--load_best_model_at_end",
            "true",
        ),
        tmp_path,
    )
    return output_dir, tmp_path


def test_evaluation_selects_the_best_checkpoint(trained_run):
    output_dir, _ = trained_run
    state = json.loads((output_dir / "trainer_state.json").read_text())
    evaluations = [log for log in state["log_history"] if "eval_ndcg@10" in log]
    assert [log["step"] for log in evaluations] == [4, 6]  # nothing before save_start_step
    assert all("eval_mrr@10" in log for log in evaluations)
    best = max(evaluations, key=lambda log: log["eval_ndcg@10"])
    assert state["best_global_step"] == best["step"]
    assert state["best_metric"] == pytest.approx(best["eval_ndcg@10"])
    final = load_file(output_dir / "model.safetensors")
    kept = load_file(output_dir / f"checkpoint-{best['step']}" / "model.safetensors")
    assert all(torch.equal(final[name], kept[name]) for name in final)
    assert not (output_dir / "checkpoint-2").exists()


def test_checkpoint_loads_with_and_without_remote_code(trained_run):
    output_dir, tmp_path = trained_run
    for name in ("modeling_wikiformer.py", "modules.json", "sentence_bert_config.json", "tokenizer.json"):
        assert (output_dir / name).is_file(), name
    result = subprocess.run(
        [sys.executable, "-c", LOAD_EVERY_WAY, str(output_dir), json.dumps(PAIRS)],
        cwd=tmp_path,
        env=clean_env(tmp_path) | {"PYTHONPATH": ""},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    scores = json.loads(result.stdout.strip().splitlines()[-1])
    assert scores["remote"][0] == "WikiformerForRanking"
    assert scores["bert"][0] == "BertForSequenceClassification"
    assert scores["remote"][1] == pytest.approx(scores["bert"][1], abs=1e-5)
    assert scores["cross_encoder"][1] == pytest.approx(scores["bert"][1], abs=1e-5)
    assert scores["bert"][1][0] != scores["bert"][1][1]  # the trained head separates the pairs
    assert str(PROJECT_ROOT) not in result.stderr
