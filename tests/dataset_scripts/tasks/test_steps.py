"""The task pipeline when the disk fills up: a named error, the finished units kept, a rerun resuming to the same
bytes. The disk is simulated by a file size limit (RLIMIT_FSIZE) on the build process."""

from __future__ import annotations

import errno
import hashlib
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT
from wikiformer_kit.dataset_scripts.atomic_files import DiskFullError, atomic_write
from wikiformer_kit.dataset_scripts.build import main

UNIT = ["--articles-per-unit", "5"]


def test_an_out_of_space_write_is_a_disk_full_error_without_a_partial_file(tmp_path):
    target = tmp_path / "shard.parquet"

    def write(tmp: Path) -> None:
        tmp.write_bytes(b"half")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(DiskFullError, match=f"disk full while writing {target}"):
        atomic_write(target, write)
    assert list(tmp_path.iterdir()) == []


def digests(folder: Path) -> dict[str, str]:
    files = [*folder.glob("wikiformer-*/data/*.parquet"), *folder.glob(".build/ltm-index/*")]
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(files)}


def unit_files(folder: Path, unit: int) -> list[Path]:
    """What stage 1 writes for a unit."""
    name = f"{unit:05d}"
    return [
        *folder.glob(f"wikiformer-*/data/train-{name}-of-*.parquet"),
        *folder.glob(f".build/ltm-index/{name}.arrow"),
        *folder.glob(f".build/see-also/{name}.parquet"),
        *folder.glob(f".build/units/{name}.json"),
    ]


@pytest.mark.slow
def test_a_full_disk_stops_the_build_with_a_named_error_and_a_rerun_resumes(tmp_path):
    first = tmp_path / "first"
    args = ["--input", str(ENWIKI_SAMPLE), "--limit", "40", *UNIT, "--num-proc", "1"]
    assert main([*args, "--output-dir", str(first)]) == 0
    corpus = first / "corpus"
    # the largest file of each unit; the limit lets units 0..n-1 through and stops unit n
    largest = [max(p.stat().st_size for p in unit_files(first, u)) for u in range(4)]
    stop = next(n for n in range(1, 4) if largest[n] > max(largest[:n]))
    limit = max(largest[:stop]) + 1

    out = tmp_path / "out"
    command = [sys.executable, "-m", "dataset_scripts.build", "--input", str(corpus), "--output-dir", str(out)]
    result = subprocess.run(
        [*command, *UNIT, "--num-proc", "1"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
        timeout=300,
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert "disk full while writing" in result.stderr and "rerun the same command" in result.stderr
    finished = sorted(p.name for p in (out / ".build" / "units").glob("*.json"))
    assert finished == [f"{u:05d}.json" for u in range(stop)]  # the units before the full disk are kept
    assert not list(out.rglob(".*.tmp-*"))

    assert main(["--input", str(corpus), "--output-dir", str(out), *UNIT, "--num-proc", "1"]) == 0
    assert digests(out) == digests(first)
