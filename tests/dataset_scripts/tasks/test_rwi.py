from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from wikiformer_kit.dataset_scripts.tasks.common import count_words, join_titles, node_text
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.rwi import rwi_groups

from .trees import article, articles, words

OPTIONS = st.builds(
    TaskOptions,
    min_words=st.integers(1, 6),
    max_words=st.sampled_from([0, 4, 50]),
    max_negatives=st.integers(1, 6),
    positives=st.sampled_from(["sample", "all"]),
)


@settings(max_examples=150, deadline=None)
@given(doc=articles(), options=OPTIONS, seed=st.integers(0, 10**6))
def test_rwi_rows_follow_the_paper(doc, options, seed):
    out = rwi_groups(doc, random.Random(seed), options)
    with_text = [i for i, s in enumerate(doc.sections) if count_words(s.text) >= options.min_words]
    nodes_used = []
    for row in out.groups:
        node = next(
            i
            for i in with_text
            if doc.sections[i].path == row["path"] and node_text(doc, i, options.max_words) == row["document"]
        )
        nodes_used.append(node)
        depth = doc.depth(node)
        assert row["positive"] == join_titles(row["path"]) and len(row["path"]) == depth + 1
        assert row["document"] and 1 <= len(row["negatives"]) <= options.max_negatives
        assert row["positive"] not in row["negatives"] and len(set(row["negatives"])) == len(row["negatives"])
        # each negative: the main title + the subtitles of `depth` other nodes of S (titles have no spaces here)
        available = Counter(doc.sections[i].title for i in with_text if i != node)
        for negative in row["negatives"]:
            parts = negative.split()
            assert parts[0] == doc.title and len(parts) == depth + 1
            assert not Counter(parts[1:]) - available
    if options.positives == "sample":
        assert len(out.groups) <= 1
    if doc.is_disambiguation or len(with_text) < 2:
        assert not out.groups
    if not out.groups:
        assert sum(out.skipped.values()) == 1


def test_rwi_by_hand():
    doc = article(
        "Mars",
        words(30, "lead"),
        [
            (2, "Geology", words(25, "geo")),
            (3, "Surface", words(25, "surf")),
            (2, "Moons", words(25, "moon")),
            (2, "Exploration", "short"),
        ],
    )
    rows = rwi_groups(doc, random.Random(0), TaskOptions(positives="all")).groups
    by_path = {tuple(r["path"]): r for r in rows}
    assert set(by_path) == {("Mars", "Geology"), ("Mars", "Geology", "Surface"), ("Mars", "Moons")}
    surface = by_path[("Mars", "Geology", "Surface")]
    assert surface["document"] == words(25, "surf") and surface["positive"] == "Mars Geology Surface"
    # two subtitles among the other nodes with text {Geology, Moons}: only "Mars Geology Moons" is possible
    assert surface["negatives"] == ["Mars Geology Moons"]
    assert sorted(by_path[("Mars", "Moons")]["negatives"]) == ["Mars Geology", "Mars Surface"]


def test_rwi_skips_an_article_with_one_section():
    doc = article("X", words(30, "a"), [(2, "Only", words(30, "b"))])
    assert rwi_groups(doc, random.Random(0), TaskOptions()).skipped == {"too-few-sections-with-text": 1}
