"""Stage 3 of the baselines (:mod:`.baseline_steps`), per unit: the PROP and HARP rows, from the work files of
stages 1 and 2 alone. HARP's attention is computed for every sentence with an anchor and every destination passage
of the unit in one batched call (cached in ``.build/harp/attention.sqlite``)."""

from __future__ import annotations

import functools
import itertools
import json
from collections import Counter, OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyarrow import feather
from tqdm.auto import tqdm

from wikiformer_kit.dataset_scripts.tasks import acm, qdm, rdp, rqp
from wikiformer_kit.dataset_scripts.tasks.anchors import (
    LinkedSentence,
    anchor_words,
    importance_distribution,
    importance_measures,
    sentences_of_links,
)
from wikiformer_kit.dataset_scripts.tasks.attention import AttentionScorer, TextAttention
from wikiformer_kit.dataset_scripts.tasks.baseline_files import (
    BASELINE_TASKS,
    HARP_TASKS,
    LINKS_SCHEMA,
    PROP_TASKS,
    BaselineStep,
    join_sizes,
)
from wikiformer_kit.dataset_scripts.tasks.build_layout import write_json, write_task_rows
from wikiformer_kit.dataset_scripts.tasks.common import LazyTaskRng, TaskOutput, task_rng
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit
from wikiformer_kit.dataset_scripts.tasks.free_memory import rare_collections
from wikiformer_kit.dataset_scripts.tasks.language_model import CollectionModel, load_stopwords, stemmer
from wikiformer_kit.dataset_scripts.tasks.prop import PropDocument, document_rows
from wikiformer_kit.dataset_scripts.tasks.qdm_plan import QdmPlan
from wikiformer_kit.dataset_scripts.tasks.registry import get_task
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import ArticleIndex
from wikiformer_kit.dataset_scripts.tasks.see_also_join import TitleJoin
from wikiformer_kit.dataset_scripts.tasks.stats import Summary, TaskStats

_HARP_ROWS = {"rqp": rqp.rqp_rows, "qdm": qdm.qdm_rows, "rdp": rdp.rdp_rows, "acm": acm.acm_rows}


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

    text = functools.partialmethod(_get, field=2)
    title = functools.partialmethod(_get, field=1)

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


class BaselineTasksStep(BaselineStep):
    """Stage 3 of the baselines: the PROP and HARP rows of this rank's units (see the module)."""

    name = "PROP + HARP rows"

    def __init__(self, *args, cache=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.cache = Path(cache) if cache else None

    def process(self, rank: int, world_size: int) -> None:
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

    def _setup(self) -> None:
        self.collection = self.index = self.scorer = None
        self.destinations = _RecentAttention(DESTINATIONS_KEPT)
        self.harp_stopwords = load_stopwords(self.harp.stopwords or None)
        if self.wants(PROP_TASKS):
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
        if self.wants(HARP_TASKS):
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
        if self.wants(HARP_TASKS):
            measures = self._harp(unit, outputs)
        marker: dict[str, Any] = {"tasks": {}}
        importance = TaskStats()  # the same figures for every HARP task: summed once
        for values in measures:
            for name, value in values.items():
                importance.measure(name, value)
        for task, output in outputs.items():
            stats = TaskStats()
            if task in HARP_TASKS:
                for name, summary in importance.measures.items():
                    stats.measures.setdefault(name, Summary()).merge(summary)
            if task == "rdp":
                for row in output.groups:
                    wins = rdp.longer_anchor_wins(row)
                    if wins is not None:
                        stats.measure(rdp.LONGER_ANCHOR_WINS, float(wins))
            shard = self.layout.shard(task, unit.number, len(self.units))
            write_task_rows(marker, get_task(task), output, shard, stats, digest=False)
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
            output.skipped.update(sampled.skipped)

    def _harp(self, unit: Unit, outputs: dict[str, TaskOutput]) -> list[dict[str, float]]:
        """The unit's HARP rows into ``outputs``; returns the sharpness of the importance distributions the unit
        drew from (one dict per distribution: its unit's destinations and its sentences' anchor rows)."""
        offset = int(self.index.offsets[unit.number])
        marker = json.loads(self.layout.marker("baseline-stats", unit.number).read_text("utf-8"))
        links = feather.read_table(self.files.links(unit.number), columns=LINKS_SCHEMA.names[:8])  # not the key
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
        harp_tasks = [task for task in HARP_TASKS if task in outputs]
        for task in harp_tasks:
            outputs[task].skipped.update(extraction)
        plan = (
            self.plan.lookup(qdm.anchor_key(a.text) for s, _, _ in sentences for a in s.anchors)
            if "qdm" in outputs
            else {}
        )
        rngs: dict[str, Any] = {}
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
    a first section, with the ``target`` column replaced by that row; and the others counted by reason (the first
    that applies: not in its sentence, target missing, self link, target without a first section), over Arrow and
    NumPy, without a Python object per link: in a partial dump most targets are missing. ``resolve`` is a
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
