"""The pages on which a text rule or the parser once lost prose (``data/samples/wikipedia/rule-cases``), and
excerpts of larger real pages: each case keeps its text."""

from __future__ import annotations

from pathlib import Path

import mwparserfromhell
import pytest

from wikiformer_kit.dataset_scripts.corpus.broken_markup import contain_broken_markup, cut_broken_links
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext
from wikiformer_kit.dataset_scripts.tasks.common import end_matter

CASES = Path(__file__).resolve().parents[3] / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "rule-cases"


def _page(language: str, title: str):
    text = (CASES / language / f"{title}.wikitext").read_text(encoding="utf-8")
    return text, parse_wikitext(title, text, language=language)


def _headings(wikitext: str) -> list[str]:
    return [str(h.title).strip() for h in mwparserfromhell.parse(wikitext).filter_headings()]


def test_an_unclosed_ref_costs_only_its_tag():
    wikitext, article = _page("el", "Καρλ Μαρξ")
    assert len(article.sections) == len(_headings(wikitext)) == 18
    titles = [s.title for s in article.sections]
    assert "Πρωτογενείς πηγές" in titles and "Εξωτερικοί σύνδεσμοι" in titles


def test_a_biography_of_years_and_titles_is_no_reference_list():
    _, article = _page("ja", "村上もとか")
    removed = {article.sections[i].title for i in end_matter(article)}
    assert removed == {"脚注", "外部リンク"}
    biography = next(s for s in article.sections if s.title == "略歴")
    assert "『" in biography.text and len(biography.text) > 1000


def test_a_grammar_written_with_bars_stays():
    _, article = _page("ja", "形式言語")
    text = "\n".join(s.text for s in article.sections)
    assert "名詞句 ::= 名詞 | 形容詞 名詞 | 名詞句" in text and '名詞 ::= "猿" | "飼育員"' in text


def test_parse_trees_drawn_in_text_stay_whole_and_derivations_render():
    _, article = _page("ja", "文脈自由文法")
    text = "\n".join(s.text for s in article.sections)
    assert "Ｓ ／|＼ ／ | ＼ ／ | ＼ Ｓ '+' Ｓ ／|＼ | ／ | ＼ | Ｓ '+' Ｓ '1' | | '1' '1'" in text
    assert "S→S+S (1)" in text  # {{Indent|...}} shows its text


def test_a_deaths_list_with_birth_years_is_kept():
    _, article = _page("vi", "26 tháng 1")
    deaths = next(i for i, s in enumerate(article.sections) if s.title == "Mất")
    assert "(s. " in article.sections[deaths].text
    assert deaths not in end_matter(article)


# uk "Життя" (ukwiki, 2023-05-01 dump): a file link whose caption never closes, two headings before the next "]]"
LIFE = (
    "==== Онтогенез тварин ====\n"
    "[[Файл:Haeckel drawings.jpg|міні|праворуч|250пкс|Паралелізм у ембріональному розвитку усіх класів"
    "[[Хребетні|хребетних]]\n\nОнтогенез тварин включає такі стадії:\n\n"
    "1. '''Ембріональна'''&nbsp;— зародкова стадія, що триває з моменту утворення [[Зигота|зиготи]].\n\n"
    "== Філогенез ==\nФілогенез — історичний розвиток.\n\n"
    "== Класифікація живих організмів ==\nКласифікацією живих організмів називають [[Систематика|групування]]."
)
# el "Αυστρία" (elwiki, 2023-05-01 dump): an italic opened and never closed on its line
AUSTRIA = (
    "=== Κάρολος Α΄ ===\nΤο 1531 οι εκλέκτορες ''ενώθηκαν και εξέλεξε το Φερδινάνδο Βασιλιά των Ρωμαίων.\n\n"
    "==== Η άφιξη των Οθωμανών (1526-1562) ====\nΟι Οθωμανοί ''πολιόρκησαν'' τη Βιέννη.\n\n"
    "=== Μεταρρύθμιση ===\nΚείμενο."
)


@pytest.mark.parametrize("language, wikitext", [("uk", LIFE), ("el", AUSTRIA)])
def test_broken_markup_keeps_every_heading(language, wikitext):
    article = parse_wikitext("T", wikitext, language=language)
    assert [s.title for s in article.sections] == _headings(wikitext)
    assert all(s.text for s in article.sections)


def test_a_broken_link_costs_its_line_only():
    assert cut_broken_links("a [[File:x.jpg|thumb|cap\ntext\n== H ==\nb ]] c") == "a \ntext\n== H ==\nb ]] c"
    # a caption may hold blank lines: no heading, no cut
    caption = "[[File:x.jpg|thumb|legend\n\nmore]] after"
    assert cut_broken_links(caption) == caption


def test_balanced_quotes_are_left_to_the_tokenizer():
    assert contain_broken_markup("[''[[The Art of Being Right]]'']") == "[''[[The Art of Being Right]]'']"
    assert contain_broken_markup("''open\n== H ==") == "open\n== H =="
