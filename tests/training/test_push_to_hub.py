"""``--push_to_hub`` publishes the trained model (model file, tokenizer, CrossEncoder files, card) to a Hub."""

from __future__ import annotations

import json

import pytest

from tests import hub_server
from tests.conftest import PROJECT_ROOT
from tests.hub_server import run_python
from tests.training.conftest import DL20_MINI, train_command

hub = hub_server.hub  # the fixture: a local Hub-API-compatible server (HF_ENDPOINT)

LIST_AND_LOAD = """
import json
from huggingface_hub import HfApi
from huggingface_hub import ModelCard
from transformers import AutoModelForSequenceClassification
files = HfApi().list_repo_files("hub-test-user/wikiformer-tiny")
card = ModelCard.load("hub-test-user/wikiformer-tiny")
model = AutoModelForSequenceClassification.from_pretrained("hub-test-user/wikiformer-tiny", trust_remote_code=True)
print("RESULT " + json.dumps({"files": files, "class": type(model).__name__, "card": card.content,
                             "tags": card.data.tags, "results": [r.metric_name for r in card.data.eval_results]}))
"""


@pytest.mark.slow
def test_push_to_hub_publishes_a_loadable_model(hub, tiny_encoder_dir, srr_groups_path, tmp_path):
    import subprocess
    import sys

    if not (DL20_MINI / "candidates.json").exists():
        pytest.skip("data/samples/eval/dl20-mini not vendored")
    args = train_command(
        tiny_encoder_dir,
        srr_groups_path,
        tmp_path / "run",
        "--max_steps",
        "2",
        "--save_strategy",
        "no",
        "--push_to_hub",
        "true",
        "--hub_model_id",
        "hub-test-user/wikiformer-tiny",
        "--eval_dir",
        str(DL20_MINI),
        "--eval_max_queries",
        "2",
        "--eval_depth",
        "5",
        "--eval_max_length",
        "64",
        "--eval_strategy",
        "steps",
        "--eval_steps",
        "2",
    )
    env = hub.env(tmp_path / "home_trainer") | {"PYTHONPATH": str(PROJECT_ROOT)}
    result = subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "train.py"), *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-5000:]
    output = run_python(LIST_AND_LOAD, hub.env(tmp_path / "home_user"))
    pushed = json.loads(next(line for line in output.splitlines()[::-1] if line.startswith("RESULT "))[7:])
    for name in (
        "model.safetensors",
        "config.json",
        "modeling_wikiformer.py",
        "tokenizer.json",
        "modules.json",
        "sentence_bert_config.json",
        "config_sentence_transformers.json",
        "README.md",
    ):
        assert name in pushed["files"], (name, pushed["files"])
    assert pushed["class"] == "WikiformerForRanking"
    assert "wikiformer" in pushed["tags"]  # the kit's card (model_card.md), not the Trainer's default
    assert "srr_groups: 40 groups" in pushed["card"]
    assert pushed["results"] == ["nDCG@10", "MRR(rel=2)@10"]  # the zero-shot evaluation, named as the tables name it
