"""experiments/baselines.py end to end at a tiny setting: three systems pre-trained at once from one start, one table."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from tests.conftest import PROJECT_ROOT
from tests.experiments.test_finetune_comparison import _tiny_starts

SAMPLES = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "eval"


@pytest.mark.slow
def test_three_systems_train_at_once_at_one_budget_and_compare(tmp_path):
    start, _ = _tiny_starts(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    (data / "trec_dl20_passage").symlink_to(SAMPLES / "dl20-mini")
    (data / "npl").symlink_to(SAMPLES / "npl-mini")
    out = tmp_path / "out"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("HF_", "TRANSFORMERS_"))}
    env.update(HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    command = [sys.executable, "-m", "experiments.baselines", "--start-model", str(start)]
    command += ["--max-steps", "5", "--parallel", "--data", str(data), "--collections", "dl20", "npl"]
    command += ["--max-queries", "3", "--depth", "5", "--max-length", "64", "--permutations", "200"]
    command += ["--pretrain-set", "prop:warmup_steps=0", "--output-dir", str(out)]
    result = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]

    table = (out / "table.md").read_text()
    for label in ("BM25", "Wikiformer", "PROP", "HARP"):
        assert f"| {label} |" in table
    assert "dl20 nDCG@10" in table and "npl nDCG@10" in table
    for system in ("wikiformer", "prop", "harp"):
        config = yaml.safe_load((out / "configs" / f"{system}.yaml").read_text())
        assert config["model_name_or_path"] == str(start)
        assert (config["max_steps"], config["lr_drop_step"], config["eval_strategy"]) == (5, 4, "no")
        state = json.loads((out / system / "train" / "trainer_state.json").read_text())
        assert state["global_step"] == 5
        log = (out / f"{system}.log").read_text()  # release.py's own summary, per system
        assert "[datasets] done" in log and "[export] done" in log and "[wikir]" not in log
        assert not (out / system / "wikir").exists()  # nothing selects a checkpoint: no WIKIR split is built
    assert yaml.safe_load((out / "configs" / "prop.yaml").read_text())["warmup_steps"] == 0
    assert yaml.safe_load((out / "configs" / "harp.yaml").read_text())["warmup_steps"] == 0.1


def test_a_failed_release_names_the_system_and_shows_its_log(tmp_path):
    from types import SimpleNamespace

    from experiments.pretraining import train_system

    args = SimpleNamespace(input=[str(tmp_path / "missing.xml.bz2")], seed=1, max_steps=1, config_dir=None, num_proc=1)
    with pytest.raises(SystemExit, match=r"prop: release.py failed \(exit 2\)[\s\S]*missing.xml.bz2"):
        train_system("prop", args, tmp_path / "out", to_log=True)


def test_one_systems_checkpoint_is_compared_with_bm25_alone(tmp_path, capsys):
    from experiments.baselines import main

    _, checkpoints = _tiny_starts(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    (data / "trec_dl20_passage").symlink_to(SAMPLES / "dl20-mini")
    out = tmp_path / "out"
    argv = ["--systems", "harp", "--checkpoint", checkpoints[2], "--data", str(data), "--collections", "dl20"]
    argv += ["--max-queries", "3", "--depth", "5", "--max-length", "64", "--permutations", "200"]
    assert main([*argv, "--output-dir", str(out)]) == 0
    table = (out / "table.md").read_text()
    assert "| HARP |" in table and "| BM25 |" in table and "Wikiformer" not in table and "PROP" not in table
    assert not (out / "configs").exists()  # nothing trained
    assert "checkpoints given for harp;" in capsys.readouterr().out  # not a step count it did not train
    assert json.loads((out / "eval" / "dl20" / "comparison.json").read_text())["reference"] == "BM25"
