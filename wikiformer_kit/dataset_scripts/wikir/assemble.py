"""From the extraction of the whole corpus to the collection: title resolution (redirects followed), judgments,
the minimum number of linking documents, and the seeded train/validation/test split."""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.corpus.titles import normalize_title
from wikiformer_kit.dataset_scripts.wikir.extract import EXTRACT_SCHEMA
from wikiformer_kit.dataset_scripts.wikir.options import WikirOptions

logger = logging.getLogger(__name__)

MAX_REDIRECT_HOPS = 5
SPLITS = ("train", "validation", "test")
SKIP_DUPLICATE = "duplicate title"


@dataclass
class Collection:
    """A built WIKIR collection in memory.

    Args:
        documents: document id -> cleaned text, in corpus order.
        titles: document id -> article title.
        queries: query id -> cleaned text (a query's id is its article's id), in corpus order.
        qrels: query id -> document id -> grade (2: the query's own article, 1: an article linking to it).
        splits: split name -> query ids, in shuffled order.
        stats: counted skips and link statistics.
    """

    documents: dict[str, str]
    titles: dict[str, str]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    splits: dict[str, list[str]]
    stats: Counter = field(default_factory=Counter)


def read_redirects(files: Sequence[Path]) -> tuple[pa.Array, pa.Array]:
    """The corpus redirects as two aligned arrays of normalised titles (source, target)."""
    if not files:
        return pa.array([], pa.string()), pa.array([], pa.string())
    table = pa.concat_tables([pq.read_table(f, columns=["source", "target"]) for f in files])
    sources = [normalize_title(s) for s in table.column("source").to_pylist()]
    targets = [normalize_title(t) for t in table.column("target").to_pylist()]
    return pa.array(sources, pa.string()), pa.array(targets, pa.string())


def resolve(targets: pa.Array, keys: pa.Array, redirects: tuple[pa.Array, pa.Array], stats: Counter) -> np.ndarray:
    """Rows of ``keys`` that ``targets`` name, following up to 5 redirects (-1: no such document).

    ``stats`` counts ``links to documents``, ``links through redirects`` and ``links to missing pages`` (a page
    absent from the corpus, or left out of the collection: too short, a disambiguation page).
    """
    rows = pc.index_in(targets, value_set=keys).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    stats["links to documents"] += int((rows >= 0).sum())
    current = targets
    sources, destinations = redirects
    pending = np.flatnonzero(rows < 0)
    for _ in range(MAX_REDIRECT_HOPS):
        if len(pending) == 0 or len(sources) == 0:
            break
        hop = pc.index_in(current.take(pa.array(pending)), value_set=sources)
        followed = pending[hop.is_valid().to_numpy(zero_copy_only=False)]
        if len(followed) == 0:
            break
        next_titles = destinations.take(hop.drop_null())
        found = pc.index_in(next_titles, value_set=keys)
        valid = found.is_valid().to_numpy(zero_copy_only=False)
        rows[followed[valid]] = found.drop_null().to_numpy()
        stats["links through redirects"] += int(valid.sum())
        titles = current.to_pylist()
        for position, title in zip(followed.tolist(), next_titles.to_pylist(), strict=True):
            titles[position] = title
        current = pa.array(titles, pa.string())
        pending = followed[~valid]
    stats["links to missing pages"] += int((rows < 0).sum())
    return rows


SKIP_NOT_SAMPLED = "not in the random sample of articles"


def assemble(
    extraction: pa.Table,
    redirects: tuple[pa.Array, pa.Array],
    options: WikirOptions,
    random_sample: int | None = None,
) -> Collection:
    """Build the collection from the extraction rows of the whole corpus (:data:`EXTRACT_SCHEMA`, corpus order).

    Documents are the articles without a skip reason; a title met again (same normalised title) is a counted
    skip and its article stays out. Article B is a query when at least ``min_links`` other documents link to it:
    B gets grade 2 for its own article and 1 for each linking document. Query ids, in corpus order, are shuffled
    with ``random.Random(seed)`` (the original's ``random.seed(seed); random.shuffle``): the first
    ``validation_size`` are the validation split, the next ``test_size`` the test split, the rest training.

    ``random_sample``: keep only that many documents, drawn at random (``random.Random(seed)``) among the articles
    that qualify, as the original's ``-m`` does (its ``random.sample`` after the length filter); the others are
    counted as not sampled.
    """
    stats: Counter = Counter()
    extraction = extraction.select(EXTRACT_SCHEMA.names)
    skips = extraction.column("skip").to_pylist()
    keys = extraction.column("key").to_pylist()
    seen: set[str] = set()
    duplicates = 0
    for row, (skip, key) in enumerate(zip(skips, keys, strict=True)):
        if skip:
            continue
        if key in seen:
            skips[row], duplicates = SKIP_DUPLICATE, duplicates + 1
            if duplicates <= 3:
                article = extraction.column("id")[row].as_py()
                logger.warning("WIKIR: title %r appears again (article id %s); the first one is kept", key, article)
        seen.add(key)
    if random_sample is not None:
        candidates = [row for row, skip in enumerate(skips) if not skip]
        chosen = set(random.Random(options.seed).sample(candidates, min(random_sample, len(candidates))))
        for row in candidates:
            if row not in chosen:
                skips[row] = SKIP_NOT_SAMPLED
    stats.update(f"skipped: {skip}" for skip in skips if skip)
    kept = np.flatnonzero(np.array([not s for s in skips], dtype=bool))
    table = extraction.take(pa.array(kept, pa.int64()))
    ids = table.column("id").to_pylist()
    stats["articles read"] = extraction.num_rows
    stats["documents"] = len(ids)

    # who links to whom: every (target row, source row) pair once, a self-link dropped
    targets = table.column("targets")
    flat = pc.list_flatten(targets).combine_chunks() if table.num_rows else pa.array([], pa.string())
    lengths = pc.list_value_length(targets).to_numpy(zero_copy_only=False) if table.num_rows else np.array([])
    source_rows = np.repeat(np.arange(table.num_rows, dtype=np.int64), lengths.astype(np.int64))
    target_rows = resolve(flat, table.column("key").combine_chunks(), redirects, stats)
    linked = (target_rows >= 0) & (target_rows != source_rows)
    stats["self links"] += int(((target_rows >= 0) & (target_rows == source_rows)).sum())
    width = max(1, table.num_rows)
    pairs = np.unique(target_rows[linked] * width + source_rows[linked])
    by_target: dict[int, list[int]] = {}
    for target, source in zip((pairs // width).tolist(), (pairs % width).tolist(), strict=True):
        by_target.setdefault(target, []).append(source)

    query_texts = table.column("query").to_pylist()
    queries, qrels = {}, {}
    for target in sorted(by_target):
        sources = by_target[target]
        if len(sources) < options.min_links:
            stats["candidate queries with too few linking documents"] += 1
            continue
        if not query_texts[target]:
            stats["candidate queries with an empty query text"] += 1
            continue
        qid = ids[target]
        queries[qid] = query_texts[target]
        qrels[qid] = {qid: 2, **{ids[s]: 1 for s in sources}}
    stats["queries"] = len(queries)
    stats["judgments"] = sum(len(j) for j in qrels.values())

    order = list(queries)
    random.Random(options.seed).shuffle(order)
    validation_end = options.validation_size
    test_end = validation_end + options.test_size
    splits = {"validation": order[:validation_end], "test": order[validation_end:test_end], "train": order[test_end:]}
    return Collection(
        documents=dict(zip(ids, table.column("document").to_pylist(), strict=True)),
        titles=dict(zip(ids, table.column("title").to_pylist(), strict=True)),
        queries=queries,
        qrels=qrels,
        splits={name: splits[name] for name in SPLITS},
        stats=stats,
    )
