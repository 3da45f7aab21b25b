"""Float32 master weights from a float16 checkpoint; a non-finite loss stops (or skips) loudly; no NaN model is kept."""

from __future__ import annotations

import math

import pytest
import torch
from safetensors.torch import load_file

from wikiformer_kit.modeling_wikiformer import WikiformerForRanking
from wikiformer_kit.train import load_model
from wikiformer_kit.training.arguments import ModelArguments
from wikiformer_kit.training.trainer import NonFiniteModelError, NonFiniteTrainingError, WikiformerTrainer

from .conftest import tiny_bert_config
from .test_trainer import make_trainer


@pytest.fixture(scope="module")
def float16_encoder_dir(tmp_path_factory, minilm_tokenizer):
    """A tiny random BERT stored in float16, as many Hub checkpoints are."""
    from transformers import BertModel

    folder = tmp_path_factory.mktemp("tiny-bert-fp16")
    torch.manual_seed(0)
    BertModel(tiny_bert_config(len(minilm_tokenizer))).half().save_pretrained(folder)
    minilm_tokenizer.save_pretrained(folder)
    assert {tensor.dtype for tensor in load_file(folder / "model.safetensors").values()} == {torch.float16}
    return folder


class InjectedLoss(WikiformerTrainer):
    """Adds ``injected`` to the loss at the optimizer steps in ``at_steps`` (0-based)."""

    injected, at_steps = float("nan"), ()

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        loss = super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
        if model.training and self.state.global_step in self.at_steps:
            loss = loss + self.injected
        return loss


def injected_trainer(model_dir, data, tokenizer, output_dir, injected, at_steps, **overrides):
    trainer = make_trainer(model_dir, data, tokenizer, output_dir, **overrides)
    trainer.__class__ = InjectedLoss
    trainer.injected, trainer.at_steps = injected, tuple(at_steps)
    return trainer


def test_float16_checkpoint_trains_with_float32_weights(
    float16_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path
):
    # inference keeps the stored dtype; a start for training does not
    assert WikiformerForRanking.from_pretrained(float16_encoder_dir).dtype == torch.float16
    assert WikiformerForRanking.from_bert(float16_encoder_dir).dtype == torch.float32
    assert (
        load_model(ModelArguments(model_name_or_path=str(float16_encoder_dir)), with_mlm=False).dtype == torch.float32
    )
    trainer = make_trainer(float16_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, max_steps=4)
    trainer.train()
    assert {parameter.dtype for parameter in trainer.model.parameters()} == {torch.float32}
    losses = [log["loss"] for log in trainer.state.log_history if "loss" in log]
    assert len(losses) == 4 and all(math.isfinite(loss) for loss in losses)
    assert all(math.isfinite(log["grad_norm"]) for log in trainer.state.log_history if "grad_norm" in log)


@pytest.mark.parametrize("injected", [float("nan"), float("inf")])
def test_nonfinite_loss_stops_and_keeps_the_last_good_checkpoint(
    tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, injected
):
    # +inf leaves the gradients finite: only the loss check catches it
    trainer = injected_trainer(
        tiny_encoder_dir,
        srr_groups_path,
        minilm_tokenizer,
        tmp_path,
        injected,
        at_steps=[2],
        max_steps=5,
        save_strategy="steps",
        save_steps=1,
    )
    with pytest.raises(NonFiniteTrainingError) as raised:
        trainer.train()
    message = str(raised.value)
    assert "non-finite loss at optimizer step 3" in message
    assert "tasks in the batch srr" in message and "learning rate 0.0006" in message  # linear decay, step 3 of 5
    assert f"Last good checkpoint: {tmp_path / 'checkpoint-2'}" in message
    assert sorted(path.name for path in tmp_path.glob("checkpoint-*")) == ["checkpoint-1", "checkpoint-2"]
    assert not (tmp_path / "model.safetensors").exists()
    weights = load_file(tmp_path / "checkpoint-2" / "model.safetensors")
    assert all(torch.isfinite(tensor).all() for tensor in weights.values())
    # the update of the bad step was not applied: the model in memory is still the step-2 model
    live = dict(trainer.model.named_parameters())
    assert all(torch.equal(live[name].detach(), tensor) for name, tensor in weights.items() if name in live)


def test_skip_policy_counts_and_logs_nan_not_zero(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path):
    trainer = injected_trainer(
        tiny_encoder_dir,
        srr_groups_path,
        minilm_tokenizer,
        tmp_path,
        float("nan"),
        at_steps=[1],
        max_steps=4,
        nonfinite_policy="skip",
    )
    trainer.train()
    logs = [log for log in trainer.state.log_history if "loss" in log]
    assert math.isnan(logs[1]["loss"])  # the Trainer's nan filter would have logged the running mean (0 here)
    assert [log.get("skipped_steps", 0) for log in logs] == [0, 1, 1, 1]
    assert all(math.isfinite(log["loss"]) for index, log in enumerate(logs) if index != 1)
    assert not any(name for name, p in trainer.model.named_parameters() if not torch.isfinite(p).all())


def test_skip_policy_stops_after_several_in_a_row(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path):
    trainer = injected_trainer(
        tiny_encoder_dir,
        srr_groups_path,
        minilm_tokenizer,
        tmp_path,
        float("nan"),
        at_steps=range(1, 10),
        max_steps=10,
        nonfinite_policy="skip",
        max_nonfinite_steps=3,
    )
    with pytest.raises(NonFiniteTrainingError, match=r"at optimizer step 4 \(3 steps in a row\)"):
        trainer.train()
    assert trainer.skipped_steps == 3


def test_a_nonfinite_model_is_never_saved_evaluated_or_carded(
    tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path
):
    trainer = make_trainer(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path)
    with torch.no_grad():
        trainer.model.bert.encoder.layer[0].output.dense.weight[0, 0] = float("nan")
    for action in (trainer.save_model, trainer.evaluate, trainer.create_model_card, trainer.push_to_hub):
        with pytest.raises(NonFiniteModelError, match="bert.encoder.layer.0.output.dense.weight"):
            action()
    assert not list(tmp_path.glob("*.safetensors")) and not (tmp_path / "README.md").exists()
