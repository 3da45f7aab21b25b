"""A build with no articles still writes a dataset that ``datasets.load_dataset`` loads, and says why it is empty.

Every config of the corpus card (``articles``, ``redirects``, ``skipped``) needs at least one Parquet file, or
``load_dataset`` fails with "No (supported) data files found". A config that no task wrote a file for gets an
empty ``empty.parquet`` with the full schema; a rerun removes these placeholders first, so a resumed build that
does find records never keeps them beside real shards.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.corpus.article import ARTICLE_SCHEMA
from wikiformer_kit.dataset_scripts.corpus.folder import read_build_record
from wikiformer_kit.dataset_scripts.corpus.steps import REDIRECT_SCHEMA, SKIPPED_SCHEMA

PLACEHOLDER = "empty.parquet"
CONFIG_SCHEMAS = {"data": ARTICLE_SCHEMA, "redirects": REDIRECT_SCHEMA, "skipped": SKIPPED_SCHEMA}
"""Folder of each config of the corpus card -> its Parquet schema."""


def clear_placeholders(output_dir: str | Path) -> None:
    """Remove the placeholders of an earlier empty build (before a rerun writes real shards)."""
    for folder in CONFIG_SCHEMAS:
        Path(output_dir, folder, PLACEHOLDER).unlink(missing_ok=True)


def write_placeholders(output_dir: str | Path) -> list[Path]:
    """Write an empty Parquet file with the full schema into every config folder that has none; returns them."""
    written = []
    for folder, schema in CONFIG_SCHEMAS.items():
        target = Path(output_dir, folder)
        if not any(target.glob("*.parquet")):
            target.mkdir(parents=True, exist_ok=True)
            # no row group at all: datasets reads a 0-row row group with batch size 0 and fails
            pq.ParquetWriter(target / PLACEHOLDER, schema).close()
            written.append(target / PLACEHOLDER)
    return written


class EmptyCorpusError(ValueError):
    """A corpus without a single article, where articles are needed (a task build); the message says why."""


def no_article_message(corpus_dir: str | Path) -> str:
    """One line on a corpus without articles, for a command that does not keep it: its inputs and why no page
    became an article (the count of each reason, and the first record left out with its file and detail)."""
    record = read_build_record(corpus_dir) or {}
    inputs = ", ".join(record.get("inputs", [])) or str(corpus_dir)
    reason = empty_reason(Counter(record.get("statistics", {})), skipped_kept=False)
    first = _first_skipped(Path(corpus_dir))
    if first:
        record_name = first["record"] if first["record"] not in ("", Path(first["file"]).stem) else ""
        where = f"{Path(first['file']).name}{f' ({record_name})' if record_name else ''}"
        reason += f"; {where}: {first['detail'] or first['reason']}"
    return f"{inputs}: no article read ({reason})"


def _first_skipped(corpus_dir: Path) -> dict | None:
    for path in sorted((corpus_dir / "skipped").glob("*.parquet")):
        rows = pq.read_table(path).slice(0, 1).to_pylist()
        if rows:
            return rows[0]
    return None


def empty_reason(stats: Counter, skipped_kept: bool = True) -> str:
    """Why a build has no articles, from its statistics (one sentence without a final period); ``skipped_kept``:
    the corpus and its ``skipped`` config stay, for the reader to look at."""
    skipped = {key.split(":", 1)[1]: count for key, count in stats.items() if key.startswith("skipped:") and count}
    redirects = stats.get("redirects", 0)
    if not skipped and not redirects:
        return "the inputs held no pages at all"
    parts = [f"{count:,} {reason}" for reason, count in sorted(skipped.items(), key=lambda item: -item[1])]
    if redirects:
        parts.insert(0, f"{redirects:,} redirects")
    hint = ""
    if "unknown-format" in skipped:
        hint = " (pass --format to read files no reader recognised)"
    elif "malformed-xml" in skipped or "truncated-file" in skipped:
        hint = " (the input ends or breaks before its first article" + (
            "; see the skipped config)" if skipped_kept else ")"
        )
    return "no page became an article: " + ", ".join(parts) + hint
