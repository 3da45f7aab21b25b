"""Build on the enwiki sample, push with the real client to a local Hub, load in a fresh process."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests import hub_server
from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT
from tests.dataset_scripts.hub.pushed import check_pushed_dataset
from tests.hub_server import run_python

hub = hub_server.hub  # the local Hub fixture
pytestmark = pytest.mark.slow

NAMESPACE = "hub-test-user"


def _build(out, env, *extra):
    command = [sys.executable, "-m", "dataset_scripts.build", "--input", str(ENWIKI_SAMPLE), "--output-dir", str(out)]
    return subprocess.run([*command, *extra], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=900)


def _rows(folder):
    files = sorted((folder / "data").glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def _digests(out):
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.rglob("wikiformer-*/**/*.*"))}


def test_push_then_load_dataset_in_a_fresh_process(hub, tmp_path):
    out = tmp_path / "out"
    result = _build(out, hub.env(tmp_path / "home_pusher"), "--push-to-hub", NAMESPACE)
    assert result.returncode == 0, result.stderr[-3000:]
    for task in ("srr", "rwi", "ati", "ltm"):
        assert f"-> {NAMESPACE}/wikiformer-{task}" in result.stdout
    loaded = run_python(
        f"""
import json
from datasets import load_dataset
from huggingface_hub import DatasetCard, HfApi
rows = load_dataset("{NAMESPACE}/wikiformer-srr", split="train").to_list()
card = DatasetCard.load("{NAMESPACE}/wikiformer-srr", repo_type="dataset")
files = HfApi().list_repo_files("{NAMESPACE}/wikiformer-ltm", repo_type="dataset")
print(json.dumps({{"rows": rows, "license": card.data.license, "text": card.text, "files": files}}))
""",
        hub.env(tmp_path / "home_user"),
    )
    result = json.loads(loaded.splitlines()[-1])
    assert result["rows"] == _rows(out / "wikiformer-srr") and len(result["rows"]) > 50
    assert result["license"] == "cc-by-sa-4.0"
    assert f'load_dataset("{NAMESPACE}/wikiformer-srr"' in result["text"]
    assert "README.md" in result["files"] and any(f.startswith("data/train-") for f in result["files"])
    for task in ("srr", "rwi", "ati", "ltm"):
        seen = check_pushed_dataset(f"{NAMESPACE}/wikiformer-{task}", hub.env(tmp_path / "home_viewer"))
        assert seen["records"] == {"default": len(_rows(out / f"wikiformer-{task}"))}
    assert hub.errors == []


def test_a_failed_push_keeps_the_local_output_and_says_what_to_rerun(hub, tmp_path):
    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    env = hub.env(tmp_path / "home") | {"HF_ENDPOINT": f"http://127.0.0.1:{port}"}
    out = tmp_path / "out"
    first = _build(out, env, "--tasks", "ati", "--push-to-hub", NAMESPACE)
    assert first.returncode == 1
    assert "push of ati" in first.stderr and "rerun the same command" in first.stderr
    assert (out / "wikiformer-ati" / "README.md").exists() and _rows(out / "wikiformer-ati")
    before = _digests(out)
    # the rerun against a working Hub only pushes: the build is complete and stays byte-identical
    second = _build(out, hub.env(tmp_path / "home"), "--tasks", "ati", "--push-to-hub", NAMESPACE)
    assert second.returncode == 0, second.stderr[-3000:]
    assert {k: v for k, v in _digests(out).items() if k.endswith(".parquet")} == {
        k: v for k, v in before.items() if k.endswith(".parquet")
    }
