"""A stage's progress on the release's console: a bar on a terminal, a line a minute off one."""

from __future__ import annotations

import io

from wikiformer_kit.release.stage_runner import StageProgress


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_off_a_terminal_training_shows_its_own_progress_line_once_a_minute():
    console, clock = io.StringIO(), Clock()
    progress = StageProgress("[train]", console, clock=clock)
    for step in range(1, 200):
        clock.now = step * 3.0
        line = f"train: step {step}/400 (x%) · loss 0.{step:04d} · elapsed e · ETA {400 - step} s\n"
        progress.feed(b"\r 12%|#  | " + str(step).encode() + b"/400 [00:01<00:09]\n" + line.encode())
    progress.close()
    lines = console.getvalue().splitlines()
    assert len(lines) == 199 * 3 // 60  # one a minute
    assert lines[0] == "[train] step 20/400 (x%) · loss 0.0020 · elapsed e · ETA 380 s"
    assert all(line.startswith("[train] step ") and "loss" in line for line in lines)


def test_off_a_terminal_a_command_with_bars_only_gets_its_count_rate_and_eta():
    console, clock = io.StringIO(), Clock()
    progress = StageProgress("[datasets]", console, clock=clock)
    for done in range(0, 101):
        clock.now = done * 1.5
        progress.feed(f"\rshards:  {done}%|## | {done}/100 [00:0{done % 10}<?, ?it/s]".encode())
    lines = console.getvalue().splitlines()
    assert lines[0].startswith("[datasets] 40/100 (40%) · elapsed 60 s") and "ETA 1 min 30 s" in lines[0]
    assert len(lines) == 2


def test_a_command_that_shows_no_progress_prints_nothing_between_its_lines():
    console, clock = io.StringIO(), Clock()
    progress = StageProgress("[eval]", console, clock=clock)
    clock.now = 600.0
    progress.feed(b"loading the model\n")
    assert console.getvalue() == ""
