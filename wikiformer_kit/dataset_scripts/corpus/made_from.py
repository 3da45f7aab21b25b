"""What a corpus folder was made from (``logs/inputs.json``): each input file's path, size and modification time, the
options that change its rows, and the kit's version. A rerun resumes the work finished earlier only when all of
them are the same; otherwise it says what changed in one line and builds the corpus again."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from wikiformer_kit import __version__
from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.dataset_scripts.build_params import differing_keys
from wikiformer_kit.dataset_scripts.corpus.empty import CONFIG_SCHEMAS
from wikiformer_kit.dataset_scripts.corpus.folder import BUILD_RECORD
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions
from wikiformer_kit.dataset_scripts.file_states import changed_files, file_states

INPUT_RECORD = Path("logs") / "inputs.json"
NOT_IN_THE_ROWS = ("read_ahead", "streams_per_shard")
"""Options that change how the input is read, not what is read from it."""


def made_from(paths: list[str], options: CorpusOptions) -> dict:
    """The record of a build over the input files ``paths`` (the shards' files) with ``options``."""
    kept = {key: value for key, value in options.to_dict().items() if key not in NOT_IN_THE_ROWS}
    record = {"files": file_states(paths), "options": kept, "kit": __version__}
    return json.loads(json.dumps(record))  # as it reads back


def changes(before: dict, now: dict) -> list[str]:
    """What differs between two records, in words (empty when nothing does)."""
    said = changed_files(before.get("files", {}), now["files"])
    options = differing_keys(before.get("options", {}), now["options"])
    if options:
        said.append(f"options {', '.join(options)}")
    if before.get("kit") != now["kit"]:
        said.append(f"the kit's version ({before.get('kit')} -> {now['kit']})")
    return said


def finished_work(output_dir: Path) -> bool:
    """Whether the folder holds work of an earlier run (finished tasks or rows)."""
    completions = output_dir / "logs" / "completions"
    return (completions.is_dir() and any(completions.iterdir())) or any(
        any((output_dir / folder).glob("*.parquet")) for folder in CONFIG_SCHEMAS
    )


def check_made_from(output_dir: Path, record: dict) -> bool:
    """Keep the folder's earlier work when it was made from ``record``; else say why (one line on stderr), remove
    it and return True (the shard plan goes with it: plan again). Then record ``record`` for this run."""
    path = output_dir / INPUT_RECORD
    before = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    stale = finished_work(output_dir) and before != record
    if stale:
        why = "; ".join(changes(before, record)) if before else "it does not record what it was made from"
        print(
            f"[corpus] {output_dir}: the work there was made from other inputs ({why}): building it again",
            file=sys.stderr,
        )
        for folder in (*CONFIG_SCHEMAS, "stats", "logs/completions", "logs/stats"):
            shutil.rmtree(output_dir / folder, ignore_errors=True)
        for file in (BUILD_RECORD, "README.md", "logs/shards.json"):
            (output_dir / file).unlink(missing_ok=True)
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return stale
