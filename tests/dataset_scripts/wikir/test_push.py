"""--push-to-hub with the real client to the local test Hub, then load_dataset from it in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from tests import hub_server
from tests.conftest import PROJECT_ROOT
from tests.dataset_scripts.hub.pushed import check_pushed_dataset
from tests.hub_server import run_python

hub = hub_server.hub  # the local Hub fixture
pytestmark = pytest.mark.slow


def test_push_then_load_from_the_hub(hub, enwiki_corpus, tmp_path):
    out = tmp_path / "wikir"
    command = [sys.executable, "-m", "dataset_scripts.wikir", "--input", str(enwiki_corpus), "--output-dir", str(out),
               "--min-links", "1", "--validation-size", "5", "--test-size", "5", "--push-to-hub", "ns"]  # fmt: skip
    result = subprocess.run(
        command, env=hub.env(tmp_path / "home_pusher"), cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "-> ns/wikir-en" in result.stdout
    code = """
import json
from datasets import load_dataset
from huggingface_hub import DatasetCard, HfApi
qrels = load_dataset("ns/wikir-en", "qrels", split="test").to_list()
corpus = load_dataset("ns/wikir-en", "corpus", split="corpus")
card = DatasetCard.load("ns/wikir-en", repo_type="dataset")
files = HfApi().list_repo_files("ns/wikir-en", repo_type="dataset")
print(json.dumps({"qrels": qrels, "documents": len(corpus), "license": card.data.license, "text": card.text,
                  "files": files}))
"""
    loaded = json.loads(run_python(code, hub.env(tmp_path / "home_user")).splitlines()[-1])
    assert loaded["qrels"] == pq.read_table(next((out / "qrels").glob("test-fp*.parquet"))).to_pylist()
    assert loaded["documents"] == 96 and loaded["license"] == "cc-by-sa-4.0"
    assert 'load_dataset("ns/wikir-en", "qrels", split="test")' in loaded["text"]
    assert "test/candidates.json" in loaded["files"] and not any(f.startswith(".build") for f in loaded["files"])
    seen = check_pushed_dataset("ns/wikir-en", hub.env(tmp_path / "home_viewer"))
    assert seen["records"]["corpus"] == 96 and set(seen["configs"]) == {
        "default",
        "qrels",
        "corpus",
        "queries",
        "triples",
    }
