"""The corpus stage on the cluster executors with the inputs that processes share inside one file: an Enterprise HTML
``.json.tar.gz`` (records), a plain NDJSON file (byte ranges) and a Structured Contents Parquet file (row groups).
Slurm's job scripts (run here as Slurm would run them) and a local Ray cluster each write what the local executor
writes, byte for byte, from the shard plan recorded before any job starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT
from tests.dataset_scripts.corpus.formats.test_enterprise_html import multi_member_dump, plain_ndjson
from tests.dataset_scripts.corpus.formats.test_structured_contents import parquet_of_row_groups
from tests.dataset_scripts.test_executors import fake_slurm, run_jobs

PROCESSES = "6"  # three files cut in two each: records of the archive, byte ranges, runs of row groups


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    multi_member_dump(folder)
    plain_ndjson(folder, copies=2)
    parquet_of_row_groups(folder)
    return folder


def corpus_command(inputs: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "dataset_scripts.corpus", "--input", str(inputs), "--output-dir", str(out),
            "--num-proc", PROCESSES, *extra]  # fmt: skip


def run(command: list[str]) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


@pytest.fixture(scope="module")
def local(inputs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local") / "corpus"
    run(corpus_command(inputs, out))
    return out


def data_files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted((folder / "data").glob("*.parquet"))}


def shard_kinds(folder: Path) -> list[tuple[str, str]]:
    """How each recorded shard cuts its file: ``records``, ``bytes`` or ``row groups``."""
    kinds = []
    for shard in json.loads((folder / "logs" / "shards.json").read_text()):
        kind = "row groups" if shard["row_groups"] else "records" if shard["parts"] > 1 else "bytes"
        kinds.append((Path(shard["path"]).suffix, kind))
    return kinds


def test_the_local_plan_cuts_each_file_as_its_kind_allows(local):
    assert (
        shard_kinds(local) == [(".ndjson", "bytes")] * 2 + [(".parquet", "row groups")] * 2 + [(".gz", "records")] * 2
    )
    assert len(data_files(local)) == 6


@pytest.mark.slow
def test_slurm_jobs_read_the_shards_recorded_before_they_were_submitted(inputs, local, tmp_path, monkeypatch):
    calls = tmp_path / "sbatch-calls.txt"
    fake_slurm(tmp_path / "bin", calls)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "corpus"
    command = corpus_command(inputs, out, "--executor", "slurm", "--slurm-partition", "cpu")
    run(command)
    assert not data_files(out)  # submitted, not run
    assert shard_kinds(out) == shard_kinds(local)  # the plan is on disk before any job runs
    scripts = [(tmp_path / f"job-{n}.sh").read_text() for n in range(1, len(calls.read_text().splitlines()) + 1)]
    jobs = [script for script in scripts if "launch_pickled_pipeline" in script]
    assert len(jobs) == 1 and "#SBATCH --array=0-5" in jobs[0]
    run_jobs(jobs, tmp_path)
    run(command)  # the rerun finds every task done and writes the card
    assert data_files(out) == data_files(local)
    assert json.loads((out / "logs" / "shards.json").read_text()) == json.loads(
        (local / "logs" / "shards.json").read_text()
    )


@pytest.mark.slow
def test_a_local_ray_cluster_builds_the_same_corpus(inputs, local, tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "corpus"
    run(corpus_command(inputs, out, "--executor", "ray"))
    assert shard_kinds(out) == shard_kinds(local)
    assert data_files(out) == data_files(local)
