"""What a build stage shows on the console: one line when it ends, its own output in ``OUT/logs/<stage>.log``.

While a stage runs, ``sys.stdout``, ``sys.stderr`` and datatrove's loguru sinks write to the stage's log (in this
process and in its workers), so the executor's banners and statistics and the steps' bars are kept there. Warnings
and errors still reach the console as they are written; on a terminal the latest progress bar is shown in place,
on one line that the stage's closing line replaces. A failing stage shows the tail of its log and where it is.
"""

from __future__ import annotations

import io
import re
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from wikiformer_kit.cli.durations import duration

MUST_SHOW = re.compile(r"\|\s*(WARNING|ERROR|CRITICAL)\s*\||^\s*(warning|error):|\b[A-Z]\w*Warning: ", re.IGNORECASE)
"""Lines a user must see: loguru's warnings and errors, the kit's ``warning: ...``/``error: ...`` lines and Python
warnings."""

PROGRESS_BAR = re.compile(r"\d%\||/s\]|s/it\]|it \[")
"""A tqdm bar's text (``12%|``, ``3.1it/s]``, ``2.5s/it]``, ``106it [``)."""

TAIL_LINES = 30


class StageStream(io.TextIOBase):
    """A text stream that appends everything to ``log`` and shows on ``console`` the lines a user must see (and,
    when ``transient``, the latest progress bar in place)."""

    def __init__(self, log: Path, console, transient: bool = False):
        super().__init__()
        self.log_path = Path(log)
        self._log = open(self.log_path, "a", encoding="utf-8", errors="replace")  # noqa: SIM115 (closed by close())
        self.console = console
        self.transient = transient
        self.showing_bar = False
        self._pending = ""

    @property
    def encoding(self) -> str:
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        """The log's descriptor: what a library writes below Python's streams lands in the log too."""
        return self._log.fileno()

    def write(self, text: str) -> int:
        self._log.write(text)
        self._log.flush()  # the log can be followed while the stage runs, and workers append to it too
        *lines, self._pending = re.split(r"[\r\n]", self._pending + text)
        for line in lines:
            self._show(line)
        return len(text)

    def flush(self) -> None:
        if not self._log.closed:
            self._log.flush()

    def close(self) -> None:
        if self._pending:
            self._show(self._pending)
            self._pending = ""
        self.clear_bar()
        if not self._log.closed:
            self._log.close()
        super().close()

    def clear_bar(self) -> None:
        """Erase the progress bar shown in place, if any."""
        if self.showing_bar:
            self.console.write("\r\x1b[K")
            self.console.flush()
            self.showing_bar = False

    def _show(self, line: str) -> None:
        if MUST_SHOW.search(line):
            self.clear_bar()
            self.console.write(line.rstrip() + "\n")
            self.console.flush()
        elif self.transient and PROGRESS_BAR.search(line):
            width = shutil.get_terminal_size().columns - 1
            self.console.write("\r" + line.strip()[:width] + "\x1b[K")
            self.console.flush()
            self.showing_bar = True


def send_output_to(stream) -> None:
    """``sys.stdout``, ``sys.stderr`` and datatrove's loguru logger write to ``stream`` only (datatrove adds its own
    sinks again for each task)."""
    from datatrove.utils.logging import logger

    sys.stdout = sys.stderr = stream
    logger.remove()
    logger.add(stream, colorize=False)


def install_for_process(log: Path, transient: bool) -> None:
    """Send this worker process's output to ``log`` for the rest of its life (a pool's worker lives for one stage).

    A no-op where it already goes there: the in-process worker of a one-worker stage, a worker forked from it.
    """
    if isinstance(sys.stderr, StageStream) and not sys.stderr.closed and sys.stderr.log_path == Path(log):
        return
    send_output_to(StageStream(log, sys.stderr, transient))


@contextmanager
def stage_output(log: Path, transient: bool | None = None) -> Iterator[StageStream]:
    """Within the block, this process's output goes to ``log`` (its folder made; appended, after a line naming the
    stage's start); ``transient``: show the latest progress bar in place on the console (default: when stderr is a
    terminal)."""
    from datatrove.utils.logging import setup_default_logger

    log = Path(log)
    log.parent.mkdir(parents=True, exist_ok=True)
    console = sys.stderr.console if isinstance(sys.stderr, StageStream) else sys.stderr
    if transient is None:
        transient = bool(getattr(console, "isatty", lambda: False)())
    stream = StageStream(log, console, transient)
    stream.write(f"=== {datetime.now().isoformat(timespec='seconds')} {' '.join(sys.argv)}\n")
    saved = sys.stdout, sys.stderr
    send_output_to(stream)
    try:
        yield stream
    finally:
        sys.stdout, sys.stderr = saved
        setup_default_logger()  # datatrove's own default, on the console again
        stream.close()


def log_tail(log: Path, lines: int = TAIL_LINES) -> list[str]:
    """The last ``lines`` non-empty lines of ``log`` (a progress bar's redrawn line counted once, as last drawn)."""
    try:
        with open(log, encoding="utf-8", errors="replace", newline="") as file:  # a bar's "\r" kept
            text = file.read()
    except OSError:
        return []
    shown = [line.rsplit("\r", 1)[-1] for line in text.split("\n")]
    return [line for line in shown if line.strip()][-lines:]


def shown_path(path: Path) -> str:
    """``path`` relative to the working directory where it lies below it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def counts_line(stats) -> str:
    """What a stage did, from datatrove's merged ``PipelineStats``: each step's counters (``106 RawPage, 99
    Redirect``); empty when no step counted anything."""
    parts = []
    for step in getattr(stats, "stats", None) or []:
        for name, metric in getattr(step, "stats", {}).items():
            total = getattr(metric, "total", metric)
            if isinstance(total, float) and not total.is_integer():
                parts.append(f"{total:,.2f} {name}")
            else:
                parts.append(f"{int(total):,} {name}")
    return ", ".join(parts)


class StageReport:
    """Times a stage and prints its closing line: ``[name] done in 4 s: what it did · log: OUT/logs/name.log``."""

    def __init__(self, name: str, log: Path | None):
        self.name = name
        self.log = log
        self.started = time.monotonic()

    def where(self) -> str:
        return f" · log: {shown_path(self.log)}" if self.log else ""

    def done(self, what: str = "", earlier: int = 0, tasks: int = 0) -> None:
        """Print the closing line; ``earlier`` of ``tasks`` were finished by an earlier run."""
        took = duration(time.monotonic() - self.started)
        if tasks and earlier == tasks:
            print(f"[{self.name}] finished earlier: reused{self.where()}", flush=True)
            return
        resumed = f" ({earlier} of {tasks} tasks finished earlier)" if earlier else ""
        print(f"[{self.name}] done in {took}{resumed}{': ' + what if what else ''}{self.where()}", flush=True)

    def failed(self, error: BaseException) -> None:
        """On stderr: the tail of the log and where it is (or, for Ctrl-C, where the stage stopped)."""
        took = duration(time.monotonic() - self.started)
        if isinstance(error, KeyboardInterrupt):
            print(f"[{self.name}] interrupted after {took}{self.where()}", file=sys.stderr, flush=True)
            return
        if self.log:
            print("\n".join(log_tail(self.log)), file=sys.stderr)
        where = f" (full log: {shown_path(self.log)})" if self.log else ""
        print(f"[{self.name}] failed after {took}{where}", file=sys.stderr, flush=True)
