"""Plain progress lines when the output is not a terminal: by steps or by seconds, whichever first; from a real
tiny training run with its output redirected."""

from __future__ import annotations

import io
import re
import sys
from types import SimpleNamespace

import pytest

from tests.training.conftest import run_train, train_command
from wikiformer_kit.training.progress import PlainProgressCallback, duration, progress_callback

LINE = re.compile(
    r"train: step (\d+)/(\d+) \(\d+%\) · loss (\d+\.\d{4}|not logged yet) · [\d.e+]+ (steps/s|s/step)"
    r" · elapsed [\w ]+?( · ETA [\w ]+)?"
)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def state(step: int, max_steps: int = 10, main: bool = True):
    return SimpleNamespace(global_step=step, max_steps=max_steps, is_world_process_zero=main)


def drive(callback: PlainProgressCallback, clock: Clock, seconds_per_step: float, steps: int, first: int = 0):
    callback.on_train_begin(None, state(first), None)
    for step in range(first + 1, first + steps + 1):
        clock.now += seconds_per_step
        if step % 2 == 0:
            callback.on_log(None, state(step), None, logs={"loss": 1.0 / step})
        callback.on_step_end(None, state(step), None)


def test_a_line_every_n_steps_when_steps_are_fast():
    out, clock = io.StringIO(), Clock()
    drive(PlainProgressCallback(every_steps=3, every_seconds=60, stream=out, clock=clock), clock, 0.5, 10)
    lines = out.getvalue().splitlines()
    assert [LINE.fullmatch(line).group(1) for line in lines] == ["3", "6", "9"]
    assert lines[1] == "train: step 6/10 (60%) · loss 0.1667 · 2 steps/s · elapsed 3 s · ETA 2 s"
    assert "loss not logged yet" not in lines[0] and "loss 0.5000" in lines[0]


def test_a_line_every_m_seconds_when_steps_are_slow():
    out, clock = io.StringIO(), Clock()
    drive(PlainProgressCallback(every_steps=1000, every_seconds=60, stream=out, clock=clock), clock, 25.0, 10)
    lines = out.getvalue().splitlines()
    assert [LINE.fullmatch(line).group(1) for line in lines] == ["3", "6", "9"]  # 75 s, 75 s, 75 s
    assert lines[0] == "train: step 3/10 (30%) · loss 0.5000 · 25 s/step · elapsed 75 s · ETA 2 min 55 s"


def test_a_resumed_run_counts_its_own_steps_and_only_the_main_process_prints():
    out, clock = io.StringIO(), Clock()
    drive(PlainProgressCallback(every_steps=2, every_seconds=0, stream=out, clock=clock), clock, 1.0, 4, first=4)
    assert out.getvalue().splitlines()[0].startswith("train: step 6/10 (60%) · loss 0.1667 · 1 steps/s · elapsed 2 s")
    quiet = io.StringIO()
    callback = PlainProgressCallback(every_steps=1, every_seconds=0, stream=quiet, clock=clock)
    callback.on_train_begin(None, state(0), None)
    callback.on_step_end(None, state(1, main=False), None)
    assert quiet.getvalue() == ""


def test_the_callback_is_added_only_where_no_terminal_shows_the_bar():
    args = SimpleNamespace(progress_steps=50, progress_seconds=0.0)
    assert progress_callback(args, is_terminal=True) is None
    made = progress_callback(args, is_terminal=False)
    assert (made.every_steps, made.every_seconds) == (50, 0.0)
    assert progress_callback(SimpleNamespace(progress_steps=0, progress_seconds=0), is_terminal=False) is None
    with pytest.raises(ValueError, match="must be >= 0"):
        PlainProgressCallback(every_steps=-1)
    assert [duration(s) for s in (59.4, 3599, 7300)] == ["59 s", "59 min 59 s", "2 h 01 min"]


def test_a_line_starts_on_its_own_line_where_a_bar_writes_to_the_same_file(tmp_path, monkeypatch):
    with open(tmp_path / "run.log", "w") as log, open(tmp_path / "other.log", "w") as other:
        monkeypatch.setattr(sys, "stdout", log)
        monkeypatch.setattr(sys, "stderr", log)  # 2>&1
        args = SimpleNamespace(progress_steps=1, progress_seconds=0, disable_tqdm=False)
        assert progress_callback(args, is_terminal=False).after_bar
        assert not progress_callback(SimpleNamespace(**{**vars(args), "disable_tqdm": True}), False).after_bar
        monkeypatch.setattr(sys, "stderr", other)
        assert not progress_callback(args, is_terminal=False).after_bar
    out, clock = io.StringIO(), Clock()
    drive(PlainProgressCallback(every_steps=1, every_seconds=0, stream=out, clock=clock, after_bar=True), clock, 1, 1)
    assert out.getvalue().startswith("\ntrain: step 1/10")


def test_train_py_with_its_output_redirected_prints_progress_lines(tiny_encoder_dir, srr_groups_path, tmp_path):
    """A real run of train.py (a tiny random BERT, 4 steps), stdout a pipe: a line every 2 steps."""
    args = train_command(tiny_encoder_dir, srr_groups_path, tmp_path / "run", "--max_steps", "4", "--save_strategy")
    args += ["no", "--progress_steps", "2", "--progress_seconds", "0", "--disable_tqdm", "false"]
    result = run_train(args, tmp_path)
    lines = [line for line in result.stdout.splitlines() if line.startswith("train: step")]
    assert [LINE.fullmatch(line).group(1, 2) for line in lines] == [("2", "4"), ("4", "4")], result.stdout[-3000:]
    assert "ETA" in lines[0] and "ETA" not in lines[1]
