"""What a run was made from, as a rerun can check it cheaply: each input file's size and modification time.

A resumable run records :func:`file_states` of its inputs beside its options; a rerun compares the two records and
reuses finished work only when nothing changed, saying what did (:func:`changed_files`) when something has.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

MAX_FILES_PER_FOLDER = 10_000
"""A folder given as an input is recorded file by file up to this many files (its size and newest time past it)."""


def file_states(paths: Iterable[str | Path], *, outside: Iterable[Path] = ()) -> dict[str, list[int]]:
    """``{absolute path: [size, mtime_ns]}`` for each existing file among ``paths`` and each file inside each existing
    folder among them; paths that do not exist (Hub ids, ``irds:`` specs, option values) are left out, as are files
    under the folders ``outside`` (the run's own outputs)."""
    skip = [Path(p).resolve() for p in outside]
    states: dict[str, list[int]] = {}
    for given in paths:
        path = Path(given)
        try:
            if not path.exists():
                continue
        except (OSError, ValueError):  # a name too long or with a NUL byte is no file
            continue
        path = path.resolve()
        if any(path == s or path.is_relative_to(s) for s in skip):
            continue
        if path.is_file():
            stat = path.stat()
            states[str(path)] = [stat.st_size, stat.st_mtime_ns]
        elif path.is_dir():
            states.update(_folder_states(path, skip))
    return dict(sorted(states.items()))


def _folder_states(folder: Path, skip: list[Path]) -> dict[str, list[int]]:
    states: dict[str, list[int]] = {}
    total, newest, count = 0, 0, 0
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        dirs[:] = sorted(d for d in dirs if not any((here / d) == s or (here / d).is_relative_to(s) for s in skip))
        for name in sorted(files):
            stat = (here / name).stat()
            count += 1
            total, newest = total + stat.st_size, max(newest, stat.st_mtime_ns)
            if count <= MAX_FILES_PER_FOLDER:
                states[str(here / name)] = [stat.st_size, stat.st_mtime_ns]
    if count > MAX_FILES_PER_FOLDER:  # a huge folder: its totals stand for the files past the limit
        states[f"{folder}/*"] = [total, newest]
    return states


def changed_files(before: dict[str, list[int]], now: dict[str, list[int]]) -> list[str]:
    """What differs between two :func:`file_states` records, in words (empty when nothing does)."""
    said = []
    for label, names in (
        ("other input", [p for p in now if p not in before]),
        ("input no longer given", [p for p in before if p not in now]),
        ("input replaced (size or time)", [p for p in now if p in before and before[p] != now[p]]),
    ):
        if names:
            shown = ", ".join(Path(n).name for n in names[:3])
            said.append(f"{label}: {shown}{' ...' if len(names) > 3 else ''}")
    return said
