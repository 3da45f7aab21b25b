"""A mining run from a source to an output folder: shards of queries (or triples partitions) written one at a
time, a rerun resuming at the first unwritten one, then the statistics and the dataset card."""

from __future__ import annotations

import logging
import math
from pathlib import Path

from wikiformer_kit.dataset_scripts.file_states import file_states
from wikiformer_kit.dataset_scripts.finetune.card import write_card
from wikiformer_kit.dataset_scripts.finetune.false_negatives import FalseNegativeFilter
from wikiformer_kit.dataset_scripts.finetune.mine import CandidateSource, mine_queries
from wikiformer_kit.dataset_scripts.finetune.options import MiningOptions
from wikiformer_kit.dataset_scripts.finetune.output import ShardedOutput
from wikiformer_kit.dataset_scripts.finetune.sources import Source
from wikiformer_kit.dataset_scripts.finetune.triples import group_partition, partition, partition_count
from wikiformer_kit.eval.splits import split_spec

logger = logging.getLogger(__name__)


def recorded_source(source: Source) -> tuple[str, dict[str, list[int]]]:
    """The source as a path that is the same from any working directory (a resumed run must name the same one), and
    the size and time of every local file it reads (none for a Hub id or an ``irds:`` collection)."""
    if source.triples is not None:
        return f"triples:{source.triples.resolve()}", file_states([source.triples])
    base, part = split_spec(source.spec)
    prefix, colon, path = base.partition(":")
    if colon and not Path(base).exists():  # FORMAT:PATH
        prefix += ":"
    else:
        prefix, path = "", base
    resolved = str(Path(path).resolve()) if Path(path).exists() else path
    return prefix + resolved + (f"#{part}" if part else ""), file_states([path])


def build_groups(
    source: Source,
    output_dir: Path,
    options: MiningOptions,
    *,
    overwrite: bool = False,
    info: dict | None = None,
    false_negatives: FalseNegativeFilter | None = None,
) -> dict:
    """Mine (or group) every shard not written yet, then write ``mining_stats.json`` and the card.

    Args:
        source: the loaded ``--collection``.
        output_dir: the output folder (see `dataset_scripts.finetune.output`).
        overwrite: start again where the folder holds a run with other inputs or options.
        info: card extras: ``command`` (how it was built), ``repo_id`` (how users load it), ``license``.
        false_negatives: the filter to use (default: built from ``options.filter_model`` when it is set).

    Returns the public statistics (what ``mining_stats.json`` holds).

    Raises:
        ValueError: the collection has no judged query with a text, or no group came out.
        output.RunMismatchError: the folder holds another run (and not ``overwrite``).
    """
    output_dir = Path(output_dir)
    if source.triples is not None:
        shards = partition_count(source.triples)
    else:
        query_ids = source.collection.judged_query_ids()
        if not query_ids:
            raise ValueError(f"{source.spec}: no judged query with a text; nothing to mine")
        shards = math.ceil(len(query_ids) / options.shard_queries)
    recorded, inputs = recorded_source(source)
    record = {
        "source": recorded,
        "inputs": inputs,
        "options": options.to_dict(),
        "shards": shards,
    }
    if source.collection is not None:
        record["relevance_level"] = source.collection.relevance_level
    output = ShardedOutput(output_dir, record, shards, overwrite)
    pending = output.pending()
    if pending and false_negatives is None and options.filter_model:
        false_negatives = FalseNegativeFilter(
            options.filter_model, options.absolute_margin, options.relative_margin, options.filter_max_length
        )
    if source.triples is not None:
        _group_triples(source, output, pending, options, false_negatives)
    elif pending:
        candidates = CandidateSource(source.collection, options)
        for index in pending:
            ids = query_ids[index * options.shard_queries : (index + 1) * options.shard_queries]
            shard = mine_queries(source.collection, ids, candidates.run(ids), options, false_negatives)
            output.write(index, [group.row() for group in shard.groups], shard.counts)
            logger.info("shard %d/%d: %d groups from %d queries", index + 1, shards, len(shard.groups), len(ids))
    statistics = output.statistics()
    public = {
        "source": source.name,
        "kind": "triples" if source.triples is not None else "collection",
        "part": source.part,
        "relevance_level": record.get("relevance_level"),
        "options": _public_options(options, source),
        "statistics": statistics,
    }
    output.write_stats(public)
    if not statistics["counts"].get("groups"):
        raise ValueError(f"{source.spec}: no group came out (left out: {statistics['counts']})")
    write_card(output_dir, public, info or {})
    return public


def _public_options(options: MiningOptions, source: Source) -> dict:
    shown = options.to_dict()
    if source.triples is not None:  # the first stage is MS MARCO's own (BM25 negatives in the file)
        for key in ("first_stage", "depth", "min_rank", "max_rank", "k1", "b", "stemmer", "stopwords", "shard_queries"):
            shown.pop(key)
    elif Path(options.first_stage).exists():
        shown["first_stage"] = Path(options.first_stage).name  # a run file: its name, not a local path
    if options.filter_model and Path(options.filter_model).exists():
        shown["filter_model"] = Path(options.filter_model).name
    return shown


def _group_triples(
    source: Source,
    output: ShardedOutput,
    pending: list[int],
    options: MiningOptions,
    false_negatives: FalseNegativeFilter | None,
) -> None:
    if not pending:
        return
    folder = output.work / "triples"
    read = partition(source.triples, folder, output.shards)
    for index in pending:
        shard = group_partition(folder / f"part-{index:05d}.tsv", options, false_negatives)
        if index == 0:  # the file's counts once, with the first shard
            shard.counts.update(read)
        output.write(index, [group.row() for group in shard.groups], shard.counts)
        logger.info("shard %d/%d: %d groups", index + 1, output.shards, len(shard.groups))
    if not output.pending():
        for part in folder.glob("part-*.tsv"):
            part.unlink()
