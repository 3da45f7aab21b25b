from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from wikiformer_kit.dataset_scripts.corpus.article import ROOT
from wikiformer_kit.dataset_scripts.tasks.common import count_words, join_titles, node_text
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.srr import srr_groups

from .trees import article, articles, words

OPTIONS = st.builds(
    TaskOptions,
    min_words=st.integers(1, 6),
    max_words=st.sampled_from([0, 4, 50]),
    max_negatives=st.integers(1, 4),
    positives=st.sampled_from(["sample", "all"]),
)


def _text_children(doc, options):
    """parent -> children whose own text is long enough."""
    result: dict[int, list[int]] = {}
    for i, section in enumerate(doc.sections):
        if count_words(section.text) >= options.min_words:
            result.setdefault(section.parent, []).append(i)
    return result


def _sibling_texts(doc, kids, child, options):
    parent = doc.sections[child].parent
    return {node_text(doc, k, options.max_words) for k in kids.get(parent, []) if k != child}


@settings(max_examples=150, deadline=None)
@given(doc=articles(), options=OPTIONS, seed=st.integers(0, 10**6))
def test_srr_rows_follow_the_paper(doc, options, seed):
    out = srr_groups(doc, random.Random(seed), options)
    kids = _text_children(doc, options)
    parents_used = []
    for row in out.groups:
        # the positive is a child d_i of some F, the query its title path, the negatives its siblings' texts
        matches = [
            i
            for i, s in enumerate(doc.sections)
            if s.path == row["path"] and node_text(doc, i, options.max_words) == row["positive"]
        ]
        # (several sections may share a path and a text: one of them must fit)
        fitting = [c for c in matches if set(row["negatives"]) <= _sibling_texts(doc, kids, c, options)]
        assert fitting, row
        parent = doc.sections[fitting[0]].parent
        assert row["query"] == join_titles(row["path"]) and row["path"][0] == doc.title
        # eligibility counts the full text, before truncation to max_words
        assert any(count_words(doc.sections[c].text) >= options.min_words for c in fitting)
        assert count_words(row["positive"]) >= min(options.min_words, options.max_words)
        assert 1 <= len(row["negatives"]) <= options.max_negatives
        assert len(set(row["negatives"])) == len(row["negatives"])
        assert row["positive"] not in row["negatives"] and all(row["negatives"])
        assert row["article_id"] == doc.id and row["title"] == doc.title
        parents_used.append(parent)
    eligible = [p for p, children in kids.items() if len(children) >= 2]
    if doc.is_disambiguation:
        assert not out.groups and out.skipped["disambiguation"] == 1
    elif options.positives == "sample":
        assert len(parents_used) == len(set(parents_used))  # one row per F at most
    if not out.groups:
        assert sum(out.skipped.values()) >= 1
    if not doc.is_disambiguation and not eligible:
        assert not out.groups
    assert len({(r["query"], r["positive"]) for r in out.groups}) == len(out.groups)


@settings(max_examples=100, deadline=None)
@given(doc=articles(), options=OPTIONS, seed=st.integers(0, 10**6))
def test_srr_is_deterministic_in_the_rng(doc, options, seed):
    assert srr_groups(doc, random.Random(seed), options) == srr_groups(doc, random.Random(seed), options)


def _example():
    return article(
        "Mars",
        words(30, "lead"),
        [
            (2, "Geology", words(25, "geo")),
            (3, "Surface", words(25, "surf")),
            (3, "Interior", words(25, "inner")),
            (3, "Volcanoes", "too short"),
            (2, "Moons", words(25, "moon")),
            (2, "Exploration", ""),
            (3, "Rovers", words(25, "rover")),
        ],
    )


def test_srr_paper_variant_by_hand():
    doc = _example()
    options = TaskOptions(positives="all")
    rows = srr_groups(doc, random.Random(0), options).groups
    by_path = {tuple(r["path"]): r for r in rows}
    # root's text children: Geology, Moons (Exploration has no text); Geology's: Surface, Interior (Volcanoes too
    # short); Exploration has a single child, so no row
    assert set(by_path) == {
        ("Mars", "Geology"),
        ("Mars", "Moons"),
        ("Mars", "Geology", "Surface"),
        ("Mars", "Geology", "Interior"),
    }
    surface = by_path[("Mars", "Geology", "Surface")]
    assert surface["query"] == "Mars Geology Surface"
    assert surface["positive"] == words(25, "surf") and surface["negatives"] == [words(25, "inner")]
    assert by_path[("Mars", "Geology")]["negatives"] == [words(25, "moon")]
    sampled = srr_groups(doc, random.Random(0), TaskOptions()).groups
    assert len(sampled) == 2 and {len(r["path"]) for r in sampled} == {2, 3}


def test_srr_duplicate_sibling_texts_are_not_negatives():
    doc = article("X", "", [(2, "A", words(25, "same")), (2, "B", words(25, "same"))])
    out = srr_groups(doc, random.Random(0), TaskOptions(positives="all"))
    assert out.groups == [] and out.skipped == {"no-parent-with-two-text-children": 1}


def test_srr_truncates_and_caps():
    headings = [(2, f"S{i}", words(100, f"w{i}_")) for i in range(30)]
    rows = srr_groups(article("Big", "", headings), random.Random(1), TaskOptions(max_words=10, max_negatives=5)).groups
    assert len(rows) == 1
    assert count_words(rows[0]["positive"]) == 10 and len(rows[0]["negatives"]) == 5
    assert all(count_words(n) == 10 for n in rows[0]["negatives"])


def test_srr_original_variant():
    headings = [
        (2, "Intro", words(25, "a")),
        (2, "Body", words(25, "b")),
        (3, "Detail", words(25, "c")),
        (4, "Fine", words(5, "d")),  # deepest level, but not long
        (3, "More", words(25, "e")),
        (2, "End", words(25, "f")),
    ]
    doc = article("T", words(30, "lead"), headings)
    row = srr_groups(doc, random.Random(0), TaskOptions(srr_variant="original")).groups[0]
    # max level is 4, so levels 3 and 4 qualify; the first long one is "Detail"; negatives = all other long ones
    assert row["path"] == ["T", "Body", "Detail"] and row["query"] == "T Body Detail"
    assert row["negatives"] == [words(25, x) for x in "abef"]
    few = article("T", "", headings[:5])
    assert srr_groups(few, random.Random(0), TaskOptions(srr_variant="original")).skipped == {
        "original:5-sections-or-fewer": 1
    }


def test_root_children_are_top_level_sections():
    doc = _example()
    assert [doc.sections[i].title for i in doc.children(ROOT)] == ["Geology", "Moons", "Exploration"]
