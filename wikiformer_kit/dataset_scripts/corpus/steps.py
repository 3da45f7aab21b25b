"""The corpus build as a datatrove pipeline: read shards → extract Articles → write Parquet.

One datatrove task per shard (see :mod:`.sources`); ``num_proc`` tasks run at once on the
``LocalPipelineExecutor``, and the same steps run on datatrove's Slurm and Ray executors. A task's outputs
(``data/``, ``redirects/``, ``skipped/`` and ``stats/`` files named by its rank, and the keys of its articles under
``logs/article-keys/``) appear atomically when it finishes, and datatrove records finished tasks under ``logs/``, so
an interrupted build resumes where it stopped, without duplicates. Articles read twice from the input are taken out
once every task is done (:mod:`.duplicates`).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.base import PipelineStep
from tqdm.auto import tqdm

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write, clear_partial, partial_path
from wikiformer_kit.dataset_scripts.corpus.article import ARTICLE_SCHEMA, Article
from wikiformer_kit.dataset_scripts.corpus.extract import parse_page
from wikiformer_kit.dataset_scripts.corpus.formats.base import RawPage, ReaderOptions, Redirect, Skipped
from wikiformer_kit.dataset_scripts.corpus.reading import read_shard
from wikiformer_kit.dataset_scripts.corpus.sources import Shard

ROWS_PER_BATCH = 64  # an article row with its links is ~0.3 MB in Python: keep the buffer small
REDIRECT_SCHEMA = pa.schema([("source", pa.string()), ("target", pa.string())])
SKIPPED_SCHEMA = pa.schema([(name, pa.string()) for name in ("reason", "file", "record", "detail")])
KEY_SCHEMA = pa.schema(
    [("language", pa.string()), ("id", pa.string()), ("title", pa.string()), ("group", pa.int64()),
     ("position", pa.int64()), ("file", pa.string())]
)  # fmt: skip
"""What a task records of each article it writes, row for row with its ``data/`` file, for the build to find the
articles read twice (:mod:`.duplicates`): the page id and title (in its language), where it stands in the input
(``group``, ``position``: see :func:`input_group`) and its input file."""
TITLES_NOT_UNIQUE = frozenset({"msmarco-tsv"})
"""Formats whose titles are not names of their documents: web pages share titles ("Home", "Untitled"), so only
their ids must be unique."""


def keys_file(output_dir: Path, rank: int) -> Path:
    """Where task ``rank`` records its articles' keys (:data:`KEY_SCHEMA`): beside datatrove's logs, not a config of
    the dataset."""
    return output_dir / "logs" / "article-keys" / f"{rank:05d}.parquet"


def article_key(article: Article, group: int, position: int, file: str) -> dict:
    """An article's row of its task's keys file (:data:`KEY_SCHEMA`)."""
    title = "" if article.source in TITLES_NOT_UNIQUE else article.title
    return {"language": article.language, "id": article.id, "title": title, "group": group, "position": position,
            "file": file}  # fmt: skip


class ShardReader(PipelineStep):
    """Reads the shard of its task and yields one Document per record (``metadata["record"]``).

    ``read_ahead="process"`` reads a dump in a forked reader process and other files in a thread, ahead of the
    extraction; ``"off"`` reads in line (see :func:`.reading.read_shard`).
    """

    name = "shard reader"
    type = "📖 - READER"

    def __init__(
        self,
        shards: list[Shard],
        options: ReaderOptions = ReaderOptions(),
        limit: int | None = None,
        extra_skipped: list[Skipped] = (),
        read_ahead: str = "process",
    ):
        super().__init__()
        self.read_ahead = read_ahead
        self.shards = shards
        self.options = options
        self.limit = limit
        self.extra_skipped = list(extra_skipped)

    def run(self, data: DocumentsPipeline = None, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        shard = self.shards[rank]
        if rank == 0:
            for number, record in enumerate(self.extra_skipped):
                yield Document(text="", id=f"unknown/{number}", metadata={"record": record})
        group = input_group(self.shards, rank)
        with tqdm(total=shard.size, unit="B", unit_scale=True, desc=f"{Path(shard.path).name}[{rank}]") as bar:
            records = read_shard(shard, self.options, self.read_ahead, bar.update)
            pages = records_before = 0
            for number, record in enumerate(records):
                is_page = isinstance(record, (RawPage, Article))
                if is_page and self.limit is not None and pages >= self.limit:
                    break
                pages += is_page
                self.stat_update(type(record).__name__)
                # where the record stands in the input (see input_group), for duplicates to keep the first one
                position = shard.part + shard.parts * records_before if shard.parts > 1 else number
                records_before += not isinstance(record, Redirect)
                metadata = {"record": record, "order": (group, position), "file": shard.path}
                yield Document(text="", id=f"{rank}/{number}", metadata=metadata)
            if not bar.n:
                bar.update(shard.size)


def input_group(shards: list[Shard], rank: int) -> int:
    """The rank of the first shard that reads the same part of the input as shard ``rank``: shards that share a file
    by records (``Shard.part`` of ``Shard.parts``) read the same bytes and keep every ``parts``-th record each.

    The shards are planned in input order, so ``(input_group, position)`` orders the records of every shard as the
    input holds them, where ``position`` is the record's number in its shard, or for a shard of ``parts`` sharing
    records, ``part + parts * k`` for its ``k``-th record: a reader yields each record of its part as its Redirects
    then one Article or Skipped (see :mod:`.formats.base`)."""
    shard = shards[rank]
    while rank > 0 and shard.parts > 1 and shards[rank - 1].parts == shard.parts:
        before = shards[rank - 1]
        if (before.path, before.start, before.end, before.part) != (shard.path, shard.start, shard.end, shard.part - 1):
            break
        rank, shard = rank - 1, before
    return rank


class ArticleExtractor(PipelineStep):
    """Parses raw wikitext pages into Articles; other records pass through. The templates of a page's running
    text are counted in ``metadata["template_counts"]`` (see :func:`.templates.count_template`)."""

    name = "wikitext extractor"
    type = "🛢 - EXTRAC"

    def __init__(self, options: ReaderOptions = ReaderOptions()):
        super().__init__()
        self.options = options

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        for document in data:
            record = document.metadata["record"]
            if isinstance(record, RawPage):
                counts: Counter = Counter()
                with self.track_time():
                    document.metadata["record"] = parse_page(record, self.options, counts)
                document.metadata["template_counts"] = counts
            yield document


class CorpusWriter(PipelineStep):
    """Writes the task's Articles, Redirects and Skipped records as Parquet, and its statistics as JSON."""

    name = "corpus writer"
    type = "💽 - WRITER"

    def __init__(self, output_dir: str | Path):
        super().__init__()
        self.output_dir = str(output_dir)

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        out = Path(self.output_dir)
        stats: Counter = Counter()
        schemas = {"data": ARTICLE_SCHEMA, "redirects": REDIRECT_SCHEMA, "skipped": SKIPPED_SCHEMA}
        writers = {
            folder: _PartWriter(out / folder / f"{rank:05d}.parquet", schema) for folder, schema in schemas.items()
        }
        writers["keys"] = _PartWriter(keys_file(out, rank), KEY_SCHEMA)
        clear_partial([*(writer.path for writer in writers.values()), out / "stats" / f"{rank:05d}.json"])
        articles = 0
        for document in data:
            record = document.metadata["record"]
            stats.update(document.metadata.get("template_counts", {}))
            if isinstance(record, Article):
                writers["data"].add(record.to_dict())
                group, position = document.metadata.get("order", (rank, articles))
                writers["keys"].add(article_key(record, group, position, document.metadata.get("file", "")))
                articles += 1
                count_article(stats, record)
            elif isinstance(record, Redirect):
                writers["redirects"].add({"source": record.source, "target": record.target})
                stats["redirects"] += 1
            elif isinstance(record, Skipped):
                writers["skipped"].add(vars(record))
                stats[f"skipped:{record.reason}"] += 1
        for writer in writers.values():
            writer.close()
        write_json_atomically(out / "stats" / f"{rank:05d}.json", dict(stats))
        return
        yield  # a generator with nothing to pass on: this is the last step


def count_article(stats: Counter, article: Article) -> None:
    """Add an article to the build statistics (what the corpus card and ``build_stats.json`` count)."""
    stats["articles"] += 1
    stats["sections"] += len(article.sections)
    stats["links"] += len(article.links)
    stats["see_also_edges"] += len(article.see_also)
    stats["articles_with_see_also"] += bool(article.see_also)
    if article.see_also:  # readers of other formats find See also by heading name only
        stats[f"see_also_by_{article.see_also_found_by or 'name'}"] += 1
    stats["disambiguation_pages"] += article.is_disambiguation
    stats["categories"] += len(article.categories)
    stats["articles_with_categories"] += bool(article.categories)
    if "\ufffd" in article.abstract or any("\ufffd" in s.text for s in article.sections):
        stats["articles_with_replaced_bytes"] += 1


class _PartWriter:
    """Buffers rows and writes one Parquet file, renamed into place only when complete."""

    def __init__(self, path: Path, schema: pa.Schema):
        self.path, self.schema = path, schema
        self.tmp = partial_path(path)
        self.rows: list[dict] = []
        self.writer: pq.ParquetWriter | None = None

    def add(self, row: dict) -> None:
        self.rows.append(row)
        if len(self.rows) >= ROWS_PER_BATCH:
            self._flush()

    def _flush(self) -> None:
        if self.writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.writer = pq.ParquetWriter(self.tmp, self.schema, compression="zstd")
        self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
        self.rows = []

    def close(self) -> None:
        if self.rows:
            self._flush()
        if self.writer is not None:
            self.writer.close()
            os.replace(self.tmp, self.path)


def write_json_atomically(path: Path, payload: dict) -> None:
    """Write ``payload`` as JSON at ``path``, renamed into place only when complete."""
    atomic_write(path, lambda tmp: tmp.write_text(json.dumps(payload, indent=1, sort_keys=True)))


def merged_stats(output_dir: str | Path) -> Counter:
    """The statistics of every finished task of a build, added up."""
    total: Counter = Counter()
    for path in sorted(Path(output_dir, "stats").glob("*.json")):
        total.update(json.loads(path.read_text()))
    return total
