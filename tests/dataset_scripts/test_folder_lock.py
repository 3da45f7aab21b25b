"""One build at a time in an output folder: a second one is refused at once in one line, the first's output is a
lone build's, and a lock left by a process that is gone is taken over."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT
from wikiformer_kit.dataset_scripts.folder_lock import LOCK, FolderInUseError, holding


def build(out, *extra) -> list[str]:
    return [sys.executable, "-m", "dataset_scripts.build", "--input", str(ENWIKI_SAMPLE), "--output-dir", str(out),
            "--limit", "40", "--articles-per-unit", "5", *extra]  # fmt: skip


def digests(folder) -> dict[str, str]:
    files = sorted(folder.glob("wikiformer-*/data/*.parquet"))
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.mark.slow
def test_a_second_build_into_the_same_folder_is_refused_at_once(tmp_path):
    out = tmp_path / "out"
    first = subprocess.Popen(build(out), cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (out / LOCK).exists():
        assert first.poll() is None and time.monotonic() < deadline, "the first build never held its folder"
        time.sleep(0.02)
    started = time.monotonic()
    second = subprocess.run(build(out), cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert second.returncode == 2 and time.monotonic() - started < 10  # start-up included; the refusal is at once
    [line] = second.stderr.strip().splitlines()
    assert f"is being written by a task build (process {first.pid} on {socket.gethostname()}" in line
    assert first.wait(timeout=600) == 0, first.stderr.read()[-2000:]
    assert not (out / LOCK).exists()
    lone = tmp_path / "lone"
    assert subprocess.run(build(lone), cwd=PROJECT_ROOT, capture_output=True, timeout=600).returncode == 0
    assert digests(out) == digests(lone) and digests(out)


def test_a_lock_left_by_a_process_that_is_gone_is_taken_over(tmp_path, capsys):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = {"pid": int(gone.stdout), "host": socket.gethostname(), "started": "2026-01-01 00:00:00", "what": "a build"}
    (tmp_path / LOCK).write_text(json.dumps(left))
    with holding(tmp_path, "a corpus build"):
        assert json.loads((tmp_path / LOCK).read_text())["pid"] == os.getpid()
    assert "taking over the lock of a build that is gone" in capsys.readouterr().err
    assert not (tmp_path / LOCK).exists()


def test_a_live_holder_is_named_and_its_lock_kept(tmp_path):
    holder = {
        "pid": os.getppid(),
        "host": socket.gethostname(),
        "started": "2026-01-01 00:00:00",
        "what": "a WIKIR build",
    }
    (tmp_path / LOCK).write_text(json.dumps(holder))  # the process that started this one: alive
    with pytest.raises(FolderInUseError, match=rf"being written by a WIKIR build \(process {os.getppid()} on"):
        with holding(tmp_path):
            pass
    assert json.loads((tmp_path / LOCK).read_text()) == holder
    with holding(tmp_path / "new" / "deeper"):  # made for the block, left empty: removed again, parents too
        pass
    assert not (tmp_path / "new").exists()
