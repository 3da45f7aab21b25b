"""A training config's values are checked against the types of the argument dataclasses' fields."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.cli import InputError
from wikiformer_kit.training.arguments import (
    DataArguments,
    ModelArguments,
    WikiformerTrainingArguments,
    parse_arguments,
)
from wikiformer_kit.training.config_types import check_config_types

TYPES = (ModelArguments, DataArguments, WikiformerTrainingArguments)
CONFIG = Path("run.yaml")


@pytest.mark.parametrize(
    "config", sorted((PROJECT_ROOT / "wikiformer_kit" / "configs").glob("*.yaml")), ids=lambda p: p.name
)
def test_the_shipped_configs_pass_unchanged(config):
    values = yaml.safe_load(config.read_text(encoding="utf-8"))
    assert check_config_types(values, TYPES, config) == values


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"group_size": [4]}, "run.yaml: group_size: expected an integer, got [4] (a list)"),
        ({"learning_rate": "fast"}, "learning_rate: expected a number, got 'fast' (a string)"),
        ({"bf16": "maybe"}, "bf16: expected true or false, got 'maybe'"),
        ({"max_steps": None}, "max_steps: expected an integer, got null;"),
        ({"train_datasets": {"srr": 1}}, "train_datasets: expected a list of strings, got {'srr': 1} (a mapping)"),
        ({"task_weights": [1, "heavy"]}, "task_weights: expected a list of numbers"),
        ({"eval_dir": ["a", "b"]}, "eval_dir: expected a string (or null), got ['a', 'b'] (a list)"),
        ({"max_train_samples": "all"}, "max_train_samples: expected an integer (or null)"),
        ({"accelerator_config": [1]}, "accelerator_config: expected a string or a mapping (key: value) (or null)"),
    ],
    ids=lambda v: next(iter(v)) if isinstance(v, dict) else "",
)
def test_a_wrong_type_names_the_file_the_key_and_the_type(values, expected):
    with pytest.raises(InputError, match="fix the value in the file") as error:
        check_config_types(values, TYPES, CONFIG)
    assert expected in str(error.value)


def test_what_argparse_would_read_from_a_string_is_accepted_and_a_single_value_made_a_list():
    values = {
        "learning_rate": "1e-5",
        "bf16": "true",
        "group_size": 8.0,
        "task_weights": ["1", 2],
        "train_datasets": "output/demo-tasks/wikiformer-srr",
        "report_to": "none",
        "resume_from_checkpoint": True,
        "max_train_samples": None,
        "unknown_key": [1],  # left to the caller's check of the keys
    }
    assert check_config_types(values, TYPES, CONFIG) == {
        **values,
        "group_size": 8,
        "task_weights": [1.0, 2],
        "train_datasets": ["output/demo-tasks/wikiformer-srr"],
    }


def test_parse_arguments_refuses_a_wrong_type_in_the_config(tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text("train_datasets: [a]\ngroup_size: [4]\n")
    with pytest.raises(InputError, match=rf"^{config}: group_size: expected an integer, got \[4\] \(a list\)"):
        parse_arguments([str(config), "--output_dir", str(tmp_path / "out")])
    config.write_text("train_datasets: a/b\ngroup_size: 4\nlearning_rate: '2e-5'\n")
    _, data, training = parse_arguments([str(config), "--output_dir", str(tmp_path / "out"), "--use_cpu"])
    assert data.train_datasets == ["a/b"] and data.group_size == 4 and training.learning_rate == 2e-5
