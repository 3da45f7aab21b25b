"""Stage 1 of the baselines (:mod:`.baseline_steps`), per unit and the only stage that reads the corpus (only the
columns it needs): PROP's word counts and the unit's documents (the cut ``document`` and its words as ids into the
unit's word list: tokenised once); HARP's passage index shard (title, id, first section cut to
``passage_max_tokens`` word pieces) and the unit's link records (article, sentence, anchor and where it starts,
target, anchor text key)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.dataset_scripts.corpus.article import ARTICLE_SCHEMA
from wikiformer_kit.dataset_scripts.corpus.words import cut_words
from wikiformer_kit.dataset_scripts.tasks import qdm
from wikiformer_kit.dataset_scripts.tasks.anchors import locate_anchors
from wikiformer_kit.dataset_scripts.tasks.attention import load_passage_tokenizer, truncate_tokens
from wikiformer_kit.dataset_scripts.tasks.baseline_files import (
    HARP_TASKS,
    LINKS_SCHEMA,
    PROP_TASKS,
    BaselineStep,
    join_sizes,
    write_work_table,
)
from wikiformer_kit.dataset_scripts.tasks.build_layout import cut_redirect_files, write_json
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit, first_rows, list_fields, list_items, read_unit_table
from wikiformer_kit.dataset_scripts.tasks.free_memory import rare_collections, release_freed_memory
from wikiformer_kit.dataset_scripts.tasks.language_model import UnitTokens, has_word, load_stopwords, stemmer
from wikiformer_kit.dataset_scripts.tasks.prop import document_skip, join_document
from wikiformer_kit.dataset_scripts.tasks.qdm_plan import write_link_parts
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import INDEX_SCHEMA, normalize_titles, write_index
from wikiformer_kit.dataset_scripts.tasks.see_also_join import crc32_of, write_title_parts

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


class CorpusStatsStep(BaselineStep):
    """Stage 1 of the baselines: PROP word counts, HARP passage index and anchors, per unit (see the module)."""

    name = "PROP counts + HARP passages and anchors"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.first_rows = first_rows(self.units)
        self.join_buckets, self.plan_buckets = join_sizes(self.units)

    def _columns(self) -> list[str]:
        """The corpus columns this stage reads for the requested baseline tasks."""
        columns = ["id", "title", "abstract", "is_disambiguation"]
        return (
            columns + (["sections"] if self.wants(PROP_TASKS) else []) + (["links"] if self.wants(HARP_TASKS) else [])
        )

    def process(self, rank: int, world_size: int) -> None:
        """Process this rank's units that are not done yet."""
        todo = [u for u in self.units[rank::world_size] if not self.layout.marker("baseline-stats", u.number).exists()]
        harp = todo and self.wants(HARP_TASKS)
        tokenizer = load_passage_tokenizer(self.harp.importance_model) if harp else None
        stopwords = load_stopwords(self.prop.stopwords or None)
        with rare_collections():
            for unit in tqdm(todo, desc=f"baseline statistics (rank {rank})", unit="unit"):
                self._unit(unit, stopwords, tokenizer)
                release_freed_memory()  # a worker runs hundreds of units: keep one unit's working set, not its peak
        if self.wants(HARP_TASKS):  # the title join's redirect parts (shared with LTM's, same layout)
            cut_redirect_files(self.layout, self.redirect_files, self.join_buckets, rank, world_size)

    def _unit(self, unit: Unit, stopwords: frozenset[str], tokenizer) -> None:
        table = read_unit_table(unit, self._columns())
        table = ARTICLE_SCHEMA.empty_table().select(self._columns()) if table is None else table
        marker: dict[str, Any] = {"articles": table.num_rows}
        columns = [table.column(c).to_pylist() for c in ("id", "title", "abstract", "is_disambiguation")]
        if self.wants(PROP_TASKS):
            marker["prop"] = self._prop(unit, table, columns, stopwords)
        if self.wants(HARP_TASKS):
            marker["harp"] = self._harp(unit, table, columns, tokenizer)
        write_json(marker, self.layout.marker("baseline-stats", unit.number))

    def _prop(self, unit: Unit, table: pa.Table, columns: list[list], stopwords: frozenset[str]) -> dict[str, int]:
        """The unit's word counts and its documents as the rows stage needs them (tokenised once, here); ``columns``:
        the unit's ids, titles, abstracts and disambiguation flags."""
        ids, titles, abstracts, disambiguation = columns
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
        atomic_write(self.files.documents(unit.number), lambda tmp: write_work_table(documents, tmp))
        return {"documents": tokens.documents, "words": int(tokens.cf.sum())}

    def _harp(self, unit: Unit, table: pa.Table, columns: list[list], tokenizer) -> dict[str, int]:
        """The unit's passage index shard, link records, titles cut into the title join's buckets and QDM link
        parts (``columns`` as :meth:`_prop`'s); returns the articles without links (counted)."""
        ids, titles, abstracts, disambiguation = columns
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
        atomic_write(self.files.passages(unit.number), lambda tmp: write_index(index, tmp))
        title_parts = self.layout.title_parts(unit.number, self.join_buckets)
        if not title_parts.exists():  # LTM's stage 1 writes the same file when LTM is built too
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
        links = pa.table(columns, schema=LINKS_SCHEMA)
        atomic_write(self.files.links(unit.number), lambda tmp: write_work_table(links, tmp))
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
        atomic_write(parts, lambda tmp: write_link_parts(keys, targets, ranks, self.plan_buckets, tmp, key_crcs))
        return {"article-without-links": int(np.count_nonzero(counts == 0))}
