"""The four datasets built from real whole pages of other Wikipedias (data/samples/wikipedia/other-languages):
words counted per script, no markup debris in any text, See also by name, no image page among the links."""

from __future__ import annotations

import pytest

from wikiformer_kit.benchmarks.languages import PAGES, build, debris, measure, write_dump

# each builds in a process of its own: end-to-end, marked slow
LANGUAGES = ("ja", "vi", "zh", "de", "ltg", "ru", "uk", "el")


WITHOUT_SEE_ALSO = {"el": ("Βερολίνο",)}  # the page has no See also section: none is found, nor guessed


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
    pages = len(list((PAGES / language).glob("*.wikitext"))) - len(WITHOUT_SEE_ALSO.get(language, ()))
    assert built[language]["see_also_by_name"] == pages and built[language]["see_also_by_structure"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("language", ["ja", "vi"])
def test_pages_without_spaces_or_with_short_words_give_rows_like_english_pages(built, language):
    # one page of a few hundred words: one SRR, RWI and ATI row each, as English pages of that length give
    result = built[language]
    for task in ("srr", "rwi", "ati"):
        assert sum(result["rows"][task].values()) >= 1, task


@pytest.mark.slow
@pytest.mark.parametrize("language", ["ru", "uk", "el"])
def test_long_cyrillic_and_greek_pages_give_rows_like_english_pages_of_their_length(built, language):
    # a page of about 3,100 words: English articles of 1,550 to 6,200 words give 3.2 SRR, 0.9 RWI and 0.9 ATI
    # rows each (benchmarks/languages.py)
    rows = {task: sum(built[language]["rows"][task].values()) for task in ("srr", "rwi", "ati")}
    assert 2 <= rows["srr"] <= 6 and rows["rwi"] == rows["ati"] == 1, rows


def test_the_debris_scan_sees_local_image_options_and_category_prefixes():
    assert debris("nhỏ|250px|trái|Một góc") and debris("Категорія:Народились 1944") and debris("a {| b")
    assert debris("Κατηγορία:Χ") and not debris("Plain text, with a colon: and a pipe")
    assert debris("мини|справа|250px|Подпись") and debris("Αρχείο:Berlin.svg|μικρογραφία|Χάρτης")
    assert debris("Зображення:Berlin.jpg") and debris("Εικόνα:X.png") and not debris("Файл: текстовый документ")
