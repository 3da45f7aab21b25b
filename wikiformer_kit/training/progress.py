"""Plain progress lines for a training run whose output is not a terminal (a log file, CI, ``nohup``), where
transformers' progress bar is either absent or a stream of carriage returns nobody reads."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

from transformers import TrainerCallback

from wikiformer_kit.cli.durations import duration


class PlainProgressCallback(TrainerCallback):
    """Prints ``train: step 120/1000 (12%) · loss 0.7123 · 0.85 steps/s · elapsed 2 min 21 s · ETA 17 min 15 s``
    every ``every_steps`` optimizer steps or ``every_seconds`` seconds, whichever comes first (0 turns either off),
    from the main process only.

    The loss is the latest logged one (every ``logging_steps``); the rate counts the steps of this run only, so that
    a resumed run's ETA is not flattered by the steps it skipped.

    Args:
        stream: where the lines go (default: ``sys.stdout`` at the time of each line).
        clock: the time source (seconds).
        after_bar: start each line on a line of its own: a progress bar, which ends its text without a newline,
            writes to the same file.
    """

    def __init__(
        self,
        every_steps: int = 1000,
        every_seconds: float = 60.0,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        after_bar: bool = False,
    ):
        if every_steps < 0 or every_seconds < 0:
            raise ValueError(f"progress intervals must be >= 0, got {every_steps} steps and {every_seconds} s")
        self.every_steps, self.every_seconds = every_steps, every_seconds
        self.stream, self.clock, self.after_bar = stream, clock, after_bar
        self.started = self.last_time = 0.0
        self.first_step = self.last_step = 0
        self.loss: float | None = None

    def on_train_begin(self, args, state, control, **kwargs):
        self.started = self.last_time = self.clock()
        self.first_step = self.last_step = state.global_step
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs:
            self.loss = float(logs["loss"])
        return control

    def on_step_end(self, args, state, control, **kwargs):
        now = self.clock()
        by_steps = self.every_steps and state.global_step - self.last_step >= self.every_steps
        by_time = self.every_seconds and now - self.last_time >= self.every_seconds
        if (by_steps or by_time) and state.is_world_process_zero:
            line = self.line(state.global_step, state.max_steps, now)
            print("\n" + line if self.after_bar else line, file=self.stream or sys.stdout, flush=True)
            self.last_time, self.last_step = now, state.global_step
        return control

    def line(self, step: int, max_steps: int, now: float) -> str:
        """The progress line at optimizer step ``step`` of ``max_steps`` at time ``now``."""
        elapsed = now - self.started
        rate = (step - self.first_step) / elapsed if elapsed > 0 else 0.0
        parts = [f"train: step {step:,}/{max_steps:,}" + (f" ({step / max_steps:.0%})" if max_steps > 0 else "")]
        parts.append(f"loss {self.loss:.4f}" if self.loss is not None else "loss not logged yet")
        parts.append(f"{rate:.3g} steps/s" if rate >= 0.1 else f"{1 / rate:.3g} s/step" if rate > 0 else "")
        parts.append(f"elapsed {duration(elapsed)}")
        if rate > 0 and max_steps > step:
            parts.append(f"ETA {duration((max_steps - step) / rate)}")
        return " · ".join(part for part in parts if part)


def progress_callback(args, is_terminal: bool | None = None) -> PlainProgressCallback | None:
    """The progress callback a run needs: none on a terminal (transformers' bar is there), else one with the
    intervals of ``args`` (``progress_steps``, ``progress_seconds``; both 0: none)."""
    if is_terminal is None:
        is_terminal = sys.stdout.isatty()
    steps = getattr(args, "progress_steps", 1000)
    seconds = getattr(args, "progress_seconds", 60.0)
    if is_terminal or not (steps or seconds):
        return None
    bar_shown = not getattr(args, "disable_tqdm", False) and same_file(sys.stdout, sys.stderr)
    return PlainProgressCallback(steps, seconds, after_bar=bar_shown)


def same_file(first, second) -> bool:
    """Whether two streams write to the same file (``2>&1``, ``nohup``, a pipe read as one)."""
    try:
        one, two = os.fstat(first.fileno()), os.fstat(second.fileno())
    except (AttributeError, OSError, ValueError):
        return False
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)
