"""Arguments from YAML/JSON files with command-line overrides; the shipped configs parse as documented."""

from __future__ import annotations

import json

import pytest

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.training.arguments import EMBEDDED_MINILM, parse_arguments, resolve_model_path


def test_yaml_values_and_overrides(tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text(
        "train_datasets: [a, b]\nlearning_rate: 1e-5\nmax_steps: 7\nuse_cpu: true\n"
        f"output_dir: {tmp_path / 'out'}\nquery_max_lengths: [30, 255]\n"
    )
    model, data, training = parse_arguments([str(config), "--max_steps", "9"])
    assert data.train_datasets == ["a", "b"] and data.query_max_lengths == [30, 255]
    assert training.learning_rate == pytest.approx(1e-5)  # YAML reads 1e-5 as a string; it is still a float
    assert training.max_steps == 9  # the command line wins
    assert model.model_name_or_path == EMBEDDED_MINILM


def test_json_config_and_unknown_keys(tmp_path):
    config = tmp_path / "run.json"
    config.write_text(json.dumps({"train_datasets": ["a"], "output_dir": str(tmp_path), "group_size": 4}))
    assert parse_arguments([str(config)])[1].group_size == 4
    config.write_text(json.dumps({"train_datasets": ["a"], "learning_rat": 1e-5}))
    with pytest.raises(ValueError, match=r"run\.json: unknown argument\(s\) learning_rat"):
        parse_arguments([str(config)])


def test_paper_config_is_the_papers_recipe():
    # use_cpu: bf16 on a machine without a GPU is refused otherwise
    _, data, training = parse_arguments(
        [str(PROJECT_ROOT / "wikiformer_kit" / "configs" / "wikiformer-bert-base.yaml"), "--use_cpu", "true"]
    )
    assert training.learning_rate == pytest.approx(1e-5)
    assert (training.lr_drop_step, training.lr_drop_factor) == (50000, 0.5)
    assert training.warmup_steps == pytest.approx(0.1)
    assert data.query_max_lengths == [30, 30, 30, 255] and data.doc_max_lengths == [480, 480, 480, 255]
    assert training.bf16 and training.optim == "adamw_torch"
    assert (training.save_start_step, training.save_steps, training.eval_steps) == (50000, 5000, 5000)
    assert training.load_best_model_at_end and training.metric_for_best_model == "mrr@10"


def test_demo_config_uses_the_embedded_model():
    model, _, training = parse_arguments([str(PROJECT_ROOT / "wikiformer_kit" / "configs" / "demo-cpu.yaml")])
    assert resolve_model_path(model.model_name_or_path).endswith("model")
    assert training.use_cpu and training.max_steps <= 300
