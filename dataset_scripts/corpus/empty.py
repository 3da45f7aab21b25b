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


def empty_reason(stats: Counter) -> str:
    """Why a build has no articles, from its statistics (one sentence without a final period)."""
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
        hint = " (the input ends or breaks before its first article; see the skipped config)"
    return "no page became an article: " + ", ".join(parts) + hint
