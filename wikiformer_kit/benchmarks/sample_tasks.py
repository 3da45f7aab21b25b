"""The task datasets every training and evaluation bench starts from, built once with the kit's own command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from wikiformer_kit.home import kit_file

ENWIKI_SAMPLE = kit_file("data/samples/wikipedia/enwiki-sample.xml.bz2")


def build_task_datasets(
    output_dir: Path,
    inputs: list[str] | None = None,
    tasks: tuple[str, ...] = ("srr", "rwi", "ati", "ltm"),
    *,
    quiet: bool = True,
) -> Path:
    """``output_dir`` holding ``wikiformer-<task>`` for every task in ``tasks``, built from ``inputs`` (default: the
    vendored enwiki sample) by ``python -m dataset_scripts.build`` when any of them is missing."""
    if all((output_dir / f"wikiformer-{task}").is_dir() for task in tasks):
        return output_dir
    command = [
        sys.executable,
        "-m",
        "wikiformer_kit.dataset_scripts.build",
        "--input",
        *(inputs or [str(ENWIKI_SAMPLE)]),
    ]
    command += ["--output-dir", str(output_dir), "--tasks", ",".join(tasks)]
    if not quiet:
        print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL if quiet else None)
    return output_dir
