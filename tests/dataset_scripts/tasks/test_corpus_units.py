"""Reading a unit's list-of-struct columns field by field, as the corpus's objects would give them."""

from __future__ import annotations

import pyarrow as pa

from dataset_scripts.corpus.article import ARTICLE_SCHEMA, Article, Link, Section
from dataset_scripts.tasks.corpus_units import list_fields

ARTICLES = [
    Article(
        "1",
        "A",
        links=[Link("B", "b", "See b.", -1), Link("C", "c", "And c.", 0)],
        sections=[Section("S", 2, "x", ["A", "S"])],
    ),
    Article("2", "B"),
    Article("3", "C", links=[Link("A", "a", "a!", 1)]),
]


def test_list_fields_match_the_articles_even_for_a_slice():
    table = pa.Table.from_pylist([a.to_dict() for a in ARTICLES], schema=ARTICLE_SCHEMA)
    links = list_fields(table.column("links"), "section", "sentence", "anchor", "target")
    assert links == [[(k.section, k.sentence, k.anchor, k.target) for k in a.links] for a in ARTICLES]
    assert list_fields(table.column("sections"), "text") == [["x"], [], []]
    sliced = table.slice(1, 2)  # a unit inside a row group: offsets do not start at 0
    assert list_fields(sliced.column("links"), "target") == [[], ["A"]]
