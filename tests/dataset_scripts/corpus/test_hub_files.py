"""``--input hf://datasets/...``: Enterprise and Structured Contents files read from the (local, test) Hub as they
are read from disk, the Hub's Parquet of Structured Contents included."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import PROJECT_ROOT, SAMPLES
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.hub_files import hub_url
from wikiformer_kit.dataset_scripts.corpus.reading import read_shard
from wikiformer_kit.dataset_scripts.corpus.sources import plan_shards

ENTERPRISE = SAMPLES / "enterprise"
DUMP = "wiki-NS0-sample-ENTERPRISE-HTML.json.tar.gz"
STRUCTURED = "structured-contents-sample.ndjson"
PARQUET = "structured/parquet/train-00000-of-00001.parquet"
READ_SHARDS = """
import json, sys
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.reading import read_shard
from wikiformer_kit.dataset_scripts.corpus.sources import plan_shards
shards, _ = plan_shards(sys.argv[1:], min_shards=2)
for shard in shards:
    for record in read_shard(shard, ReaderOptions(), "off", lambda count: None):
        if isinstance(record, Article):
            print(json.dumps([shard.fmt, record.to_dict()], ensure_ascii=False))
"""


def articles_of(paths: list[str]) -> list[str]:
    """Every Article the planned shards of ``paths`` give, as JSON lines (in this process)."""
    from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions

    shards, _ = plan_shards(paths, min_shards=2)
    return [
        json.dumps([shard.fmt, record.to_dict()], ensure_ascii=False)
        for shard in shards
        for record in read_shard(shard, ReaderOptions(), "off", lambda count: None)
        if isinstance(record, Article)
    ]


def structured_parquet(folder: Path) -> Path:
    """The Structured Contents sample as the Hub converts a dataset to Parquet (``datasets``' own writer)."""
    import datasets

    path = folder / PARQUET
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_json(str(ENTERPRISE / STRUCTURED)).to_parquet(str(path))
    return path


@pytest.fixture
def dataset_repo(hub, tmp_path) -> Path:
    """A dataset repository ``ns/enterprise`` on the local Hub with the Enterprise dump, the Structured Contents
    NDJSON and its Parquet conversion; returns the local folder that was uploaded."""
    folder = tmp_path / "upload"
    (folder / "structured").mkdir(parents=True)
    shutil.copy(ENTERPRISE / DUMP, folder / DUMP)
    shutil.copy(ENTERPRISE / STRUCTURED, folder / "structured" / STRUCTURED)
    (folder / "structured" / "README.md").write_text("# A dataset card, not an article\n")  # not read, as locally
    structured_parquet(folder)
    hub.upload_dataset("ns/enterprise", folder, tmp_path / "home_pusher")
    return folder


def test_hub_urls_are_told_from_local_paths_even_as_paths():
    assert hub_url("hf://datasets/ns/repo/file.ndjson") == "hf://datasets/ns/repo/file.ndjson"
    assert hub_url(Path("hf://datasets/ns/repo/file.ndjson")) == "hf://datasets/ns/repo/file.ndjson"
    assert hub_url("data/hf/file.ndjson") is None


def test_hub_files_give_the_articles_of_the_same_files_on_disk(hub, dataset_repo, tmp_path):
    env = hub.env(tmp_path / "home_user")
    urls = [f"hf://datasets/ns/enterprise/{DUMP}", "hf://datasets/ns/enterprise/structured"]
    read = subprocess.run(
        [sys.executable, "-c", READ_SHARDS, *urls], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True
    )
    assert read.returncode == 0, read.stderr
    local = [str(dataset_repo / DUMP), str(dataset_repo / "structured")]
    from_hub = read.stdout.splitlines()
    assert sorted(from_hub) == sorted(articles_of(local))
    formats = [json.loads(line)[0] for line in from_hub]
    assert formats.count("enterprise-html") == 4 and formats.count("structured-contents") == 2  # NDJSON + Parquet
    glob = subprocess.run(
        [sys.executable, "-c", READ_SHARDS, "hf://datasets/ns/enterprise/structured/**/*.parquet"],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert glob.returncode == 0, glob.stderr
    (parquet,) = [json.loads(line) for line in glob.stdout.splitlines()]
    (ndjson,) = [json.loads(line) for line in articles_of([str(dataset_repo / "structured" / STRUCTURED)])]
    assert parquet == ndjson  # the Parquet conversion reads as the NDJSON it was made of


def test_the_build_command_reads_a_dump_on_the_hub_and_names_a_missing_one(hub, dataset_repo, tmp_path):
    env = hub.env(tmp_path / "home_user")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "dataset_scripts.build", "--input", f"hf://datasets/ns/enterprise/{DUMP}"]
    result = subprocess.run(
        [*command, "--output-dir", str(out)], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    corpus = [
        row for path in sorted((out / "corpus" / "data").glob("*.parquet")) for row in pq.read_table(path).to_pylist()
    ]
    assert sorted(row["title"] for row in corpus) == ["Mike Potts", "Squirrel", "Squirrel", "William Clark (inventor)"]
    assert (out / "wikiformer-srr").is_dir()
    missing = subprocess.run(
        [sys.executable, "-m", "dataset_scripts.build", "--input", "hf://datasets/ns/enterprise/absent.json.tar.gz",
         "--output-dir", str(tmp_path / "none")],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert missing.returncode != 0
    assert "hf://datasets/ns/enterprise/absent.json.tar.gz: no such file or folder on the Hub" in missing.stderr


def test_without_the_hub_a_cached_file_is_read_and_anything_else_named_in_one_line(hub, dataset_repo, tmp_path):
    env = hub.env(tmp_path / "home_user")
    url = f"hf://datasets/ns/enterprise/structured/{STRUCTURED}"

    def build(*inputs, **changes):
        command = [sys.executable, "-m", "dataset_scripts.corpus", "--input", *inputs, "--output-dir"]
        return subprocess.run(
            [*command, str(tmp_path / f"out{len(list(tmp_path.iterdir()))}")],
            cwd=PROJECT_ROOT, env={**env, **changes}, capture_output=True, text=True, timeout=600,
        )  # fmt: skip

    unreachable = build(url, HF_ENDPOINT="http://127.0.0.1:9")  # nothing listens there
    assert unreachable.returncode == 2, unreachable.stderr
    assert unreachable.stderr.strip().splitlines()[-1] == (
        f"error: {url} is not in the cache and the Hub cannot be reached (no connection to http://127.0.0.1:9); "
        "connect to the network (or unset HF_HUB_OFFLINE) once to download it, or give a local copy"
    )
    offline = build(url, HF_HUB_OFFLINE="1")
    assert f"error: {url} is not in the cache and the Hub cannot be reached (HF_HUB_OFFLINE is set)" in offline.stderr
    assert build(url).returncode == 0  # online: fetched into the cache
    cached = build(url, HF_HUB_OFFLINE="1")
    assert cached.returncode == 0, cached.stderr  # offline, from the cache
    folder = build("hf://datasets/ns/enterprise/structured", HF_HUB_OFFLINE="1")
    assert "a folder cannot be listed without the Hub (HF_HUB_OFFLINE is set)" in folder.stderr
