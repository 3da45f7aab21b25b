"""Mine, push to a local Hub with the real client, load the groups and train.py's task reader in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests import hub_server
from tests.conftest import PROJECT_ROOT
from tests.dataset_scripts.hub.pushed import check_pushed_dataset
from tests.hub_server import run_python

hub = hub_server.hub
pytestmark = pytest.mark.slow

NAMESPACE = "hub-test-user"


def test_push_then_load_in_a_fresh_process(hub, handmade, tmp_path):
    out = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "dataset_scripts.finetune",
        "--collection",
        str(handmade),
        "--output-dir",
        str(out),
    ]
    env = hub.env(tmp_path / "home_pusher")
    result = subprocess.run(
        [*command, "--push-to-hub", NAMESPACE, "--repo-name", "handmade-groups"],
        env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"-> {NAMESPACE}/handmade-groups" in result.stdout
    loaded = run_python(
        f"""
import json
from datasets import load_dataset
from huggingface_hub import HfApi
from wikiformer_kit.training.data import load_task
rows = load_dataset("{NAMESPACE}/handmade-groups", split="train").to_list()
files = HfApi().list_repo_files("{NAMESPACE}/handmade-groups", repo_type="dataset")
task = load_task("{NAMESPACE}/handmade-groups", "finetune", 30, 480)
print(json.dumps({{"rows": rows, "files": files, "task_rows": len(task)}}))
""",
        hub.env(tmp_path / "home_user"),
        cwd=PROJECT_ROOT,
    )
    pushed = json.loads(loaded.splitlines()[-1])
    local = pa.concat_tables([pq.read_table(f) for f in sorted((out / "data").glob("*.parquet"))]).to_pylist()
    assert pushed["rows"] == local and pushed["task_rows"] == len(local)
    assert "README.md" in pushed["files"] and "mining_stats.json" in pushed["files"]
    assert not [f for f in pushed["files"] if f.startswith(".work")]
    assert f'load_dataset("{NAMESPACE}/handmade-groups"' in (out / "README.md").read_text()
    assert check_pushed_dataset(f"{NAMESPACE}/handmade-groups", hub.env(tmp_path / "home_viewer"))["records"] == {
        "default": len(local)
    }
