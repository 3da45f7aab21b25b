from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from wikiformer_kit.dataset_scripts.tasks.ati import ati_groups
from wikiformer_kit.dataset_scripts.tasks.common import count_words, truncate_words
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions

from .trees import article, articles, words


@settings(max_examples=150, deadline=None)
@given(doc=articles(), min_words=st.integers(1, 6), max_negatives=st.integers(1, 4), seed=st.integers(0, 99))
def test_ati_rows_follow_the_paper(doc, min_words, max_negatives, seed):
    options = TaskOptions(min_words=min_words, max_negatives=max_negatives)
    out = ati_groups(doc, random.Random(seed), options)
    assert len(out.groups) + sum(out.skipped.values()) == 1
    section_texts = {s.text.strip() for s in doc.sections if count_words(s.text) >= min_words}
    for row in out.groups:
        assert row["query"] == doc.title and row["positive"] == truncate_words(doc.abstract, options.max_words)
        assert count_words(doc.abstract) >= min_words and not doc.is_disambiguation
        assert 1 <= len(row["negatives"]) <= max_negatives and set(row["negatives"]) <= section_texts
        assert row["positive"] not in row["negatives"] and len(set(row["negatives"])) == len(row["negatives"])


def test_ati_by_hand():
    doc = article("Mars", words(30, "lead"), [(2, "Geology", words(25, "geo")), (2, "Empty", ""), (2, "Moons", "x")])
    (row,) = ati_groups(doc, random.Random(0), TaskOptions()).groups
    assert row == {
        "query": "Mars",
        "positive": words(30, "lead"),
        "negatives": [words(25, "geo")],
        "article_id": "1",
        "title": "Mars",
    }
    short = article("Mars", "A planet.", [(2, "Geology", words(25, "geo"))])
    assert ati_groups(short, random.Random(0), TaskOptions()).skipped == {"short-abstract": 1}
    lonely = article("Mars", words(30, "lead"), [(2, "Copy", words(30, "lead"))])
    assert ati_groups(lonely, random.Random(0), TaskOptions()).skipped == {"no-section-with-text": 1}


def test_ati_counts_words_of_scripts_without_spaces_as_bert_splits_them():
    abstract = "東京都は日本の首都であり、関東地方に位置する都市である。人口は約千四百万人。"
    section = "江戸時代には徳川幕府が置かれ、明治維新の後に東京と改称された。" * 2
    doc = article("東京都", abstract, [(2, "歴史", section)])
    (row,) = ati_groups(doc, random.Random(0), TaskOptions()).groups
    assert row["positive"] == abstract and row["negatives"] == [section]
    capped = ati_groups(doc, random.Random(0), TaskOptions(max_words=5)).groups[0]
    assert capped["positive"] == "東京都は日"  # 東 京 都 は 日
