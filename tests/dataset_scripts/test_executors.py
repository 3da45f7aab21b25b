"""The build on every executor: Slurm job scripts (run here as Slurm would run them), Ray on a local cluster, and a
build killed with SIGKILL mid-unit that resumes; each against a local build of the same input, byte for byte."""

from __future__ import annotations

import hashlib
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT
from wikiformer_kit.dataset_scripts.build import main

UNIT = ["--articles-per-unit", "5"]
LIMIT = ["--limit", "40"]  # pages of the sample: 20 articles, 4 units of 5


def digests(folder: Path) -> dict[str, str]:
    """SHA-256 of every dataset shard, LTM index shard, See also file and file of the title join of a build."""
    files = [
        *folder.glob("wikiformer-*/data/*.parquet"),
        *folder.glob(".build/ltm-index/*"),
        *folder.glob(".build/see-also/*"),
        *folder.glob(".build/see-also-join-*/*/*"),
    ]
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(files)}


def no_partial_files(folder: Path) -> bool:
    return not [p for p in folder.rglob(".*.tmp-*")]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A small corpus built from the dump sample (20 articles)."""
    out = tmp_path_factory.mktemp("corpus") / "out"
    assert main(["--input", str(ENWIKI_SAMPLE), "--output-dir", str(out), "--tasks", "ati", *LIMIT, *UNIT]) == 0
    return out / "corpus"


@pytest.fixture(scope="module")
def local_build(corpus, tmp_path_factory) -> Path:
    """The four datasets from that corpus, built locally with 2 processes (the reference)."""
    out = tmp_path_factory.mktemp("local") / "out"
    assert main(["--input", str(corpus), "--output-dir", str(out), "--num-proc", "2", *UNIT]) == 0
    return out


def build_command(inputs: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "dataset_scripts.build",
        "--input",
        str(inputs),
        "--output-dir",
        str(out),
        *UNIT,
        *extra,
    ]


def kill_after_first_unit(command: list[str], out: Path, timeout: float = 120) -> None:
    """Run ``command`` and SIGKILL its whole process group (CLI, executor, workers) once a unit is finished,
    so that the build dies in the middle of the next unit."""
    process = subprocess.Popen(
        command, cwd=PROJECT_ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + timeout
    try:
        while not list((out / ".build" / "units").glob("*.json")):
            assert process.poll() is None, "the build ended before it could be killed"
            assert time.monotonic() < deadline, "no unit finished in time"
            time.sleep(0.02)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.mark.slow
def test_sigkill_mid_unit_resumes_to_the_same_bytes(corpus, local_build, tmp_path):
    out = tmp_path / "out"
    kill_after_first_unit(build_command(corpus, out, "--num-proc", "1"), out)
    assert not (out / ".build" / "summary.json").exists()  # really interrupted
    assert main(["--input", str(corpus), "--output-dir", str(out), "--num-proc", "2", *UNIT]) == 0
    assert digests(out) == digests(local_build)
    assert no_partial_files(out)


FAKE_SBATCH = """#!{python}
import pathlib, sys
calls = pathlib.Path({calls!r})
number = len(calls.read_text().splitlines()) + 1 if calls.exists() else 1
script = pathlib.Path(sys.argv[-1]).read_text()
(calls.parent / f"job-{{number}}.sh").write_text(script)
with calls.open("a") as f:
    f.write(" ".join(sys.argv[1:-1]) + "\\n")
print(f"Submitted batch job {{number}}")
"""

FAKE_SCONTROL = """#!/bin/bash
# `scontrol show hostnames $SLURM_NODELIST`: this machine
echo localhost
"""

FAKE_SRUN = """#!/bin/bash
# Slurm's srun stands in for the array task it runs in: drop its options, run the command.
while [[ "$1" == -* ]]; do if [[ "$1" == "-n" ]]; then shift; fi; shift; done
exec "$@"
"""


def fake_slurm(bin_dir: Path, calls: Path) -> None:
    """``sbatch`` (records each script and its options, answers a job id), ``srun`` and ``scontrol`` on PATH."""
    bin_dir.mkdir()
    fakes = {"sbatch": FAKE_SBATCH.format(python=sys.executable, calls=str(calls)), "srun": FAKE_SRUN}
    fakes["scontrol"] = FAKE_SCONTROL
    for name, text in fakes.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod((bin_dir / name).stat().st_mode | stat.S_IEXEC)


def run_jobs(scripts: list[str], folder: Path) -> None:
    """Run job scripts as Slurm would: every array task of each, one job after the other."""
    for script in scripts:
        array = next(line for line in script.splitlines() if line.startswith("#SBATCH --array"))
        path = folder / "job.sh"
        path.write_text(script)
        for task in range(int(array.rsplit("-", 1)[1]) + 1):
            env = {**os.environ, "SLURM_ARRAY_TASK_ID": str(task), "SLURM_NODELIST": "localhost"}
            subprocess.run(["bash", str(path)], env=env, check=True, capture_output=True, cwd=folder)


@pytest.mark.slow
def test_slurm_writes_job_scripts_that_build_the_same_datasets(local_build, tmp_path, monkeypatch, capsys):
    """Dump -> datasets on Slurm: the first command submits the corpus job, the rerun the four task-stage jobs
    (each waiting for the one before); run here as Slurm runs them, they write what the local executor writes."""
    calls = tmp_path / "sbatch-calls.txt"
    fake_slurm(tmp_path / "bin", calls)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "out"
    args = ["--input", str(ENWIKI_SAMPLE), *LIMIT, "--output-dir", str(out), "--num-proc", "2", *UNIT]
    slurm = ["--executor", "slurm", "--slurm-partition", "cpu", "--slurm-time", "2:00:00"]

    def submitted() -> list[tuple[str, str]]:
        lines = calls.read_text().splitlines()
        return [(c, (tmp_path / f"job-{n}.sh").read_text()) for n, c in enumerate(lines, 1)]

    assert main([*args, *slurm]) == 0
    assert "corpus jobs submitted" in capsys.readouterr().out
    assert not list((out / "corpus" / "data").glob("*.parquet"))  # nothing planned on a corpus not built yet
    corpus_jobs = [s for _, s in submitted() if "launch_pickled_pipeline" in s]
    assert len(corpus_jobs) == 1 and "#SBATCH --job-name=wikiformer-corpus" in corpus_jobs[0]
    run_jobs(corpus_jobs, tmp_path)

    before = len(submitted())
    assert main([*args, *slurm]) == 0
    assert "jobs submitted" in capsys.readouterr().out
    jobs = [(c, s) for c, s in submitted()[before:] if "launch_pickled_pipeline" in s]
    stages = [s for _, s in jobs]
    names = [line.split("wikiformer-")[1] for s in stages for line in s.splitlines() if "--job-name" in line]
    assert names == ["tasks", "see-also-join", "ltm", "cards"]
    for script in stages:
        assert "#SBATCH --partition=cpu" in script and "#SBATCH --time=2:00:00" in script
        assert f"cd {os.getcwd()} && export PYTHONPATH={PROJECT_ROOT}" in script
        if sys.prefix != sys.base_prefix:
            assert f"source {Path(sys.prefix) / 'bin' / 'activate'} && " in script
    # 4 units on 2 processes: arrays of 2 tasks for stage 1 and LTM, 1 for the join (one bucket) and the cards;
    # each stage after the first waits for the one before it to succeed
    arrays = [line for s in stages for line in s.splitlines() if line.startswith("#SBATCH --array")]
    assert arrays == ["#SBATCH --array=0-1", "#SBATCH --array=0-0", "#SBATCH --array=0-1", "#SBATCH --array=0-0"]
    assert "dependency" not in jobs[0][0]
    assert all("--dependency=afterok:" in c for c, _ in jobs[1:])

    run_jobs(stages, tmp_path)
    assert digests(out) == digests(local_build)


@pytest.mark.slow
def test_ray_builds_the_same_datasets_and_resumes_after_sigkill(tmp_path):
    """Dump -> datasets on a local Ray cluster (datatrove's RayPipelineExecutor): killed mid-unit, rerun, and the
    result is byte-identical to the local executor's."""
    pytest.importorskip("ray")
    local, ray_out = tmp_path / "local", tmp_path / "ray"
    dump = ["--input", str(ENWIKI_SAMPLE), *LIMIT, *UNIT]
    assert main([*dump, "--output-dir", str(local), "--num-proc", "2"]) == 0
    env_command = build_command(ENWIKI_SAMPLE, ray_out, "--num-proc", "2", "--executor", "ray", *LIMIT)
    kill_after_first_unit(env_command, ray_out, timeout=240)
    assert not (ray_out / ".build" / "summary.json").exists()
    result = subprocess.run(env_command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert digests(ray_out) == digests(local)
    corpus = sorted((local / "corpus" / "data").glob("*.parquet"))
    assert [p.read_bytes() for p in corpus] == [(ray_out / "corpus" / "data" / p.name).read_bytes() for p in corpus]
    assert no_partial_files(ray_out)


def test_local_workers_are_forked_only_where_that_is_safe(monkeypatch):
    import threading

    from wikiformer_kit.dataset_scripts.local_executor import local_start_method

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    main = threading.main_thread()
    fsspec_loop = threading.Thread(name="fsspecIO")  # fsspec makes its loop again in a forked child
    monkeypatch.setattr(threading, "enumerate", lambda: [main, fsspec_loop])
    assert local_start_method() == "fork"
    other = threading.Thread(name="worker")  # a thread would be copied half-way through its work
    monkeypatch.setattr(threading, "enumerate", lambda: [main, fsspec_loop, other])
    assert local_start_method() == "forkserver"
    monkeypatch.setattr(threading, "enumerate", lambda: [main])
    monkeypatch.setitem(sys.modules, "torch", object())  # torch's thread pools do not survive a fork
    assert local_start_method() == "forkserver"
    monkeypatch.delitem(sys.modules, "torch")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert local_start_method() == "forkserver"


def test_the_progress_monitor_is_stopped_before_choosing(monkeypatch):
    import threading

    from tqdm import tqdm

    from wikiformer_kit.dataset_scripts.local_executor import local_start_method

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.setattr(tqdm, "monitor_interval", 10)
    with tqdm(total=1, disable=False, file=open(os.devnull, "w")) as bar:
        bar.update()

    class LibraryBar(tqdm):  # another library's bars (huggingface_hub's, datasets') run a monitor of their own
        pass

    tqdm.monitor = None
    with LibraryBar(total=1, disable=False, file=open(os.devnull, "w")) as bar:
        bar.update()
    assert LibraryBar.monitor is not None
    local_start_method()
    assert tqdm.monitor is None and LibraryBar.monitor is None
    assert not [t for t in threading.enumerate() if t.name.startswith("tqdm")]


def test_the_start_method_is_chosen_when_the_pool_starts_after_the_stages_before(monkeypatch, tmp_path):
    from datatrove.executor import LocalPipelineExecutor

    from wikiformer_kit.dataset_scripts import local_executor

    loaded = []  # what the first stage imports in this process (torch, for HARP's attention)
    monkeypatch.setattr(local_executor, "local_start_method", lambda: "forkserver" if loaded else "fork")
    chosen = []

    def run_in_process(self):  # datatrove's run, without a pool: the steps, and the start method it would use
        chosen.append((self.start_method, self.workers))
        self._launched = True
        for step in self.pipeline:
            step()

    monkeypatch.setattr(LocalPipelineExecutor, "run", run_in_process)
    attention = local_executor.StartMethodAtRun(
        [lambda: loaded.append("torch")], workers=1, tasks=1, logging_dir=str(tmp_path / "attention")
    )
    rows = local_executor.StartMethodAtRun(
        [lambda: None], workers=2, tasks=2, logging_dir=str(tmp_path / "rows"), depends=attention
    )
    assert rows.start_method == "forkserver"  # nothing decided when the chain is built
    rows.run()
    assert chosen == [("fork", 1), ("forkserver", 2)]  # the rows stage saw what the attention stage loaded
