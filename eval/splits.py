"""Dev and test halves of one collection's queries, so that a checkpoint or a fusion can be chosen on queries the
reported figures never see: ``--collection PATH#dev`` and ``--collection PATH#test``.

A query belongs to ``dev`` when the SHA-1 of its id, read as an integer, is divisible by 3 (about a third of the
queries), else to ``test``; the split depends only on the ids, never on the file order or on other queries.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .collections import Collection, load_collection

PARTS = ("dev", "test")
DEV_SHARE = 3
"""One query in ``DEV_SHARE`` goes to dev."""


def query_part(query_id: str) -> str:
    """``dev`` or ``test``: where a query id falls."""
    return "dev" if int(hashlib.sha1(query_id.encode("utf-8")).hexdigest(), 16) % DEV_SHARE == 0 else "test"


def split_spec(spec: str) -> tuple[str, str | None]:
    """``PATH#dev`` → ``(PATH, "dev")``; a spec without a part → ``(spec, None)``."""
    base, hash_sign, part = spec.rpartition("#")
    if not hash_sign or part not in PARTS:
        if hash_sign and "/" not in part:
            raise ValueError(f"collection {spec!r}: unknown query part {part!r}; use #dev or #test")
        return spec, None
    return base, part


def select_part(collection: Collection, part: str) -> Collection:
    """A copy of ``collection`` with only the queries (and their qrels and run rows) of ``part``."""
    if part not in PARTS:
        raise ValueError(f"unknown query part {part!r}; use one of {PARTS}")
    keep = {qid for qid in set(collection.queries) | set(collection.qrels) if query_part(qid) == part}
    return Collection(
        name=f"{collection.name}-{part}",
        documents=collection.documents,
        queries={q: t for q, t in collection.queries.items() if q in keep},
        qrels={q: j for q, j in collection.qrels.items() if q in keep},
        runs={name: {q: r for q, r in run.items() if q in keep} for name, run in collection.runs.items()},
        relevance_level=collection.relevance_level,
    )


def load_collection_part(spec: str, relevance_level: int | None = None) -> Collection:
    """`eval.collections.load_collection`, plus the ``#dev``/``#test`` query parts (see the module docstring)."""
    base, part = split_spec(spec)
    collection = load_collection(base, relevance_level)
    return select_part(collection, part) if part else collection


def same_source(spec_a: str, spec_b: str) -> bool:
    """Whether two specs name overlapping queries: the same collection with the same part, or with no part."""
    (base_a, part_a), (base_b, part_b) = split_spec(spec_a), split_spec(spec_b)
    same = Path(base_a).resolve() == Path(base_b).resolve() if Path(base_a).exists() else base_a == base_b
    return same and (part_a is None or part_b is None or part_a == part_b)
