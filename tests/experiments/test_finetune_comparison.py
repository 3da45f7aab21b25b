"""experiments/finetune_comparison.py end to end at a tiny setting: four starts fine-tuned the same way, a test table."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from tests.conftest import PROJECT_ROOT, shared_data


def _tiny_starts(folder):
    """A tiny random BERT (the start model) and three Wikiformer checkpoints made from it (standing in for
    pre-trained ones: the bench's job here is to fine-tune and test them all alike)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from wikiformer_kit.modeling_wikiformer import WikiformerForRanking, save_for_hub
    from wikiformer_kit.training.arguments import resolve_model_path

    tokenizer = AutoTokenizer.from_pretrained(resolve_model_path("embedded:minilm"))
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=37, max_position_embeddings=512,
    )  # fmt: skip
    start = folder / "tiny-bert"
    BertModel(config).save_pretrained(start)
    tokenizer.save_pretrained(start)
    checkpoints = []
    for system in ("wikiformer", "prop", "harp"):
        model = WikiformerForRanking.from_bert(str(start))
        save_for_hub(model, tokenizer, folder / system)
        checkpoints.append(f"{system}={folder / system}")
    return start, checkpoints


@pytest.mark.slow
def test_comparison_runs_end_to_end_on_a_tiny_setting(tmp_path):
    cranfield = shared_data("eval/cranfield")
    start, checkpoints = _tiny_starts(tmp_path)
    out = tmp_path / "out"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("HF_", "TRANSFORMERS_"))}
    env.update(HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    command = [sys.executable, "-m", "experiments.finetune_comparison", "--collection", str(cranfield)]
    command += ["--start-model", str(start), "--checkpoint", *checkpoints, "--finetune-steps", "2"]
    command += ["--dev-queries", "4", "--max-queries", "4", "--depth", "5", "--max-length", "64"]
    command += ["--permutations", "200"]
    command += ["--output-dir", str(out)]
    result = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    comparison = json.loads((out / "comparison.json").read_text())
    table = (out / "table.md").read_text()
    for label in ("BM25", "(a) start model", "(b) Wikiformer", "(c) PROP", "(d) HARP"):
        assert label in table
    assert "(4 queries)" in json.dumps(comparison)
    for name in ("a", "b", "c", "d"):
        config = yaml.safe_load((out / "finetune-configs" / f"{name}.yaml").read_text())
        assert config["eval_dir"].endswith("cranfield#dev") and config["test_dirs"] == []
        assert config["max_steps"] == 2 and (out / "finetuned" / name / "config.json").exists()
    from wikiformer_kit.eval.splits import fine_tuning_part

    groups = (out / "groups" / "mining_stats.json").read_text()
    assert '"part": "train"' in groups
    test_queries = {line.split()[0] for line in (out / "test" / "a.run").read_text().splitlines()}
    assert test_queries and all(fine_tuning_part(q) == "heldout" for q in test_queries)


def test_pretraining_configs_share_one_budget(tmp_path):
    from experiments.pretraining import pretraining_configs

    folder = pretraining_configs(tmp_path, 7, "embedded:minilm", 48)
    configs = {name: yaml.safe_load((folder / f"{name}.yaml").read_text()) for name in ("wikiformer", "prop", "harp")}
    assert {c["max_steps"] for c in configs.values()} == {7}
    assert {c["model_name_or_path"] for c in configs.values()} == {"embedded:minilm"}
    assert all(max(c["doc_max_lengths"]) <= 48 and c["eval_strategy"] == "no" for c in configs.values())
    assert not any("eval_dir" in c for c in configs.values())


def test_pretraining_configs_take_overrides_for_all_or_one_system(tmp_path):
    from experiments.pretraining import pretraining_configs

    overrides = ["warmup_steps=90", "lr_drop_step=600", "prop:doc_max_lengths=[128]",
                 "harp:doc_max_lengths=[128, 128, 128, 64]"]  # fmt: skip
    folder = pretraining_configs(tmp_path, 300, "embedded:minilm", 64, overrides)
    configs = {name: yaml.safe_load((folder / f"{name}.yaml").read_text()) for name in ("wikiformer", "prop", "harp")}
    assert {c["warmup_steps"] for c in configs.values()} == {90}
    assert {c["lr_drop_step"] for c in configs.values()} == {600}  # not the default 0.8 x steps
    assert configs["prop"]["doc_max_lengths"] == [128]
    assert configs["harp"]["doc_max_lengths"] == [128, 128, 128, 64]
    assert configs["wikiformer"]["doc_max_lengths"] == [64, 64, 64, 64]  # --pretrain-doc-length's cap


def test_pretraining_overrides_name_a_known_system():
    from experiments.pretraining import config_overrides

    assert config_overrides(["a=1", "prop:b=[1, 2]"]) == {"": {"a": 1}, "prop": {"b": [1, 2]}}
    with pytest.raises(SystemExit, match="bert"):
        config_overrides(["bert:a=1"])
    with pytest.raises(SystemExit, match="KEY=VALUE"):
        config_overrides(["warmup_steps"])
