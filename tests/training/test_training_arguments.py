"""TrainingArguments features run through WikiformerTrainer: bf16, activation (gradient) checkpointing, torch.compile."""

from __future__ import annotations

import math

import pytest

from tests.training.test_trainer import make_trainer


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"bf16": True}, id="bf16"),
        pytest.param({"activation_checkpointing": True}, id="activation_checkpointing"),  # was gradient_checkpointing
    ],
)
def test_option_trains(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, options):
    trainer = make_trainer(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, max_steps=2, **options)
    result = trainer.train()
    assert math.isfinite(result.training_loss)
    if options.get("activation_checkpointing"):
        assert trainer.model.is_activation_checkpointing
    losses = [log["loss"] for log in trainer.state.log_history if "loss" in log]
    assert abs(losses[0] - math.log(3)) < 2e-2  # bf16 autocast rounds the scores a little


@pytest.mark.slow
def test_torch_compile_trains(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path):
    trainer = make_trainer(
        tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, max_steps=2, torch_compile=True
    )
    result = trainer.train()
    assert math.isfinite(result.training_loss)
    assert type(trainer.model_wrapped).__name__ == "OptimizedModule"
