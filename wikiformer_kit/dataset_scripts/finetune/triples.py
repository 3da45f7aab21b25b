"""MS MARCO's triples TSV (``query<TAB>positive<TAB>negative``, one negative a line, lines in any order) grouped
into one group per (query, positive) with all its negatives, in bounded memory.

Pass 1 hashes each line's query into one of ``partitions`` files under ``.work/triples/`` (done once: a marker
records it), so that all lines of a query land in one partition; pass 2 groups one partition at a time, which is one
output shard (resumable like the mined shards). Groups keep the order in which their first line appears; negatives
keep their file order, duplicates and copies of the positive dropped, and ``num_negatives`` of them are kept as in
mining (``top``: the first ones; ``random``: a draw seeded by the seed, query and positive). Ids are the first 16 hex
digits of each text's SHA-1 (the file has none).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections import Counter
from pathlib import Path

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.dataset_scripts.finetune.false_negatives import FalseNegativeFilter
from wikiformer_kit.dataset_scripts.finetune.mine import Group, MinedShard, pick, stable_int
from wikiformer_kit.dataset_scripts.finetune.options import MiningOptions
from wikiformer_kit.eval.collections.textfile import open_text

logger = logging.getLogger(__name__)

PARTITION_BYTES = 256 * 1024 * 1024
"""About this much of the triples file goes to one partition (one shard, grouped in memory)."""


def text_id(text: str) -> str:
    """A text's id: the first 16 hex digits of its SHA-1."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def partition_count(path: Path) -> int:
    """Partitions for a triples file: one per `PARTITION_BYTES` of it (at least one)."""
    return max(1, math.ceil(path.stat().st_size / PARTITION_BYTES))


def partition(path: Path, folder: Path, partitions: int) -> Counter:
    """Pass 1: split ``path`` into ``folder/part-*.tsv`` by query (skipped when its marker says it was done);
    returns the counts of lines read and skipped."""
    marker = folder / "partitioned.json"
    if marker.exists():
        return Counter(json.loads(marker.read_text(encoding="utf-8")))
    folder.mkdir(parents=True, exist_ok=True)
    counts: Counter = Counter()
    outputs = [(folder / f"part-{i:05d}.tsv").open("w", encoding="utf-8") for i in range(partitions)]
    first_bad = None
    try:
        with open_text(path, errors="replace") as stream:
            for number, line in enumerate(stream, 1):
                fields = line.rstrip("\r\n").split("\t")
                counts["lines read"] += 1
                if len(fields) != 3 or not all(f.strip() for f in fields):
                    counts["line not query<TAB>positive<TAB>negative"] += 1
                    first_bad = first_bad or number
                    continue
                index = stable_int(fields[0]) % partitions
                outputs[index].write("\t".join(fields) + "\n")
    finally:
        for output in outputs:
            output.close()
    if first_bad:
        logger.warning(
            "%s: %d lines are not query<TAB>positive<TAB>negative and are skipped (e.g. line %d)",
            path,
            counts["line not query<TAB>positive<TAB>negative"],
            first_bad,
        )
    atomic_write(marker, lambda tmp: tmp.write_text(json.dumps(counts), encoding="utf-8"))
    return counts


def group_partition(
    part: Path, options: MiningOptions, false_negatives: FalseNegativeFilter | None = None
) -> MinedShard:
    """Pass 2 for one partition: its groups (see the module docstring)."""
    shard = MinedShard()
    counts = shard.counts
    grouped: dict[tuple[str, str], dict[str, None]] = {}
    with part.open(encoding="utf-8") as stream:
        for line in stream:
            query, positive, negative = line.rstrip("\n").split("\t")
            negatives = grouped.setdefault((query, positive), {})
            if negative == positive:
                counts["negative equal to its positive"] += 1
            elif negative in negatives:
                counts["duplicate negative"] += 1
            else:
                negatives[negative] = None
    items = [(query, positive, list(negatives)) for (query, positive), negatives in grouped.items()]
    dropped = false_negatives.too_close_texts(items) if false_negatives else [set()] * len(items)
    for (query, positive, negatives), drop in zip(items, dropped, strict=True):
        counts["candidate too close to the positive (cross-encoder)"] += len(drop)
        kept = [text for i, text in enumerate(negatives) if i not in drop]
        if not kept:
            counts["group with no negative left"] += 1
            continue
        qid, pid = text_id(query), text_id(positive)
        chosen = pick(kept, options, qid, pid)
        shard.groups.append(Group(query, positive, chosen, qid, pid, [text_id(n) for n in chosen]))
    counts["groups"] += len(shard.groups)
    shard.counts = +counts  # reasons that never occurred are not listed
    return shard
