"""train.py chooses the checkpoint on NanoBEIR (``--eval_nanobeir``) by sentence-transformers' figures, from a local
NanoBEIR-layout folder built from the vendored real collections."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch
from safetensors.torch import load_file

from tests.conftest import PROJECT_ROOT
from tests.eval.nanobeir_data import DEPTH, build_mini_nanobeir
from tests.training.conftest import clean_env, run_train, train_command
from wikiformer_kit.eval.nanobeir import NanoBEIREvaluator
from wikiformer_kit.eval.rerank import PairScorer
from wikiformer_kit.training.arguments import DataArguments
from wikiformer_kit.training.evaluation import NanoBEIREvalSet, load_rerank_eval

PRIMARY = f"NanoBEIR_R{DEPTH}_mean_ndcg@10"


@pytest.fixture(scope="module")
def nano_folder(tmp_path_factory):
    return build_mini_nanobeir(tmp_path_factory.mktemp("nanobeir"))


@pytest.fixture(scope="module")
def trained_on_nanobeir(tiny_encoder_dir, srr_groups_path, nano_folder, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("trained")
    output_dir = tmp_path / "run"
    extra = ["--max_steps", "6", "--eval_strategy", "steps", "--eval_steps", "2", "--save_steps", "2"]
    extra += ["--eval_nanobeir", "msmarco", "scifact", "--eval_nanobeir_data", str(nano_folder)]
    extra += ["--eval_nanobeir_rerank_k", str(DEPTH), "--eval_max_length", "64"]
    extra += ["--metric_for_best_model", PRIMARY, "--load_best_model_at_end", "true"]
    run_train(train_command(tiny_encoder_dir, srr_groups_path, output_dir, *extra), tmp_path)
    return output_dir


def test_the_checkpoint_is_chosen_by_the_cards_figure(trained_on_nanobeir, nano_folder):
    output_dir = trained_on_nanobeir
    state = json.loads((output_dir / "trainer_state.json").read_text())
    evaluations = [log for log in state["log_history"] if f"eval_{PRIMARY}" in log]
    assert [log["step"] for log in evaluations] == [2, 4, 6]
    assert {"eval_NanoMSMARCO_R20_mrr@10", "eval_NanoSciFact_R20_map", "eval_NanoBEIR_R20_mean_base_ndcg@10"} <= set(
        evaluations[0]
    )
    best = max(evaluations, key=lambda log: log[f"eval_{PRIMARY}"])
    assert state["best_global_step"] == best["step"]
    final = load_file(output_dir / "model.safetensors")
    kept = load_file(output_dir / f"checkpoint-{best['step']}" / "model.safetensors")
    assert all(torch.equal(final[name], kept[name]) for name in final)
    # the kept model, loaded from its folder, gives the figures that chose it
    evaluator = NanoBEIREvaluator(["msmarco", "scifact"], dataset_id=nano_folder, rerank_k=DEPTH)
    again = evaluator(PairScorer(str(output_dir), max_length=64))
    for key, value in again.items():
        assert best[f"eval_{key}"] == pytest.approx(value, abs=1e-6), key


def test_nanobeir_and_a_dev_collection_are_not_both_choosers(nano_folder):
    with pytest.raises(ValueError, match="one dev set chooses the checkpoint"):
        load_rerank_eval(DataArguments(eval_dir="some/dev", eval_nanobeir=["msmarco"]))
    eval_set = load_rerank_eval(
        DataArguments(eval_nanobeir=["msmarco"], eval_nanobeir_data=str(nano_folder), eval_nanobeir_rerank_k=DEPTH)
    )
    assert isinstance(eval_set, NanoBEIREvalSet)
    assert "NanoBEIR_R20_mean_ndcg@10" in eval_set.metric_names()
    assert "NanoMSMARCO_R20_base_mrr@10" in eval_set.metric_names()


def test_a_metric_the_evaluation_never_logs_is_refused(tiny_encoder_dir, srr_groups_path, nano_folder, tmp_path):
    extra = ["--max_steps", "2", "--eval_strategy", "steps", "--eval_steps", "2"]
    extra += ["--eval_nanobeir", "msmarco", "--eval_nanobeir_data", str(nano_folder)]
    extra += ["--metric_for_best_model", "ndcg@10", "--load_best_model_at_end", "true", "--save_steps", "2"]
    command = [sys.executable, str(PROJECT_ROOT / "train.py")]
    command += train_command(tiny_encoder_dir, srr_groups_path, tmp_path / "run", *extra)
    result = subprocess.run(command, cwd=PROJECT_ROOT, env=clean_env(tmp_path), capture_output=True, text=True)
    assert result.returncode != 0
    assert "metric_for_best_model 'ndcg@10' is not logged by the evaluation of NanoBEIR_R100_mean" in result.stderr


@pytest.mark.parametrize("kept_the_best", [False, True])
def test_the_trainers_card_carries_the_nanobeir_figures(
    kept_the_best, tiny_encoder_dir, srr_groups_path, minilm_tokenizer, nano_folder, tmp_path
):
    from huggingface_hub import ModelCard

    from tests.training.test_trainer import make_trainer

    trainer = make_trainer(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path)
    trainer.eval_dataset = load_rerank_eval(
        DataArguments(eval_nanobeir=["msmarco"], eval_nanobeir_data=str(nano_folder), eval_nanobeir_rerank_k=DEPTH)
    )
    trainer.args.load_best_model_at_end = kept_the_best
    logged = trainer.evaluate()
    trainer.state.log_history = [{**logged, "step": 1}]
    trainer.state.best_global_step = 1
    trainer.create_model_card()
    card = ModelCard.load(tmp_path / "README.md")
    results = {(r.dataset_type, r.metric_type): r.metric_value for r in card.data.eval_results or []}
    # figures that chose the kept checkpoint are selection figures, never results
    if kept_the_best:
        assert results == {} and "**selection figures**: the checkpoint was chosen" in card.content
    else:
        assert results[("NanoBEIR_R20_mean", "ndcg@10")] == round(logged[f"eval_{PRIMARY}"], 4)
        assert len(results) == 6
