"""Kill a training run with SIGKILL after a checkpoint, resume it, and reach the uninterrupted run's weights."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from tests.conftest import PROJECT_ROOT
from tests.training.conftest import clean_env, run_train, save_tiny_encoder, train_command

STEPS, SAVE_EVERY = 30, 5


def complete(trainer_state: Path) -> bool:
    """The checkpoint's last file is written in full (the Trainer writes trainer_state.json last)."""
    try:
        return "global_step" in json.loads(trainer_state.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return False


@pytest.mark.slow
def test_sigkill_then_resume_matches_uninterrupted(minilm_tokenizer, srr_groups_path, tmp_path):
    # dropout on: the resumed run must also restore the RNG states, not only weights, optimizer and data order
    model_dir = save_tiny_encoder(tmp_path / "tiny-dropout", minilm_tokenizer, dropout=0.1)
    extra = ("--max_steps", str(STEPS), "--save_steps", str(SAVE_EVERY), "--save_total_limit", "2")
    reference = tmp_path / "reference"
    run_train(train_command(model_dir, srr_groups_path, reference, *extra), tmp_path)

    interrupted = tmp_path / "interrupted"
    command = [
        sys.executable,
        str(PROJECT_ROOT / "train.py"),
        *train_command(model_dir, srr_groups_path, interrupted, *extra),
    ]
    process = subprocess.Popen(
        command, cwd=PROJECT_ROOT, env=clean_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    first_checkpoint = interrupted / f"checkpoint-{SAVE_EVERY}" / "trainer_state.json"
    deadline = time.monotonic() + 300
    while not complete(first_checkpoint) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL
    assert first_checkpoint.exists()
    assert not (interrupted / "model.safetensors").exists()  # killed before the end of training
    killed_at = max(int(path.name.split("-")[1]) for path in interrupted.glob("checkpoint-*"))
    assert killed_at < STEPS

    run_train(
        train_command(model_dir, srr_groups_path, interrupted, *extra, "--resume_from_checkpoint", "last"), tmp_path
    )
    expected, resumed = load_file(reference / "model.safetensors"), load_file(interrupted / "model.safetensors")
    assert expected.keys() == resumed.keys()
    for name, tensor in expected.items():
        assert torch.allclose(tensor, resumed[name], atol=1e-6), name
