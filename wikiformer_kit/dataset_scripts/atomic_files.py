"""Files written whole or not at all, as every build step writes its outputs: the temporary beside the target is
named ``.<name>.tmp-<pid>``, and :func:`clear_partial` removes what a killed run left of one."""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from pathlib import Path


class DiskFullError(OSError):
    """The disk (or a quota, or a file size limit) ran out while a unit was written; finished units are kept and
    a rerun of the same command resumes at this one."""


_OUT_OF_SPACE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def partial_path(path: Path) -> Path:
    """The hidden temporary a write of ``path`` goes to before its rename (what :func:`clear_partial` removes)."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


def atomic_write(path: Path, write) -> None:
    """Write ``path`` through ``write(tmp)`` into a hidden temporary beside it, then rename: a killed run never
    leaves a half-written ``path``. A full disk (or quota, or file size limit) raises :class:`DiskFullError`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = partial_path(path)
    try:
        write(tmp)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        if error.errno in _OUT_OF_SPACE or "No space left" in str(error) or "File too large" in str(error):
            raise DiskFullError(
                error.errno or errno.ENOSPC,
                f"disk full while writing {path} ({error.strerror or error}); the units finished before it are "
                "kept: free some space and rerun the same command to resume",
            ) from error
        raise
    os.replace(tmp, path)


def clear_partial(paths: Sequence[Path]) -> None:
    """Remove what a killed earlier run left half-written for these files (``.<name>.tmp-<pid>``)."""
    for path in paths:
        if path.parent.is_dir():
            for stale in path.parent.glob(f".{path.name}.tmp-*"):
                stale.unlink(missing_ok=True)
