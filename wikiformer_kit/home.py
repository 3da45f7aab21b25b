"""Where the kit is: its own files (configs, MediaWiki tables, stopword lists, vendored samples) and the folder it
is imported from, the same for a checkout, an editable install and an installed wheel."""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path


def kit_file(relative: str | Path) -> Path:
    """The kit's own file or folder at ``relative`` inside the package (``configs``, ``data/mediawiki/...``)."""
    return Path(str(files("wikiformer_kit").joinpath(str(relative))))


def find_kit_file(given: str | Path) -> Path | None:
    """``given`` when it exists here, else the kit's own copy of that relative name (``configs/demo-cpu.yaml`` or
    ``data/samples/eval/dl20-mini`` from any folder), else None."""
    if Path(given).exists():
        return Path(given).resolve()
    if Path(given).is_absolute():
        return None
    shipped = kit_file(given)
    return shipped if shipped.exists() else None


def import_root() -> Path:
    """The folder that holds the ``wikiformer_kit`` package: what a subprocess, a Slurm job or a Ray worker puts
    first on ``PYTHONPATH`` to import this same kit."""
    return kit_file(".").resolve().parent


def kit_environment() -> dict[str, str]:
    """This process's environment with :func:`import_root` first on ``PYTHONPATH``."""
    path = os.pathsep.join(p for p in (str(import_root()), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}
