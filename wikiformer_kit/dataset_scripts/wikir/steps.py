"""The datatrove steps of a WIKIR build and where they write.

Stage 1 (:class:`ExtractStep`, one task per process) turns each unit of the corpus into extraction rows
(document, query, counted link targets) in ``<root>/.build/extract/``; stage 2 (:class:`AssembleStep`, one task)
reads them all in unit order, resolves the links over the whole corpus, judges, splits, runs BM25 and writes the
collection. Units depend only on the corpus, so the output is the same whatever the number of processes; a unit
with its marker is not extracted again, so an interrupted build resumes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from datatrove.pipeline.base import PipelineStep
from tqdm.auto import tqdm

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit, read_unit
from wikiformer_kit.dataset_scripts.wikir.assemble import SPLITS, assemble, read_redirects
from wikiformer_kit.dataset_scripts.wikir.card import write_card
from wikiformer_kit.dataset_scripts.wikir.export import export
from wikiformer_kit.dataset_scripts.wikir.extract import EXTRACT_SCHEMA, WIKIR_COLUMNS, extract
from wikiformer_kit.dataset_scripts.wikir.options import WikirOptions
from wikiformer_kit.dataset_scripts.wikir.output import (
    bm25_run,
    split_figures,
    training_rows,
    write_dataset,
    write_trec_folders,
)


@dataclass(frozen=True)
class WikirLayout:
    """Where a WIKIR build writes: the collection in ``root``, work files in ``root/.build``."""

    root: Path

    @property
    def work(self) -> Path:
        """Markers, extraction shards, logs, the build record."""
        return self.root / ".build"

    def extraction(self, unit: int) -> Path:
        """A unit's extraction rows (Parquet)."""
        return self.work / "extract" / f"{unit:05d}.parquet"

    def marker(self, unit: int) -> Path:
        """A unit's marker (its link statistics); present once the unit is done."""
        return self.work / "extract" / f"{unit:05d}.json"

    def logs(self, stage: str, world_size: int) -> Path:
        """datatrove's logging folder of a stage."""
        return self.work / "logs" / f"{stage}-w{world_size}"


def extract_unit(unit: Unit, options: WikirOptions) -> tuple[pa.Table, Counter]:
    """The extraction rows of one unit and its link statistics."""
    counts: Counter = Counter()
    rows = [extract(article, options, counts) for article in read_unit(unit, WIKIR_COLUMNS)]
    return pa.Table.from_pylist(rows, schema=EXTRACT_SCHEMA), counts


class ExtractStep(PipelineStep):
    """Stage 1: extraction rows for this rank's units (``units[rank::world_size]``) not done yet."""

    name = "WIKIR extraction"
    type = "WIKIR"

    def __init__(self, root: Path, units: Sequence[Unit], options: WikirOptions):
        super().__init__()
        self.layout, self.units, self.options = WikirLayout(Path(root)), list(units), options

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        """Extract this rank's units."""
        todo = [
            u
            for u in self.units[rank::world_size]
            if not (self.layout.marker(u.number).exists() and self.layout.extraction(u.number).exists())
        ]
        with tqdm(total=sum(u.stop - u.start for u in todo), desc=f"WIKIR (rank {rank})", unit="art") as bar:
            for unit in todo:
                table, counts = extract_unit(unit, self.options)
                atomic_write(self.layout.extraction(unit.number), lambda tmp, table=table: pq.write_table(table, tmp))
                marker = json.dumps({"articles": table.num_rows, **counts}, sort_keys=True)
                atomic_write(
                    self.layout.marker(unit.number), lambda tmp, text=marker: tmp.write_text(text, encoding="utf-8")
                )
                self.stat_update("articles", value=table.num_rows)
                bar.update(unit.stop - unit.start)
        if data:
            yield from data


class AssembleStep(PipelineStep):
    """Stage 2 (rank 0 only): the collection from all extraction shards; see :func:`assemble_outputs`."""

    name = "WIKIR judgments, splits, BM25, outputs"
    type = "WIKIR"

    def __init__(self, root: Path, units: Sequence[Unit], redirect_files: Sequence[Path], info: dict[str, Any]):
        super().__init__()
        self.root, self.units, self.redirect_files, self.info = Path(root), list(units), list(redirect_files), info

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        """Write the collection (only rank 0 does anything)."""
        if rank == 0:
            assemble_outputs(self.root, self.units, self.redirect_files, self.info)
        if data:
            yield from data


def assemble_outputs(root: Path, units: Sequence[Unit], redirect_files: Sequence[Path], info: dict[str, Any]) -> None:
    """Stage 2 of the build: judgments, splits, BM25 and every output file, and ``.build/summary.json``."""
    layout = WikirLayout(Path(root))
    options = WikirOptions(**info["options"])
    shards = [pq.read_table(layout.extraction(u.number)) for u in units]
    extraction = pa.concat_tables(shards) if shards else EXTRACT_SCHEMA.empty_table()
    collection = assemble(extraction, read_redirects(redirect_files), options, info.get("random_sample"))
    for unit in units:
        marker = json.loads(layout.marker(unit.number).read_text("utf-8"))
        marker.pop("articles", None)
        collection.stats.update(Counter(marker))
    run = bm25_run(collection, options, info["language"])
    figures = split_figures(collection, run)
    triples, without = training_rows(collection, run, options.train_negatives)
    if without:
        collection.stats["training queries without a BM25 negative"] = without
    parts, fingerprint = write_dataset(layout.root, collection, triples)
    written = write_trec_folders(layout.root, collection, run, figures, _slug(info["name"]))
    for fmt in info.get("export", []):
        export(collection, layout.root / "original", fmt)
    bm25 = options.bm25_language(info["language"])
    write_card(
        layout.root,
        collection,
        figures,
        {**info, "bm25": bm25, "parts": parts, "fingerprint": fingerprint, "triples": {"rows": len(triples)}},
    )
    summary = {
        "language": info["language"],
        "documents": len(collection.documents),
        "queries": {split: len(collection.splits[split]) for split in SPLITS},
        "judgments": {split: sum(len(collection.qrels[q]) for q in collection.splits[split]) for split in SPLITS},
        "triples": len(triples),
        "trec_folders": written,
        "bm25": figures,
        "stats": dict(sorted(collection.stats.items())),
    }
    (layout.work / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")


def _slug(name: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split()) or "wikir"
