"""Token-budget batches (``--max_tokens_per_batch``): a step's groups in micro-batches of at most that many tokens,
longest first, a backward pass each; the loss and the gradient are the whole batch's, and peak memory follows the
budget instead of the number of groups times the longest pair."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from tests.conftest import PROJECT_ROOT
from tests.training.test_trainer import make_trainer
from wikiformer_kit.training.collator import GroupCollator
from wikiformer_kit.training.data import Task

TASKS = [Task("ltm", None, False, 60, 60), Task("srr", None, False, 8, 20)]


def groups(long: int, short: int, short_task: int = 1) -> list[dict]:
    text = "the history of paris and of france " * 30
    made = [{"task": 0, "fixed": text, "candidates": [text, "paris " * 90, "france " * 40]} for _ in range(long)]
    made += [
        {"task": short_task, "fixed": "paris", "candidates": ["a city", "a river in france", "cats"]}
        for _ in range(short)
    ]
    return made


def test_micro_batches_hold_at_most_the_budget_longest_groups_first(minilm_tokenizer):
    collator = GroupCollator(minilm_tokenizer, TASKS, 3, max_tokens=400)
    batch = collator(groups(long=3, short=4))
    micro = batch["micro_batches"]
    widths = [tuple(part["input_ids"].shape) for part in micro]
    assert widths[:3] == [(3, 123)] * 3  # a long group (3 pairs of 60 + 60 + 3 tokens) is 369 tokens: one a pass
    assert widths[3] == (12, 8) and len(micro) == 4  # the four short groups together: 96 tokens
    assert all(rows * width <= 400 for rows, width in widths)
    assert [part["task_ids"].tolist() for part in micro] == [[0], [0], [0], [1, 1, 1, 1]]
    assert all(part["group_mask"].all() for part in micro)
    whole = GroupCollator(minilm_tokenizer, TASKS, 3)(groups(long=3, short=4))
    assert whole["input_ids"].shape == (21, 123)  # without a budget: every pair padded to the longest
    alone = GroupCollator(minilm_tokenizer, TASKS, 3, max_tokens=100)(groups(long=1, short=0))
    assert [part["input_ids"].shape[0] for part in alone["micro_batches"]] == [3]  # a group is never split


def test_a_budgeted_step_has_the_whole_batchs_loss_and_gradient(
    tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path
):
    trainer = make_trainer(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, pair_chunks=1)
    model = trainer.model
    torch.manual_seed(0)
    torch.nn.init.normal_(model.classifier.weight, std=0.5)  # a head that passes gradients on to the encoder
    trainer.current_gradient_accumulation_steps = 1
    batch_groups = groups(long=2, short=3, short_task=0)  # the trainer's one task (srr), long and short groups
    results = []
    for budget in (0, 400):
        model.zero_grad(set_to_none=True)
        batch = GroupCollator(minilm_tokenizer, TASKS[:1], 3, max_length=512, max_tokens=budget)(batch_groups)
        loss = trainer.training_step(model, batch)
        results.append((loss, {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}))
        if budget:
            assert len(batch["micro_batches"]) == 3
    (whole_loss, whole_grads), (budget_loss, budget_grads) = results
    torch.testing.assert_close(budget_loss, whole_loss, rtol=1e-5, atol=1e-6)
    assert whole_grads.keys() == budget_grads.keys()
    for name, grad in whole_grads.items():
        torch.testing.assert_close(budget_grads[name], grad, rtol=1e-4, atol=1e-6, msg=name)
    assert whole_grads["bert.embeddings.word_embeddings.weight"].abs().sum() > 0


def test_a_negative_budget_is_refused(minilm_tokenizer):
    with pytest.raises(ValueError, match="--max_tokens_per_batch must be >= 0"):
        GroupCollator(minilm_tokenizer, TASKS, 3, max_tokens=-1)


@pytest.mark.slow
def test_peak_memory_follows_the_budget_not_the_groups_times_the_longest_pair(tmp_path):
    """``python -m wikiformer_kit.benchmarks.token_budget_memory`` at 1,024-token pairs: one long group among short ones costs what the long group
    costs alone once budgeted (padded, the short pairs cost as much as long ones), and four long groups cost what
    one does with a one-group budget."""
    output = tmp_path / "rows.json"
    module = "wikiformer_kit.benchmarks.token_budget_memory"
    command = [sys.executable, "-m", module, "--long-tokens", "1024", "--output", str(output)]
    subprocess.run(command, cwd=PROJECT_ROOT, check=True, capture_output=True, timeout=1800)
    rows = {(r["long_groups"], r["short_groups"], r["budget"]): r for r in json.loads(output.read_text())}
    one = rows[(1, 0, 0)]["peak_mib"]
    assert rows[(1, 3, 0)]["peak_mib"] > 3 * rows[(1, 3, 2048)]["peak_mib"]  # padding to the longest pair
    assert rows[(1, 3, 2048)]["peak_mib"] < 2 * one
    # four groups in one pass hold four groups' activations; budgeted, one group's plus what the passes leave behind
    # (gradients, allocator slack: 6 to 22 MiB over one group's peak across machines), so the margin is 2x, not 4x
    assert rows[(4, 0, 0)]["peak_mib"] > 2 * rows[(4, 0, 2048)]["peak_mib"]
    assert rows[(4, 0, 2048)]["peak_mib"] < rows[(4, 0, 4096)]["peak_mib"] < rows[(4, 0, 0)]["peak_mib"]
