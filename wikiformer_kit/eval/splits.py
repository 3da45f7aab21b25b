"""Parts of one collection's queries, so that a checkpoint or a fusion is chosen, and a model fine-tuned, on queries
the reported figures never see: ``--collection PATH#dev``, ``PATH#test``, ``PATH#train``, ``PATH#heldout``.

A query's part follows from the SHA-1 of its id read as an integer, ``h``: ``dev`` when ``h % 3 == 0`` (about a
third of the queries), else ``test``. Fine-tuning splits ``test`` in two: ``train`` (``h % 3 == 1``) and ``heldout``
(``h % 3 == 2``). So the zero-shot setting selects on ``#dev`` and reports ``#test``; the fine-tuned setting trains on
``#train``, selects on the same ``#dev`` and reports ``#heldout``; no query is in two of ``train``, ``dev`` and
``heldout``. The split depends only on the ids, never on the file order or on other queries.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from wikiformer_kit.eval.collections import Collection, load_collection

PARTS = ("dev", "test", "train", "heldout")
DEV_SHARE = 3
"""One query in ``DEV_SHARE`` goes to dev."""
TEST_PARTS = ("train", "heldout")
"""The fine-tuning parts ``test`` is made of (``h % 3 == 1`` and ``h % 3 == 2``)."""


def _residue(query_id: str) -> int:
    return int(hashlib.sha1(query_id.encode("utf-8")).hexdigest(), 16) % DEV_SHARE


def query_part(query_id: str) -> str:
    """``dev`` or ``test``: where a query id falls in the zero-shot split."""
    return "dev" if _residue(query_id) == 0 else "test"


def fine_tuning_part(query_id: str) -> str:
    """``train``, ``dev`` or ``heldout``: where a query id falls in the fine-tuning split."""
    return ("dev", *TEST_PARTS)[_residue(query_id)]


def in_part(query_id: str, part: str) -> bool:
    """Whether a query id belongs to ``part`` (one of `PARTS`)."""
    return query_part(query_id) == part if part in ("dev", "test") else fine_tuning_part(query_id) == part


def split_spec(spec: str) -> tuple[str, str | None]:
    """``PATH#dev`` → ``(PATH, "dev")``; a spec without a part → ``(spec, None)``."""
    base, hash_sign, part = spec.rpartition("#")
    if not hash_sign or part not in PARTS:
        if hash_sign and "/" not in part:
            raise ValueError(f"collection {spec!r}: unknown query part {part!r}; use #{', #'.join(PARTS)}")
        return spec, None
    return base, part


def select_part(collection: Collection, part: str) -> Collection:
    """A copy of ``collection`` with only the queries (and their qrels and run rows) of ``part``."""
    if part not in PARTS:
        raise ValueError(f"unknown query part {part!r}; use one of {PARTS}")
    keep = {qid for qid in set(collection.queries) | set(collection.qrels) if in_part(qid, part)}
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
    """Whether two specs name overlapping queries: the same collection with the same part, with no part, or with
    ``test`` and one of its fine-tuning parts (``train``, ``heldout``)."""
    (base_a, part_a), (base_b, part_b) = split_spec(spec_a), split_spec(spec_b)
    same = Path(base_a).resolve() == Path(base_b).resolve() if Path(base_a).exists() else base_a == base_b
    return same and parts_overlap(part_a, part_b)


def parts_overlap(part_a: str | None, part_b: str | None) -> bool:
    """Whether two parts (None: the whole collection) share queries."""
    if part_a is None or part_b is None or part_a == part_b:
        return True
    return {part_a, part_b} in ({"test", "train"}, {"test", "heldout"})
