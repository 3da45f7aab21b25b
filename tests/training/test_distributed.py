"""DDP through torchrun (2 CPU processes, gloo) against one process with the same global batch."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
import torch
from safetensors.torch import load_file

from tests.training.conftest import run_train, train_command


def logged_losses(output_dir):
    state = json.loads((output_dir / "trainer_state.json").read_text())
    return [log["loss"] for log in state["log_history"] if "loss" in log]


@pytest.mark.slow
def test_two_process_ddp_matches_one_process(tiny_encoder_dir, srr_groups_path, tmp_path):
    if shutil.which("torchrun") is None:
        pytest.skip("torchrun not on PATH")
    common = ("--max_steps", "4", "--save_strategy", "no", "--log_level", "info")
    single = tmp_path / "single"
    run_train(train_command(tiny_encoder_dir, srr_groups_path, single, *common), tmp_path)
    ddp = tmp_path / "ddp"
    args = train_command(tiny_encoder_dir, srr_groups_path, ddp, *common)
    args[args.index("--per_device_train_batch_size") + 1] = "2"
    result = run_train(
        args,
        tmp_path,
        launcher=[sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", "29533"],
    )
    log = result.stdout + result.stderr
    assert "Instantaneous batch size per device = 2" in log and "distributed & accumulation) = 4" in log
    assert logged_losses(ddp) == pytest.approx(logged_losses(single), abs=1e-5)
    single_weights, ddp_weights = load_file(single / "model.safetensors"), load_file(ddp / "model.safetensors")
    assert single_weights.keys() == ddp_weights.keys()
    for name, tensor in single_weights.items():
        if name == "classifier.bias":
            # Its gradient is zero in exact arithmetic (a shift of every score in a group leaves the softmax alone);
            # Adam scales the ~1e-9 float noise up to lr-sized steps, so it differs between any two summation orders.
            continue
        assert torch.allclose(tensor, ddp_weights[name], atol=1e-5), name
