"""Running a stage's commands: each a kit command run as a subprocess from its typed options, its output in the
stage's log, its progress on the release's console."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from wikiformer_kit.cli.durations import duration
from wikiformer_kit.cli.options import to_argv
from wikiformer_kit.home import kit_environment

_BAR = re.compile(rb"(\d+)/(\d+) \[")
"""A tqdm bar's ``n/total [``, as the stage commands print them."""
_PLAIN_LINE = re.compile(rb"^\w[\w -]*: step [^\r\n]*", re.MULTILINE)
"""A command's own plain progress line (``train: step 120/1000 (12%) · loss 0.71 · ... · ETA 17 min``), printed
when its output is not a terminal."""
PLAIN_EVERY_SECONDS = 60.0


@dataclass(frozen=True)
class Invocation:
    """One run of a kit command: its module, a subcommand, the arguments before its options (train's config) and
    its options, typed (a ``cli.options`` dataclass, written back as the command line that parses into it)."""

    module: str
    options: object = None
    subcommand: str | None = None
    leading: tuple[str, ...] = ()
    shown: tuple[str, ...] = field(default=())
    """Options written first, in this order, and even at their default: what the release chose, as the command line
    in the logs and the dataset cards says it."""
    shown_when_given: tuple[str, ...] = field(default=())
    """Options written next, in this order, where they differ from their default."""

    def arguments(self) -> list[str]:
        """The command line after ``python -m MODULE``."""
        order = (*self.shown, *self.shown_when_given)
        typed = to_argv(self.options, first=order, always=self.shown) if self.options is not None else []
        return [*([self.subcommand] if self.subcommand else []), *self.leading, *typed]

    def command(self) -> list[str]:
        """The whole command, with this interpreter."""
        return [sys.executable, "-m", self.module, *self.arguments()]


class StageProgress:
    """A stage's progress from its commands' output: on a terminal, a bar that follows the commands' own bars; off a
    terminal, a line a minute: the command's own plain progress line where it prints one (training: step, loss,
    ETA), else its bar's count with the rate and ETA measured here."""

    def __init__(
        self,
        label: str,
        console: TextIO | None = None,
        every_seconds: float = PLAIN_EVERY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ):
        from tqdm.auto import tqdm

        self.label, self.console, self.every_seconds, self.clock = label, console or sys.stdout, every_seconds, clock
        self.on_terminal = bool(getattr(self.console, "isatty", lambda: False)())
        self.bar = tqdm(desc=label, total=0, leave=False, disable=not self.on_terminal, dynamic_ncols=True)
        self.started = self.last_line = clock()
        self.count: tuple[int, int] | None = None
        self.first_count: tuple[float, int] | None = None
        self.plain: str | None = None

    def feed(self, chunk: bytes) -> None:
        """Take in a chunk of the commands' output."""
        found = _BAR.findall(chunk)
        if found:
            done, total = map(int, found[-1])
            if self.first_count is None or self.count is None or self.count[1] != total:
                self.first_count = (self.clock(), done)
            self.count = (done, total)
            if self.on_terminal:
                self.bar.total, self.bar.n = total, done
                self.bar.refresh()
        plain = _PLAIN_LINE.findall(chunk)
        if plain:
            self.plain = plain[-1].decode("utf-8", errors="replace").strip()
        if not self.on_terminal and self.clock() - self.last_line >= self.every_seconds:
            line = self.line()
            if line:
                print(f"{self.label} {line}", file=self.console, flush=True)
            self.last_line = self.clock()

    def line(self) -> str | None:
        """The progress line to show now, or None when the commands showed no progress yet."""
        if self.plain:
            _, _, rest = self.plain.partition(": ")
            return rest if rest.startswith("step") else self.plain
        if self.count is None:
            return None
        done, total = self.count
        parts = [f"{done:,}/{total:,}" + (f" ({done / total:.0%})" if total else "")]
        parts.append(f"elapsed {duration(self.clock() - self.started)}")
        since, first = self.first_count or (self.started, 0)
        rate = (done - first) / (self.clock() - since) if self.clock() > since else 0.0
        if rate > 0 and total > done:
            parts.append(f"ETA {duration((total - done) / rate)}")
        return " · ".join(parts)

    def close(self) -> None:
        self.bar.close()


def run_logged(command: Sequence[str], log: Path, label: str, shown: str, console: TextIO | None = None) -> int:
    """Run ``command`` with its output appended to ``log``, its progress on the console (see ``StageProgress``)."""
    progress = StageProgress(label, console)
    try:
        with log.open("ab") as sink:
            sink.write(f"$ {shown}\n".encode())
            sink.flush()
            process = subprocess.Popen(
                list(command), env=kit_environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
            while chunk := process.stdout.read1(65536):
                sink.write(chunk)
                sink.flush()  # the log can be followed while the stage runs
                progress.feed(chunk)
            return process.wait()
    finally:
        progress.close()
