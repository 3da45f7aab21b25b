"""An output folder is built by one build at a time: ``.lock`` in it names the process and host holding it. A second
build is refused at once, in one line; a lock left by a process that is gone (on this host) is taken over, saying so."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from wikiformer_kit.cli.errors import InputError

LOCK = ".lock"


class FolderInUseError(InputError):
    """Another build holds the output folder; the message names it and what to do."""


@contextlib.contextmanager
def holding(folder: str | Path, what: str = "a build") -> Iterator[None]:
    """Hold ``folder`` for the duration of the block (created if needed, and removed again if the block left it
    empty); raises :class:`FolderInUseError` when a live process holds it."""
    folder = Path(folder)
    created = [f for f in (folder, *folder.parents) if not f.exists()]  # this folder and the parents made for it
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK
    mine = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "what": what,
    }
    held = _read(path)
    if held and held.get("pid") == mine["pid"] and held.get("host") == mine["host"]:
        yield  # this process holds it already (a command holds its folder before the library call that also does)
        return
    while True:
        try:
            with open(path, "x", encoding="utf-8") as lock:
                json.dump(mine, lock)
            break
        except FileExistsError:
            holder = _read(path)
            if holder is None and time.time() - _mtime(path) < 2:  # being written this instant: read it again
                time.sleep(0.05)
                continue
            if holder is not None and (holder.get("host") != mine["host"] or _alive(holder.get("pid"))):
                raise FolderInUseError(
                    f"{folder} is being written by {holder.get('what', 'a build')} (process {holder.get('pid')} on "
                    f"{holder.get('host')}, since {holder.get('started')}); wait for it to end, or give another "
                    f"--output-dir (if that build is gone, remove {path})"
                ) from None
            print(
                f"{folder}: taking over the lock of a build that is gone "
                f"(process {holder.get('pid') if holder else '?'}, {holder.get('started') if holder else 'unreadable'})",
                file=sys.stderr,
            )
            path.unlink(missing_ok=True)
    try:
        yield
    finally:
        if (_read(path) or {}).get("pid") == mine["pid"]:
            path.unlink(missing_ok=True)
        for made in created:  # a build that wrote nothing leaves no folder behind
            if made.is_dir() and not any(made.iterdir()):
                made.rmdir()


def _read(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _alive(pid) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
