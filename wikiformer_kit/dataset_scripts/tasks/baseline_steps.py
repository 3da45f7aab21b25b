"""The datatrove stages of the two baselines the paper compares with: PROP's ROP and HARP's RQP, QDM, RDP, ACM.

Both need the whole corpus before any row: PROP its collection language model, HARP the destinations' first
sections and, for QDM, every anchor text's destinations. So they run in three stages beside the Wikiformer ones,
on the same units, with the same resumable markers:

1. :class:`CorpusStatsStep` (per unit, the only stage that reads the corpus, and only the columns it needs): PROP's
   word counts and the unit's documents (the cut ``document`` and its words as ids into the unit's word list:
   tokenised once); HARP's passage index shard (title, id, first section cut to ``passage_max_tokens`` word
   pieces) and the unit's link records (article, sentence, anchor and where it starts, target, anchor text key).
2. :class:`CorpusModelStep` (one task): the PROP vocabulary (counts merged, ``min_count`` cut) and the QDM plan
   (ambiguous anchor texts, their destinations after redirects, the rank cut-off of their ``qdm_max_pairs`` rows;
   occurrence ranks are hashed for the ambiguous texts only).
3. :class:`BaselineTasksStep` (per unit): the rows, from the work files of stages 1 and 2 alone. HARP's attention
   is computed for every sentence with an anchor and every destination passage of the unit in one batched call
   (cached in ``.build/harp/attention.sqlite``).

Every row's RNG is derived from the seed, the task and the article id (one ``random.Random`` per task and article,
drawn from in sentence order), so the output does not depend on the number of processes.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from datatrove.pipeline.base import PipelineStep
from pyarrow import feather
from tqdm.auto import tqdm

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write, clear_partial
from wikiformer_kit.dataset_scripts.corpus.article import ARTICLE_SCHEMA
from wikiformer_kit.dataset_scripts.corpus.words import cut_words
from wikiformer_kit.dataset_scripts.tasks import acm, qdm, rdp, rqp
from wikiformer_kit.dataset_scripts.tasks.anchors import (
    HarpOptions,
    LinkedSentence,
    anchor_words,
    importance_distribution,
    importance_measures,
    locate_anchors,
    sentences_of_links,
)
from wikiformer_kit.dataset_scripts.tasks.attention import (
    AttentionScorer,
    TextAttention,
    load_passage_tokenizer,
    truncate_tokens,
)
from wikiformer_kit.dataset_scripts.tasks.baseline_options import add_arguments, options_from_args  # noqa: F401 (the build's command line)
from wikiformer_kit.dataset_scripts.tasks.common import LazyTaskRng, TaskOutput, task_rng
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit, list_fields, list_items, read_unit_table
from wikiformer_kit.dataset_scripts.tasks.free_memory import rare_collections, release_freed_memory
from wikiformer_kit.dataset_scripts.tasks.language_model import (
    CollectionModel,
    UnitTokens,
    has_word,
    load_stopwords,
    stemmer,
)
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.prop import (
    PropDocument,
    PropOptions,
    document_rows,
    document_skip,
    join_document,
)
from wikiformer_kit.dataset_scripts.tasks.qdm_plan import (
    QdmPlan,
    build_plan_bucket,
    plan_bucket_count,
    write_link_parts,
)
from wikiformer_kit.dataset_scripts.tasks.registry import get_task
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import (
    INDEX_SCHEMA,
    ArticleIndex,
    normalize_titles,
    write_index,
)
from wikiformer_kit.dataset_scripts.tasks.see_also_join import (
    TitleJoin,
    bucket_count,
    build_bucket,
    crc32_of,
    write_redirect_parts,
    write_title_parts,
)
from wikiformer_kit.dataset_scripts.tasks.stats import Summary, TaskStats
from wikiformer_kit.dataset_scripts.tasks.steps import BuildLayout, write_json, write_rows

PROP_TASKS = ("prop",)
HARP_TASKS = ("rqp", "qdm", "rdp", "acm")
BASELINE_TASKS = PROP_TASKS + HARP_TASKS
_HARP_ROWS = {"rqp": rqp.rqp_rows, "qdm": qdm.qdm_rows, "rdp": rdp.rdp_rows, "acm": acm.acm_rows}
_COUNTS = pa.schema([("word", pa.string()), ("cf", pa.int64()), ("df", pa.int64())])
_SURFACES = pa.schema([("stem", pa.string()), ("word", pa.string()), ("count", pa.int64())])
_DOCUMENTS = pa.schema(
    [
        ("article_id", pa.string()),
        ("title", pa.string()),
        ("document", pa.string()),
        ("skip", pa.string()),
        ("words", pa.list_(pa.int32())),
    ]
)
_LINKS = pa.schema(
    [
        ("article", pa.int32()),  # position in the unit
        ("article_id", pa.string()),
        ("title", pa.string()),
        ("section", pa.int32()),
        ("sentence", pa.string()),
        ("anchor", pa.string()),  # stripped
        ("start", pa.int32()),  # of the anchor in the sentence, -1: not found
        ("target", pa.string()),
        ("key", pa.string()),  # qdm.anchor_key
    ]
)


class BaselineFiles:
    """Where the baseline stages keep their work files, under the build's ``.build/``."""

    def __init__(self, layout: BuildLayout):
        self.layout = layout

    def counts(self, unit: int) -> Path:
        """A unit's PROP word counts (its content words, sorted: the ids of :meth:`documents` index them)."""
        return self.layout.work / "prop" / "counts" / f"{unit:05d}.parquet"

    def documents(self, unit: int) -> Path:
        """A unit's PROP documents: id, title, the cut ``document``, skip reason, content words as ids."""
        return self.layout.work / "prop" / "documents" / f"{unit:05d}.arrow"

    def surfaces(self, unit: int) -> Path:
        """With stemming, a unit's content words, their stems and counts (the words a drawn stem is shown as)."""
        return self.layout.work / "prop" / "surfaces" / f"{unit:05d}.parquet"

    @property
    def all_surfaces(self) -> Path:
        """With stemming, the corpus's words of each stem of the vocabulary and their counts (merged)."""
        return self.layout.work / "prop" / "surfaces.parquet"

    @property
    def vocabulary(self) -> Path:
        """The merged PROP vocabulary (words with ``cf >= min_count``)."""
        return self.layout.work / "prop" / "vocabulary.parquet"

    @property
    def totals(self) -> Path:
        """Documents and words of the whole corpus (JSON)."""
        return self.layout.work / "prop" / "totals.json"

    def passages(self, unit: int) -> Path:
        """A unit's HARP passage index shard (Arrow IPC, the See also index schema)."""
        return self.layout.work / "harp" / "passages" / f"{unit:05d}.arrow"

    def links(self, unit: int) -> Path:
        """A unit's links as HARP reads them (Arrow IPC, one row per link, article order): the rows stage builds
        its sentences from them without reading the corpus; the QDM plan reads their anchor keys."""
        return self.layout.work / "harp" / "links" / f"{unit:05d}.arrow"

    def qdm_parts(self, unit: int, buckets: int) -> Path:
        """A unit's links found in their sentence, ``(key, target, rank)`` cut into the QDM plan's buckets."""
        return self.layout.work / "harp" / f"qdm-plan-{buckets}" / "links" / f"{unit:05d}.arrow"

    def qdm_bucket(self, bucket: int, buckets: int) -> Path:
        """One bucket of the QDM plan (SQLite: ambiguous anchor text, destination rows, rank cut-off)."""
        return self.layout.work / "harp" / f"qdm-plan-{buckets}" / "buckets" / f"{bucket:05d}.sqlite"

    @property
    def attention_cache(self) -> Path:
        """The attention cache (SQLite)."""
        return self.layout.work / "harp" / "attention.sqlite"


def _write_work_table(table: pa.Table, path) -> None:
    """A work file read back whole by a later stage: Arrow IPC with zstd (Parquet's decoding cost about as much as
    the reading of the corpus it replaces; zstd is a third smaller than LZ4 at the same cost here)."""
    feather.write_feather(table, str(path), compression="zstd")


def _wants(tasks: Sequence[str], group: Sequence[str]) -> bool:
    return any(task in group for task in tasks)


def _columns(tasks: Sequence[str]) -> list[str]:
    """The corpus columns the statistics stage reads for the requested baseline tasks."""
    columns = ["id", "title", "abstract", "is_disambiguation"]
    return (
        columns + (["sections"] if _wants(tasks, PROP_TASKS) else []) + (["links"] if _wants(tasks, HARP_TASKS) else [])
    )


class CorpusStatsStep(PipelineStep):
    """Stage 1 of the baselines: PROP word counts, HARP passage index and anchors, per unit (see the module)."""

    name = "PROP counts + HARP passages and anchors"
    type = "Baselines"

    def __init__(
        self,
        root,
        units: Sequence[Unit],
        tasks,
        options: TaskOptions,
        prop: PropOptions,
        harp: HarpOptions,
        redirect_files=(),
    ):
        super().__init__()
        self.layout, self.units, self.tasks = BuildLayout(Path(root)), list(units), tuple(tasks)
        self.options, self.prop, self.harp = options, prop, harp
        self.files = BaselineFiles(self.layout)
        self.redirect_files = [Path(p) for p in redirect_files]
        self.first_rows = [0]  # corpus row of each unit's first article
        for unit in self.units:
            self.first_rows.append(self.first_rows[-1] + unit.stop - unit.start)
        self.join_buckets, self.plan_buckets = join_sizes(self.units)

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        """Process this rank's units that are not done yet."""
        todo = [u for u in self.units[rank::world_size] if not self.layout.marker("baseline-stats", u.number).exists()]
        harp = todo and _wants(self.tasks, HARP_TASKS)
        tokenizer = load_passage_tokenizer(self.harp.importance_model) if harp else None
        stopwords = load_stopwords(self.prop.stopwords or None)
        with rare_collections():
            for unit in tqdm(todo, desc=f"baseline statistics (rank {rank})", unit="unit"):
                self._unit(unit, stopwords, tokenizer)
                release_freed_memory()  # a worker runs hundreds of units: keep one unit's working set, not its peak
        if _wants(self.tasks, HARP_TASKS):  # the title join's redirect parts (shared with LTM's, same layout)
            for number in range(rank, len(self.redirect_files), world_size):
                path = self.layout.redirect_parts(number, self.join_buckets)
                if not path.exists():
                    clear_partial([path])
                    path.parent.mkdir(parents=True, exist_ok=True)
                    source = self.redirect_files[number]
                    atomic_write(path, lambda tmp, source=source: write_redirect_parts(source, self.join_buckets, tmp))
        if data:
            yield from data

    def _unit(self, unit: Unit, stopwords: frozenset[str], tokenizer) -> None:
        table = read_unit_table(unit, _columns(self.tasks))
        table = ARTICLE_SCHEMA.empty_table().select(_columns(self.tasks)) if table is None else table
        marker: dict[str, Any] = {"articles": table.num_rows}
        if _wants(self.tasks, PROP_TASKS):
            marker["prop"] = self._prop(unit, table, stopwords)
        if _wants(self.tasks, HARP_TASKS):
            marker["harp"] = self._harp(unit, table, tokenizer)
        write_json(marker, self.layout.marker("baseline-stats", unit.number))

    def _prop(self, unit: Unit, table: pa.Table, stopwords: frozenset[str]) -> dict[str, int]:
        """The unit's word counts and its documents as the rows stage needs them (tokenised once, here)."""
        ids, titles, abstracts, disambiguation = (
            table.column(c).to_pylist() for c in ("id", "title", "abstract", "is_disambiguation")
        )
        sections = list_fields(table.column("sections"), "text")
        texts = [join_document(t, [a, *s]) for t, a, s in zip(titles, abstracts, sections, strict=True)]
        tokens = UnitTokens.from_texts(texts, stopwords, stemmer() if self.prop.stem else None)
        counts = pa.table({"word": tokens.words, "cf": tokens.cf, "df": tokens.df}, schema=_COUNTS)
        atomic_write(self.files.counts(unit.number), lambda tmp: pq.write_table(counts, tmp))
        if tokens.surfaces is not None:
            stems = pa.array(tokens.words, pa.string()).take(tokens.surfaces.column("stem"))
            surfaces = pa.table(
                {"stem": stems, "word": tokens.surfaces.column("word"), "count": tokens.surfaces.column("count")},
                schema=_SURFACES,
            )
            self.files.surfaces(unit.number).parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.files.surfaces(unit.number), lambda tmp: pq.write_table(surfaces, tmp))
        skips = [document_skip(*flags) for flags in zip(disambiguation, tokens.has_words.tolist(), strict=True)]
        documents = pa.table(
            {
                "article_id": ids,
                "title": titles,
                "document": [
                    "" if skip else cut_words(text, self.options.max_words)
                    for text, skip in zip(texts, skips, strict=True)
                ],
                "skip": skips,
                "words": pa.ListArray.from_arrays(pa.array(tokens.offsets, pa.int32()), pa.array(tokens.ids)),
            },
            schema=_DOCUMENTS,
        )
        atomic_write(self.files.documents(unit.number), lambda tmp: _write_work_table(documents, tmp))
        return {"documents": tokens.documents, "words": int(tokens.cf.sum())}

    def _harp(self, unit: Unit, table: pa.Table, tokenizer) -> dict[str, int]:
        """The unit's passage index shard, link records, titles cut into the title join's buckets and QDM link
        parts; returns the articles without links (counted)."""
        ids, titles, abstracts, disambiguation = (
            table.column(c).to_pylist() for c in ("id", "title", "abstract", "is_disambiguation")
        )
        passages = truncate_tokens(abstracts, tokenizer, self.harp.passage_max_tokens)
        index = pa.table(
            {
                "title": normalize_titles(table.column("title")),
                "article_id": ids,
                "display_title": titles,
                "text": passages,
                "eligible": [has_word(p) and not d for p, d in zip(passages, disambiguation, strict=True)],
            },
            schema=INDEX_SCHEMA,
        )
        self.files.passages(unit.number).parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.files.passages(unit.number), lambda tmp: write_index(index, tmp))
        title_parts = self.layout.title_parts(unit.number, self.join_buckets)
        if not title_parts.exists():  # LTM's stage 1 writes the same file when LTM is built too
            title_parts.parent.mkdir(parents=True, exist_ok=True)
            first_row, buckets = self.first_rows[unit.number], self.join_buckets
            atomic_write(title_parts, lambda tmp: write_title_parts(index.column("title"), first_row, buckets, tmp))
        # the link records: the corpus's own columns (Arrow) beside what is computed per link (Python)
        items, offsets = list_items(table.column("links"))
        counts = np.diff(offsets)
        position = np.repeat(np.arange(len(ids), dtype=np.int32), counts)
        sections, sentences, texts = (items.field(name).to_pylist() for name in ("section", "sentence", "anchor"))
        anchors, starts = [], []
        for first, stop in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True):
            found_anchors, found_starts = locate_anchors(sections[first:stop], sentences[first:stop], texts[first:stop])
            anchors += found_anchors
            starts += found_starts
        key_of: dict[str, str] = {}  # anchor texts repeat (places, years): each distinct one is keyed once
        keys = [key_of.get(anchor) or key_of.setdefault(anchor, qdm.anchor_key(anchor)) for anchor in anchors]
        columns = {
            "article": position,
            "article_id": pa.array(ids, pa.string()).take(position),
            "title": pa.array(titles, pa.string()).take(position),
            "section": items.field("section"),
            "sentence": items.field("sentence"),
            "anchor": anchors,
            "start": starts,
            "target": items.field("target"),
            "key": keys,
        }
        links = pa.table(columns, schema=_LINKS)
        atomic_write(self.files.links(unit.number), lambda tmp: _write_work_table(links, tmp))
        # QDM's occurrences: the links found in their sentence, with their seeded rank (computed a unit at once)
        starts = np.asarray(starts, dtype=np.int64)
        found = np.flatnonzero(starts >= 0)
        keys = [keys[i] for i in found.tolist()]
        targets = items.field("target").take(pa.array(found, pa.int64())).to_pylist()
        key_crcs = crc32_of(keys)
        if self.harp.qdm_occurrences == "first":  # corpus order: the article's row, then the link's place in it
            article_rows = self.first_rows[unit.number] + position[found].astype(np.int64)
            ranks = qdm.first_ranks(article_rows, found - offsets[:-1][position[found]])
        else:
            ranks = qdm.occurrence_ranks(
                self.options.seed, key_crcs, crc32_of(ids)[position[found]],
                crc32_of(sentences[i] for i in found.tolist()), starts[found],
            )  # fmt: skip
        parts = self.files.qdm_parts(unit.number, self.plan_buckets)
        parts.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(parts, lambda tmp: write_link_parts(keys, targets, ranks, self.plan_buckets, tmp, key_crcs))
        return {"article-without-links": int(np.count_nonzero(counts == 0))}


class CorpusModelStep(PipelineStep):
    """Stage 2 of the baselines (one task): the PROP vocabulary and the QDM plan (see the module)."""

    name = "PROP vocabulary + QDM plan"
    type = "Baselines"

    def __init__(
        self, root, units: Sequence[Unit], tasks, redirect_files, harp: HarpOptions, prop: PropOptions, seed: int = 42
    ):
        super().__init__()
        self.layout, self.units, self.tasks = BuildLayout(Path(root)), list(units), tuple(tasks)
        self.redirect_files, self.harp, self.prop, self.seed = [Path(p) for p in redirect_files], harp, prop, seed
        self.files = BaselineFiles(self.layout)

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        """Merge the unit statistics (rank 0 only)."""
        if rank == 0:
            if _wants(self.tasks, PROP_TASKS):
                self._vocabulary()
            if _wants(self.tasks, HARP_TASKS):
                self._qdm_plan()
        if data:
            yield from data

    def _vocabulary(self) -> None:
        documents = words_total = 0
        for unit in self.units:
            marker = json.loads(self.layout.marker("baseline-stats", unit.number).read_text("utf-8"))
            documents += marker["prop"]["documents"]
            words_total += marker["prop"]["words"]
        counts = pa.concat_tables([pq.read_table(self.files.counts(u.number)) for u in self.units])
        merged = counts.group_by("word").aggregate([("cf", "sum"), ("df", "sum")])
        merged = merged.rename_columns(["word", "cf", "df"]).sort_by("word")
        merged = merged.filter(pa.compute.greater_equal(merged.column("cf"), self.prop.min_count))
        atomic_write(self.files.vocabulary, lambda tmp: pq.write_table(merged, tmp))
        if self.prop.stem:
            parts = pa.concat_tables([pq.read_table(self.files.surfaces(u.number)) for u in self.units])
            forms = parts.group_by(["stem", "word"]).aggregate([("count", "sum")])
            forms = forms.rename_columns(["stem", "word", "count"]).sort_by(
                [("stem", "ascending"), ("word", "ascending")]
            )
            forms = forms.filter(pc.is_in(forms.column("stem"), value_set=merged.column("word")))
            atomic_write(self.files.all_surfaces, lambda tmp: pq.write_table(forms, tmp))
        write_json({"documents": documents, "words": words_total}, self.files.totals)

    def _qdm_plan(self) -> None:
        """The title join's buckets (unless LTM's stage built them), then the QDM plan's, one bucket at a time.

        This stage runs in the build's own process: what the freed memory of earlier steps and buckets leaves in
        the allocators is given back before each bucket, so the process holds one bucket's working set at a time.
        """
        join_buckets, plan_buckets = join_sizes(self.units)
        release_freed_memory()
        titles = [self.layout.title_parts(u.number, join_buckets) for u in self.units]
        redirects = [self.layout.redirect_parts(n, join_buckets) for n in range(len(self.redirect_files))]
        bucket_files = [self.layout.bucket_file(b, join_buckets) for b in range(join_buckets)]
        for bucket, path in enumerate(bucket_files):
            if not path.exists():
                clear_partial([path])
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(path, lambda tmp, b=bucket: build_bucket(b, join_buckets, titles, redirects, tmp))
                release_freed_memory()
        join = TitleJoin(bucket_files, kept=0)  # the plan resolves each distinct target once: nothing to keep
        eligible = ArticleIndex([self.files.passages(u.number) for u in self.units]).eligible
        parts = [self.files.qdm_parts(u.number, plan_buckets) for u in self.units]
        for bucket in range(plan_buckets):
            path = self.files.qdm_bucket(bucket, plan_buckets)
            if path.exists():
                continue
            clear_partial([path])
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(
                path,
                lambda tmp, b=bucket: build_plan_bucket(
                    b, plan_buckets, parts, join.resolve, eligible, self.harp.qdm_max_pairs, tmp
                ),
            )
            release_freed_memory()


def join_sizes(units: Sequence[Unit]) -> tuple[int, int]:
    """The buckets of the title join (:func:`.see_also_join.bucket_count`, shared with LTM) and of the QDM plan
    (:func:`.qdm_plan.plan_bucket_count`, by the corpus's links: from the Parquet footers, no data read)."""
    links = 0
    for file in dict.fromkeys(unit.file for unit in units):
        metadata = pq.read_metadata(file)
        # the column found by each chunk's path: FileMetaData.schema would keep ~1.5 MiB a file in this process
        for group in map(metadata.row_group, range(metadata.num_row_groups)):
            chunks = map(group.column, range(group.num_columns))
            links += sum(chunk.num_values for chunk in chunks if chunk.path_in_schema == LINK_COLUMN)
    return bucket_count(sum(unit.stop - unit.start for unit in units)), plan_bucket_count(links)


LINK_COLUMN = "links.list.element.target"


class _Pending:
    """A destination's text or title not fetched yet: filled in by :meth:`_Passages.fill` (one batched read per
    unit instead of one read per row; a row from the index costs a pyarrow take)."""

    __slots__ = ("row", "field")

    def __init__(self, row: int, field: int):
        self.row, self.field = row, field


class _Passages:
    """Destination passages by index row: text, title and [CLS] attention. Rows not fetched with the unit's
    destinations (QDM's and ACM's negatives) come back as :class:`_Pending` and are read together by :meth:`fill`;
    the task functions only place texts and titles into rows, never read them. ``rows``: the unit's destinations
    as :meth:`.see_also_graph.ArticleIndex.rows` read them (once, for their attention and their rows)."""

    def __init__(self, index: ArticleIndex, attention: dict[int, TextAttention], rows: dict[int, tuple]):
        self.index, self._attention, self._rows = index, attention, rows
        self.pending = 0
        """:class:`_Pending` values handed out so far (a caller fills only the rows made while it grew)."""

    def _get(self, row: int, field: int):
        found = self._rows.get(row)
        if found is not None:
            return found[field]
        self.pending += 1
        return _Pending(row, field)

    def text(self, row: int):
        return self._get(row, 2)

    def title(self, row: int):
        return self._get(row, 1)

    def attention(self, row: int) -> TextAttention:
        return self._attention[row]

    def fill(self, groups: list[dict]) -> None:
        """Replace every :class:`_Pending` value of the rows (top level or in a list) by the text it stands for."""
        pending = {value.row for group in groups for value in _values(group) if isinstance(value, _Pending)}
        if not pending:
            return
        self._rows.update(self.index.rows(sorted(pending)))
        for group in groups:
            for key, value in group.items():
                if isinstance(value, _Pending):
                    group[key] = self._rows[value.row][value.field]
                elif isinstance(value, list) and any(isinstance(v, _Pending) for v in value):
                    group[key] = [self._rows[v.row][v.field] if isinstance(v, _Pending) else v for v in value]


def _values(group: dict):
    for value in group.values():
        if isinstance(value, list):
            yield from value
        else:
            yield value


DESTINATIONS_KEPT = 4096
"""Destination passages whose attention (and the term distributions drawn from it) a rows worker keeps across
units: popular pages are linked from most units."""


class _RecentAttention(OrderedDict):
    """The attention of the destinations used last, by index row (least recently used dropped by :meth:`trim`)."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def __getitem__(self, row: int) -> TextAttention:
        self.move_to_end(row)
        return super().__getitem__(row)

    def trim(self) -> None:
        """Drop the least recently used entries beyond ``size``."""
        while len(self) > self.size:
            self.popitem(last=False)


class BaselineTasksStep(PipelineStep):
    """Stage 3 of the baselines: the PROP and HARP rows of this rank's units (see the module)."""

    name = "PROP + HARP rows"
    type = "Baselines"

    def __init__(
        self,
        root,
        units: Sequence[Unit],
        tasks,
        redirect_files,
        options: TaskOptions,
        prop: PropOptions,
        harp,
        cache=None,
    ):
        super().__init__()
        self.cache = Path(cache) if cache else None
        self.layout, self.units, self.tasks = BuildLayout(Path(root)), list(units), tuple(tasks)
        self.redirect_files, self.options, self.prop, self.harp = [Path(p) for p in redirect_files], options, prop, harp
        self.files = BaselineFiles(self.layout)

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        """Process this rank's units that are not done yet."""
        todo = [
            u
            for u in self.units[rank::world_size]
            if not self.layout.unit_done("baseline-units", u.number, len(self.units))
        ]
        if todo:
            self._setup()
            with rare_collections():
                for unit in tqdm(todo, desc=f"PROP/HARP rows (rank {rank})", unit="unit"):
                    self._unit(unit)
            if self.scorer is not None:
                self.scorer.close()
            self.destinations.clear()  # datatrove writes the step's attributes to JSON at the end
        if data:
            yield from data

    def _setup(self) -> None:
        self.collection = self.index = self.scorer = None
        self.destinations = _RecentAttention(DESTINATIONS_KEPT)
        self.harp_stopwords = load_stopwords(self.harp.stopwords or None)
        if _wants(self.tasks, PROP_TASKS):
            vocabulary = pq.read_table(self.files.vocabulary)
            totals = json.loads(self.files.totals.read_text("utf-8"))
            cf = dict(zip(vocabulary.column("word").to_pylist(), vocabulary.column("cf").to_pylist(), strict=True))
            df = dict(zip(vocabulary.column("word").to_pylist(), vocabulary.column("df").to_pylist(), strict=True))
            self.collection = CollectionModel(
                cf,
                df,
                totals["documents"],
                totals["words"],
                self.prop.min_count,
                self.prop.subsample,
                self.prop.background,
                self._surfaces() if self.prop.stem else None,
                stemmer() if self.prop.stem else None,
            )
            self.vocabulary = pa.array(self.collection.vocabulary, type=pa.string())
        if _wants(self.tasks, HARP_TASKS):
            self.index = ArticleIndex([self.files.passages(u.number) for u in self.units], self.redirect_files)
            join_buckets, plan_buckets = join_sizes(self.units)
            self.join = TitleJoin([self.layout.bucket_file(b, join_buckets) for b in range(join_buckets)])
            self.plan = QdmPlan([self.files.qdm_bucket(b, plan_buckets) for b in range(plan_buckets)])
            self.scorer = AttentionScorer(
                self.harp.importance_model,
                self.harp.importance_device or None,
                self.harp.importance_batch_size,
                max_length=self.harp.passage_max_tokens + 2,
                cache=self.cache or self.files.attention_cache,
                heads=self.harp.heads,
                anchor_row=self.harp.anchor_row,
                unit=self.harp.draw_unit,
            )

    def _surfaces(self) -> dict[str, dict[str, int]]:
        """The corpus's words of each stem of the vocabulary with their counts (``{stem: {word: count}}``)."""
        forms = pq.read_table(self.files.all_surfaces)
        surfaces: dict[str, dict[str, int]] = {}
        for stem, word, count in zip(*(forms.column(c).to_pylist() for c in ("stem", "word", "count")), strict=True):
            surfaces.setdefault(stem, {})[word] = count
        return surfaces

    def _unit(self, unit: Unit) -> None:
        outputs = {task: TaskOutput() for task in self.tasks if task in BASELINE_TASKS}
        if "prop" in outputs:
            self._prop(unit, outputs["prop"])
        measures: list[dict[str, float]] = []
        if _wants(self.tasks, HARP_TASKS):
            measures = self._harp(unit, outputs)
        marker: dict[str, Any] = {"tasks": {}}
        importance = TaskStats()  # the same figures for every HARP task: summed once
        for values in measures:
            for name, value in values.items():
                importance.measure(name, value)
        for task, output in outputs.items():
            spec = get_task(task)
            stats = TaskStats()
            stats.add(output, spec.fixed_side)
            if task in HARP_TASKS:
                for name, summary in importance.measures.items():
                    stats.measures.setdefault(name, Summary()).merge(summary)
            if task == "rdp":
                for row in output.groups:
                    wins = rdp.longer_anchor_wins(row)
                    if wins is not None:
                        stats.measure(rdp.LONGER_ANCHOR_WINS, float(wins))
            marker["tasks"][task] = stats.to_dict()
            if output.groups:
                write_rows(output.groups, spec.arrow_schema, self.layout.shard(task, unit.number, len(self.units)))
            self.stat_update(f"{task}_rows", value=len(output.groups))
        write_json(marker, self.layout.marker("baseline-units", unit.number))

    def _prop(self, unit: Unit, output: TaskOutput) -> None:
        """The unit's ROP rows, from the documents and word ids the statistics stage kept."""
        documents = feather.read_table(self.files.documents(unit.number))
        if self.collection is None or not len(self.collection):
            output.skipped["no-vocabulary-word"] += documents.num_rows
            return
        # the unit's word ids -> vocabulary ids (-1: not in V), then each document's words of V, in text order
        unit_words = pq.read_table(self.files.counts(unit.number), columns=["word"]).column("word")
        to_vocabulary = pc.index_in(unit_words, value_set=self.vocabulary).fill_null(-1).to_numpy()
        lists = documents.column("words").combine_chunks()
        local = lists.flatten().to_numpy()
        offsets = lists.offsets.to_numpy() - lists.offsets[0].as_py()
        mapped = to_vocabulary[local] if len(local) else np.zeros(0, np.int64)
        in_vocabulary = mapped >= 0
        kept = mapped[in_vocabulary]
        kept_offsets = np.concatenate([[0], np.cumsum(in_vocabulary)])[offsets]
        columns = [documents.column(c).to_pylist() for c in ("article_id", "title", "document", "skip")]
        for i, (article_id, title, text, skip) in enumerate(zip(*columns, strict=True)):
            document = PropDocument(
                article_id, title, text, skip, offsets[i + 1] > offsets[i], kept[kept_offsets[i] : kept_offsets[i + 1]]
            )
            sampled = document_rows(
                document, task_rng(self.options.seed, "prop", article_id), self.collection, self.prop
            )
            output.groups.extend(sampled.groups)
            if sampled.skipped:
                output.skipped.update(sampled.skipped)

    def _harp(self, unit: Unit, outputs: dict[str, TaskOutput]) -> list[dict[str, float]]:
        """The unit's HARP rows into ``outputs``; returns the sharpness of the importance distributions the unit
        drew from (one dict per distribution: its unit's destinations and its sentences' anchor rows)."""
        offset = int(self.index.offsets[unit.number])
        marker = json.loads(self.layout.marker("baseline-stats", unit.number).read_text("utf-8"))
        links = feather.read_table(self.files.links(unit.number), columns=_LINKS.names[:8])  # not the key
        extraction: Counter = Counter({reason: n for reason, n in marker["harp"].items() if n})  # counted in stage 1
        links = links.append_column("number", pa.array(_link_numbers(links.column("article").to_numpy())))
        links, skipped = _usable_links(links, offset, self.join.resolve, self.index.eligible)
        extraction.update(skipped)
        article, article_id, title, section, sentence, anchor, start, resolved, link_number = (
            c.to_pylist() for c in links.columns
        )
        sentences: list[tuple[LinkedSentence, int, int]] = []
        # each article's links are a run of rows
        starts = np.flatnonzero(np.diff(links.column("article").to_numpy()) != 0) + 1
        bounds = [0, *starts.tolist(), len(article)]
        for lo, hi in itertools.pairwise(bounds):
            if lo == hi:
                continue
            own_row = offset + article[lo]
            records = zip(section[lo:hi], sentence[lo:hi], anchor[lo:hi], start[lo:hi], strict=True)
            found = sentences_of_links(
                article_id[lo], title[lo], zip(records, resolved[lo:hi], strict=True), link_number[lo:hi]
            )
            sentences.extend((s, number, own_row) for number, s in enumerate(found))
        destinations = sorted({a.target for s, _, _ in sentences for a in s.anchors})
        new = [row for row in destinations if row not in self.destinations]
        texts = self.index.rows(destinations)  # the new ones are scored; all are placed into rows
        scored = self.scorer.score(
            [(s.sentence, [a.span for a in s.anchors]) for s, _, _ in sentences] + [(texts[row][2], []) for row in new]
        )
        self.destinations.update(zip(new, scored[len(sentences) :], strict=True))
        attention_of = {row: self.destinations[row] for row in destinations}
        self.destinations.trim()
        passages = _Passages(self.index, attention_of, texts)
        for task in HARP_TASKS:
            if task in outputs:
                outputs[task].skipped.update(extraction)
        plan = (
            self.plan.lookup(qdm.anchor_key(a.text) for s, _, _ in sentences for a in s.anchors)
            if "qdm" in outputs
            else {}
        )
        rngs: dict[str, Any] = {}
        harp_tasks = [task for task in HARP_TASKS if task in outputs]
        to_fill: dict[str, list[dict]] = {task: [] for task in outputs}  # the rows that hold a _Pending value
        for (sentence, number, source_row), attention in zip(sentences, scored, strict=False):
            if number == 0:  # an article's first sentence: one RNG per task and article, drawn in sentence order
                rngs = {task: LazyTaskRng(self.options.seed, task, sentence.article_id) for task in harp_tasks}
            for task in harp_tasks:
                rng = rngs[task]
                extra: dict[str, Any] = {}
                if task == "qdm":
                    extra = {"plan": plan, "seed": self.options.seed, "source_row": source_row}
                elif task == "acm":
                    extra = {"pool": self.index.eligible_rows, "source_row": source_row}
                pending = passages.pending
                rows, skipped = _HARP_ROWS[task](
                    sentence, attention, passages, self.harp_stopwords, rng, self.harp, **extra
                )
                if passages.pending > pending:
                    to_fill[task].extend(rows)
                outputs[task].groups.extend(rows)
                if skipped:
                    outputs[task].skipped.update(skipped)
        passages.fill([row for rows in to_fill.values() for row in rows])  # one read of the index for all tasks
        stopwords = self.harp_stopwords
        distributions = [("passage", importance_distribution(attention_of[row], stopwords)) for row in destinations]
        for (sentence, _, _), attention in zip(sentences, scored, strict=False):
            for index, anchor in enumerate(sentence.anchors):
                exclude = anchor_words(anchor, attention)
                distributions.append(("sentence", importance_distribution(attention, stopwords, index, exclude)))
        return importance_measures(distributions)


def _link_numbers(articles: np.ndarray) -> np.ndarray:
    """Each link's place among its article's links, from the article of each link (an article's links are a run)."""
    if not len(articles):
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, articles[1:] != articles[:-1]])
    return np.arange(len(articles), dtype=np.int64) - np.repeat(starts, np.diff(np.r_[starts, len(articles)]))


def _usable_links(links: pa.Table, offset: int, resolve, eligible: np.ndarray) -> tuple[pa.Table, Counter]:
    """The unit's link records whose anchor is in its sentence and whose target resolves to another article with
    a first section, with the ``target`` column replaced by that row; and the others counted by the reason
    :func:`.anchors.group_links` gives (in its order of precedence). The others are counted over Arrow and NumPy,
    without a Python object per link: in a partial dump most targets are missing. ``resolve`` is a
    :meth:`.see_also_join.TitleJoin.resolve` (each distinct title looked up once)."""
    in_sentence = links.column("start").to_numpy() >= 0
    found = np.flatnonzero(in_sentence)
    rows = np.full(len(in_sentence), -1, dtype=np.int64)
    targets = links.column("target").take(pa.array(found, pa.int64())).to_pylist()
    rows[found] = [-1 if row is None else row for row in resolve(targets)] if targets else []
    resolved = in_sentence & (rows >= 0)
    own_link = resolved & (rows == offset + links.column("article").to_numpy().astype(np.int64))
    with_passage = np.zeros(len(rows), dtype=bool)
    with_passage[resolved] = eligible[rows[resolved]]
    usable = resolved & ~own_link & with_passage
    reasons = {
        "anchor-not-in-sentence": ~in_sentence,
        "anchor-target-missing": in_sentence & ~resolved,
        "anchor-self-link": own_link,
        "anchor-target-without-first-section": resolved & ~own_link & ~with_passage,
    }
    skipped = Counter({reason: int(np.count_nonzero(mask)) for reason, mask in reasons.items() if mask.any()})
    kept = links.filter(pa.array(usable)).set_column(7, "target", pa.array(rows[usable]))
    return kept, skipped


def baseline_stages(root, units, redirect_files, tasks, options: TaskOptions, prop, harp, cache, world: int) -> list:
    """The ``(name, pipeline, tasks)`` stages that build the requested PROP/HARP tasks (none if not requested)."""
    wanted = tuple(t for t in tasks if t in BASELINE_TASKS)
    if not wanted:
        return []
    return [
        ("baseline-stats", [CorpusStatsStep(root, units, wanted, options, prop, harp, redirect_files)], world),
        ("baseline-model", [CorpusModelStep(root, units, wanted, redirect_files, harp, prop, options.seed)], 1),
        ("baseline", [BaselineTasksStep(root, units, wanted, redirect_files, options, prop, harp, cache)], world),
    ]
