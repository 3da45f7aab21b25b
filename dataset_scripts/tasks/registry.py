"""The four tasks by name: their samplers, columns, Parquet features and skip reasons."""

from __future__ import annotations

from collections.abc import Callable

import datasets

from . import ati, ltm, rwi, srr

ALL_TASKS = ("srr", "rwi", "ati", "ltm")
ARTICLE_SAMPLERS: dict[str, Callable] = {"srr": srr.srr_groups, "rwi": rwi.rwi_groups, "ati": ati.ati_groups}
"""Tasks sampled article by article (LTM needs the whole corpus, see :mod:`.ltm`)."""

SKIP_REASONS = {
    "srr": srr.SKIP_REASONS,
    "rwi": rwi.SKIP_REASONS,
    "ati": ati.SKIP_REASONS,
    "ltm": ltm.SKIP_REASONS,
}

_TEXT = datasets.Value("string")
_TEXTS = datasets.List(datasets.Value("string"))
FEATURES = {
    "srr": datasets.Features(
        {"query": _TEXT, "positive": _TEXT, "negatives": _TEXTS, "article_id": _TEXT, "title": _TEXT, "path": _TEXTS}
    ),
    "rwi": datasets.Features(
        {"document": _TEXT, "positive": _TEXT, "negatives": _TEXTS, "article_id": _TEXT, "title": _TEXT, "path": _TEXTS}
    ),
    "ati": datasets.Features(
        {"query": _TEXT, "positive": _TEXT, "negatives": _TEXTS, "article_id": _TEXT, "title": _TEXT}
    ),
    "ltm": datasets.Features(
        {
            "query": _TEXT,
            "positive": _TEXT,
            "negatives": _TEXTS,
            "article_id": _TEXT,
            "title": _TEXT,
            "positive_id": _TEXT,
            "positive_title": _TEXT,
            "negative_titles": _TEXTS,
        }
    ),
}
"""Hugging Face features of each task's Parquet shards (column order as in the DESIGN.md table)."""

FIXED_SIDE = {"srr": "query", "rwi": "document", "ati": "query", "ltm": "query"}
"""The column every candidate (``positive`` and each of ``negatives``) is paired with."""


def parse_tasks(spec: str) -> tuple[str, ...]:
    """``"srr,ltm"`` -> ``("srr", "ltm")`` in the canonical order; unknown names raise ``ValueError``."""
    names = {name.strip().lower() for name in spec.split(",") if name.strip()}
    unknown = names - set(ALL_TASKS)
    if unknown or not names:
        raise ValueError(f"unknown task(s) {sorted(unknown) or spec!r}; choose from {','.join(ALL_TASKS)}")
    return tuple(t for t in ALL_TASKS if t in names)
