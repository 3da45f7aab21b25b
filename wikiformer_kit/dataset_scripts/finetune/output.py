"""The output folder of a mining run: Parquet shards written whole or not at all, a record of the run that a
resumed run must match, per-shard statistics (the marker that a shard is done) and their sum.

Layout::

    OUT/README.md                              the dataset card
    OUT/data/train-00000-of-00004.parquet      groups: query, positive, negatives, query_id, positive_id, negative_ids
    OUT/mining_stats.json                      the run's options, source and statistics
    OUT/.work/run.json, .work/shard-*.json     the resume record and the finished shards (not published)
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write, clear_partial
from wikiformer_kit.dataset_scripts.file_states import changed_files

TEXT, TEXTS = datasets.Value("string"), datasets.List(datasets.Value("string"))
FEATURES = datasets.Features(
    {"query": TEXT, "positive": TEXT, "negatives": TEXTS, "query_id": TEXT, "positive_id": TEXT, "negative_ids": TEXTS}
)
"""The columns of a group: the kit's ``query, positive, negatives`` (what ``train.py`` reads), then the ids."""
STATS_FILE = "mining_stats.json"
WORK = ".work"


class RunMismatchError(ValueError):
    """The output folder holds a run with other inputs or options."""


def _summary(values: Iterable[int]) -> dict[str, int]:
    values = list(values)
    return {"count": len(values), "total": sum(values), "min": min(values, default=0), "max": max(values, default=0)}


def _merge(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    if not (a.get("count") and b.get("count")):
        return dict(a if a.get("count") else b)
    return {
        "count": a["count"] + b["count"],
        "total": a["total"] + b["total"],
        "min": min(a["min"], b["min"]),
        "max": max(a["max"], b["max"]),
    }


def shard_statistics(rows: list[dict], counts: Counter) -> dict:
    """What one shard holds: counts by reason, negatives per group, words per text of each column."""
    return {
        "counts": dict(counts),
        "negatives per group": _summary(len(r["negatives"]) for r in rows),
        "words": {
            "query": _summary(len(r["query"].split()) for r in rows),
            "positive": _summary(len(r["positive"].split()) for r in rows),
            "negatives": _summary(len(n.split()) for r in rows for n in r["negatives"]),
        },
    }


def merge_statistics(shards: Iterable[dict]) -> dict:
    """The sum of shard statistics."""
    counts: Counter = Counter()
    negatives: dict[str, int] = {}
    words: dict[str, dict[str, int]] = {}
    for shard in shards:
        counts.update(shard["counts"])
        negatives = _merge(negatives, shard["negatives per group"])
        for column, summary in shard["words"].items():
            words[column] = _merge(words.get(column, {}), summary)
    return {"counts": dict(sorted(counts.items())), "negatives per group": negatives, "words": words}


class ShardedOutput:
    """The output folder of one run.

    Args:
        folder: the output folder.
        record: what the run is (source, options, number of shards); a folder holding another record is refused
            unless ``overwrite``.
        shards: the number of shards.
        overwrite: start again in a folder that holds another run (its groups are deleted).

    Raises:
        RunMismatchError: the folder holds another run and ``overwrite`` is not set.
    """

    def __init__(self, folder: Path, record: dict, shards: int, overwrite: bool = False):
        self.folder, self.shards = Path(folder), shards
        self.work = self.folder / WORK
        run_file = self.work / "run.json"
        if run_file.exists():
            previous = json.loads(run_file.read_text(encoding="utf-8"))
            if previous != record:
                if not overwrite:
                    changed = sorted(k for k in set(previous) | set(record) if previous.get(k) != record.get(k))
                    if "inputs" in changed:  # name the files
                        changed[changed.index("inputs")] = (
                            "inputs ("
                            + "; ".join(changed_files(previous.get("inputs", {}), record["inputs"]) or ["not recorded"])
                            + ")"
                        )
                    raise RunMismatchError(
                        f"{self.folder} holds a mining run with other {', '.join(changed)}; rerun with the same "
                        "command to resume it, or give --overwrite (or another --output-dir) to start again"
                    )
                shutil.rmtree(self.work)
                shutil.rmtree(self.folder / "data", ignore_errors=True)
        self.work.mkdir(parents=True, exist_ok=True)
        atomic_write(run_file, lambda tmp: tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n"))
        clear_partial([self.shard_path(i) for i in range(shards)] + [self._stats_path(i) for i in range(shards)])

    def shard_path(self, index: int) -> Path:
        """The Parquet file of shard ``index``."""
        return self.folder / "data" / f"train-{index:05d}-of-{self.shards:05d}.parquet"

    def _stats_path(self, index: int) -> Path:
        return self.work / f"shard-{index:05d}.json"

    def pending(self) -> list[int]:
        """The shards not written yet (a shard is done when its statistics are written, after its Parquet)."""
        return [i for i in range(self.shards) if not self._stats_path(i).exists()]

    def write(self, index: int, rows: list[dict], counts: Counter) -> dict:
        """Write shard ``index`` (no Parquet file for a shard without groups) and its statistics; returns them."""
        if rows:
            table = pa.Table.from_pylist(rows, schema=FEATURES.arrow_schema)
            atomic_write(self.shard_path(index), lambda tmp: pq.write_table(table, tmp))
        stats = shard_statistics(rows, counts)
        path = self._stats_path(index)
        atomic_write(path, lambda tmp: tmp.write_text(json.dumps(stats, sort_keys=True) + "\n", encoding="utf-8"))
        return stats

    def statistics(self) -> dict:
        """The statistics of all finished shards, summed."""
        return merge_statistics(
            json.loads(self._stats_path(i).read_text(encoding="utf-8"))
            for i in range(self.shards)
            if self._stats_path(i).exists()
        )

    def write_stats(self, public: dict) -> Path:
        """Write ``mining_stats.json`` (published with the data)."""
        path = self.folder / STATS_FILE
        atomic_write(path, lambda tmp: tmp.write_text(json.dumps(public, indent=1) + "\n", encoding="utf-8"))
        return path


def mined_from(folder: str | Path) -> str | None:
    """The collection (with its query part) a local folder of groups was mined from, or None (not such a folder)."""
    run_file = Path(folder) / WORK / "run.json"
    if not run_file.is_file():
        return None
    source = json.loads(run_file.read_text(encoding="utf-8")).get("source")
    return None if not source or source.startswith("triples:") else source
