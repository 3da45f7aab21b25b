"""The shared article builder: whitespace, link spans and sentences, See also, empty documents."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikiformer_kit.dataset_scripts.corpus.formats._builder import ArticleBuilder, link_target, plain_suffix
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Skipped


@pytest.mark.parametrize(
    ("href", "target"),
    [
        ("https://en.wikipedia.org/wiki/Albert_Einstein#Life", "Albert Einstein"),
        ("/wiki/C%2B%2B", "C++"),
        ("./Mars_(planet)", "Mars (planet)"),
        ("#section-2", "#section-2"),
        ("docs/Other%20Page.md", "docs/Other Page.md"),
        ("https://example.org/wiki/Page", "https://example.org/wiki/Page"),
    ],
)
def test_link_target(href, target):
    assert link_target(href) == target


def test_plain_suffix():
    assert plain_suffix(Path("page.HTML.gz")) == ".html" and plain_suffix(Path("notes.md")) == ".md"


def build(headings, options: ReaderOptions | None = None, abstract: str = "Lead."):
    builder = ArticleBuilder("7", "Doc", "test", "doc.txt", options or ReaderOptions())
    builder.text(abstract)
    for level, title, parts in headings:
        builder.heading(level, title)
        for part in parts:
            if isinstance(part, tuple):
                builder.link(*part)
            else:
                builder.text(part)
    return builder.build()


def test_text_whitespace_and_link_spans():
    builder = ArticleBuilder("1", "T", "test", "f", ReaderOptions())
    builder.text("  A  first\n\tline ")
    builder.link("Target", "  the   anchor ")
    builder.text(" . ")
    builder.paragraph_break()
    builder.paragraph_break()
    builder.text("Second paragraph with ")
    builder.link("", "no target")
    builder.link("Empty anchor", "")
    builder.text(".")
    article = builder.build()
    assert article.abstract == "A first line the anchor .\nSecond paragraph with no target."
    assert [(link.target, link.anchor, link.sentence) for link in article.links] == [
        ("Target", "the anchor", "A first line the anchor ."),
        ("Empty anchor", "", "Second paragraph with no target."),
    ]


def test_see_also_in_any_case_spacing_language_and_subsections():
    headings = [
        (2, "History", ["See ", ("Other", "other"), "."]),
        (2, "  SEE   also: ", [("A", "A"), " ", ("B", "B"), " ", ("A", "A again")]),
        (3, "More", [("C", "C")]),
        (2, "Notes", [("D", "D")]),
    ]
    assert build(headings).see_also == ["A", "B", "C"]
    latgalian = [(2, "Verīs taipoš", [("Rēzekne", "Rēzekne")])]
    assert build(latgalian).see_also == []
    assert build(latgalian, ReaderOptions(language="ltg")).see_also == ["Rēzekne"]
    assert build(latgalian, ReaderOptions(see_also_titles=("verīs taipoš",))).see_also == ["Rēzekne"]


def test_empty_document_is_a_skip_with_the_record():
    skipped = build([(2, "Only heading", [])], abstract="  \n ")
    assert isinstance(skipped, Skipped)
    assert (skipped.reason, skipped.file, skipped.record) == ("empty", "doc.txt", "7 (Doc)")
    article = build([(2, "Heading", [])], abstract="Lead.")
    assert article.sections[0].text == "" and article.abstract == "Lead."


WORDS = st.text(alphabet=st.sampled_from("ab .!?\n\tXY"), max_size=12)
OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("text"), WORDS),
        st.tuples(st.just("link"), st.sampled_from(["T1", "T2"]), WORDS),
        st.tuples(st.just("break")),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(OPERATIONS)
def test_any_sequence_gives_clean_text_and_sentences_that_hold_their_anchor(operations):
    builder = ArticleBuilder("1", "T", "test", "f", ReaderOptions())
    for operation in operations:
        if operation[0] == "text":
            builder.text(operation[1])
        elif operation[0] == "link":
            builder.link(operation[1], operation[2])
        else:
            builder.paragraph_break()
    article = builder.build()
    if isinstance(article, Skipped):
        assert not "".join(op[-1] for op in operations if op[0] != "break").split()
        return
    for line in article.abstract.split("\n"):
        assert line and line == line.strip() and "  " not in line and "\t" not in line
    for link in article.links:
        assert link.anchor in link.sentence and link.sentence in article.abstract
