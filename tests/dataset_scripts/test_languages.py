"""The four datasets built from real whole pages of other Wikipedias (data/samples/wikipedia/other-languages):
words counted per script, no markup debris in any text, See also by name, no image page among the links."""

from __future__ import annotations

import pytest

from bench.languages import PAGES, build, debris, measure, write_dump

LANGUAGES = ("ja", "vi", "zh", "de", "ltg")  # each builds in a process of its own: end-to-end, marked slow


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("languages")
    return {language: measure(build([write_dump(language, root)], root / language)) for language in LANGUAGES}


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_no_text_of_any_task_holds_markup_debris(built, language):
    assert built[language]["debris"] == []
    assert built[language]["image_links"] == []


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_see_also_is_found_by_name(built, language):
    pages = len(list((PAGES / language).glob("*.wikitext")))
    assert built[language]["see_also_by_name"] == pages and built[language]["see_also_by_structure"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("language", ["ja", "vi"])
def test_pages_without_spaces_or_with_short_words_give_rows_like_english_pages(built, language):
    # one page of a few hundred words: one SRR, RWI and ATI row each, as English pages of that length give
    result = built[language]
    for task in ("srr", "rwi", "ati"):
        assert sum(result["rows"][task].values()) >= 1, task


def test_the_debris_scan_sees_local_image_options_and_category_prefixes():
    assert debris("nhỏ|250px|trái|Một góc") and debris("Категорія:Народились 1944") and debris("a {| b")
    assert debris("Κατηγορία:Χ") and not debris("Plain text, with a colon: and a pipe")
