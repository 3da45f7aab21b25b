"""What a built corpus folder holds, read without loading the readers: whether a folder is one, the record of
its build (``build_stats.json``: input names, options, statistics) and its language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BUILD_RECORD = "build_stats.json"


def is_corpus_dir(path: str | Path) -> bool:
    """Whether ``path`` is a built corpus folder (``data/*.parquet``)."""
    path = Path(path)
    return path.is_dir() and any((path / "data").glob("*.parquet"))


def read_build_record(corpus_dir: str | Path) -> dict[str, Any] | None:
    """What a corpus build recorded in ``build_stats.json``: ``inputs`` (file names), ``formats`` (format names;
    absent in corpora built before it was recorded), ``options`` (``CorpusOptions``; its reader ``language``: the
    languages the inputs named, most articles first), ``languages`` (articles per language), ``shards`` (how many
    tasks read the inputs; absent in older corpora) and ``statistics``; ``None`` for a folder without it (a corpus
    built elsewhere)."""
    path = Path(corpus_dir) / BUILD_RECORD
    return json.loads(path.read_text("utf-8")) if path.exists() else None


def corpus_language(data_file: str | Path) -> str:
    """The language a corpus records for its first article (``""`` when it names none)."""
    import pyarrow.parquet as pq  # here: the command lines read build records without loading pyarrow

    batch = next(pq.ParquetFile(data_file).iter_batches(batch_size=1, columns=["language"]), None)
    return (batch.column(0)[0].as_py() if batch is not None and batch.num_rows else "") or ""


def corpus_languages(corpus_dir: str | Path) -> dict[str, int]:
    """Articles per language code over the corpus's data files, most frequent first (``{}`` when none)."""
    import pyarrow.parquet as pq

    counts: dict[str, int] = {}
    for data_file in sorted((Path(corpus_dir) / "data").glob("*.parquet")):
        for row in pq.read_table(data_file, columns=["language"]).column(0).value_counts().to_pylist():
            counts[row["values"] or ""] = counts.get(row["values"] or "", 0) + row["counts"]
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
