import bz2
import html
import json
import re
from pathlib import Path

import pytest

from wikiformer_kit.dataset_scripts.corpus.navigation import (
    CALENDAR,
    calendar_words,
    drop_navigation_lines,
    is_navigation_line,
    plain_line,
)
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext, strip_non_text

ROOT = Path(__file__).resolve().parents[3]
DATE_PAGE = ROOT / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "el-date-page" / "25 Μαρτίου.wikitext"
ENWIKI = ROOT / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "enwiki-sample.xml.bz2"


def test_greek_date_page_abstract_has_no_navigation_line():
    article = parse_wikitext("25 Μαρτίου", DATE_PAGE.read_text(encoding="utf-8"), language="el")
    assert article.abstract.startswith("H 25η Μαρτίου είναι η 84η ημέρα του έτους")
    assert "|" not in article.abstract and "24 Μαρτίου" not in article.abstract
    assert not [link for link in article.links if link.target in ("24 Μαρτίου", "26 Μαρτίου", "Μάρτιος")]
    assert article.sections[0].text.startswith("1 - Ευαγγελισμός της Θεοτόκου.")


def test_navigation_line_glued_to_the_opening_sentence_goes_alone():
    # a single line break renders as a space: the rendered paragraph would begin with the navigation line
    wikitext = DATE_PAGE.read_text(encoding="utf-8").replace("\n\nH 25η", "\nH 25η")
    article = parse_wikitext("25 Μαρτίου", wikitext, language="el")
    assert article.abstract.startswith("H 25η Μαρτίου")


@pytest.mark.parametrize(
    "line",
    [
        "24 Μαρτίου | 25 Μαρτίου | 26 Μαρτίου",
        "Ιανουάριος | Φεβρουάριος | Μάρτιος | Απρίλιος | Μάιος",
        "Ιανουάριος Φεβρουάριος Μάρτιος Απρίλιος Μάιος Ιούνιος Ιούλιος Αύγουστος Σεπτέμβριος Οκτώβριος Νοέμβριος "
        "Δεκέμβριος",
        "Berlin · Hamburg · München · Köln",
        "1 Μαρτίου, 2 Μαρτίου, 3 Μαρτίου",
    ],
)
def test_navigation_lines(line):
    assert is_navigation_line(line, "el")


@pytest.mark.parametrize(
    "line",
    [
        "H 25η Μαρτίου είναι η 84η ημέρα του έτους κατά το Γρηγοριανό Hμερολόγιο (85η σε δίσεκτα έτη).",
        "Στις 25 Μαρτίου, 26 Μαρτίου και 27 Μαρτίου έγιναν μάχες.",  # month names inside a sentence
        "A | B",  # two items: a choice, not a line of neighbours
        "Il·lustració · col·lecció",  # Catalan middle dots inside words are no separators
        "The first item is a long phrase of prose here | second | third",
        "Done. | Next. | Last.",
    ],
)
def test_not_navigation_lines(line):
    assert not is_navigation_line(line, "el")


def test_calendar_words_come_from_the_table_in_every_language():
    table = json.loads(CALENDAR.read_text(encoding="utf-8"))
    assert "CLDR" in table["source"]
    assert {"μαρτίου", "μάρτιος", "κυριακή", "march"} <= calendar_words("el")
    assert "березня" in calendar_words("uk") and "tháng" in calendar_words("vi")
    assert len(table["languages"]) >= 30


def test_plain_line_shows_link_text():
    assert plain_line("[[24 Μαρτίου]] | '''25 Μαρτίου''' | [[26 Μαρτίου|26]]") == "24 Μαρτίου | 25 Μαρτίου | 26"
    assert drop_navigation_lines("== Γεγονότα ==\ntext", "el") == ("== Γεγονότα ==\ntext", 0)


@pytest.mark.skipif(not ENWIKI.exists(), reason="the vendored enwiki sample is missing")
def test_english_sample_has_no_navigation_line():
    """The 106 English articles of the sample hold no line of short items or month names: none is cut."""
    text = bz2.open(ENWIKI, "rt", encoding="utf-8").read()
    pages = [html.unescape(page) for page in re.findall(r"<text[^>]*>(.*?)</text>", text, re.S)]
    assert len(pages) > 100
    assert sum(drop_navigation_lines(strip_non_text(page), "en")[1] for page in pages) == 0


@pytest.mark.parametrize(
    "wikitext",
    [
        "名詞句 ::= 名詞 | 形容詞 名詞 | 形容詞 名詞句",  # a grammar rule
        " S | NP | VP",  # a parse tree drawn in text
        "A | B | C | D",
    ],
)
def test_items_that_name_no_pages_stay(wikitext):
    text = f"Intro.\n{wikitext}\nMore."
    assert drop_navigation_lines(text, "ja") == (text, 0)


def test_a_long_line_of_linked_days_goes():
    # a month page's days: 31 links, far past the shown-text limit in wikitext, short once shown
    days = " | ".join(f"[[{day} Ιανουαρίου|{day}{'η' if day == 1 else ''}]]" for day in range(1, 32))
    assert len(days) > 600
    assert drop_navigation_lines(f"{days}\nΟ Ιανουάριος είναι ο πρώτος μήνας.", "el") == (
        "Ο Ιανουάριος είναι ο πρώτος μήνας.",
        1,
    )


def test_a_labelled_run_of_dates_goes():
    text = "Цей день в історії: [[24 серпня]]—[[25 серпня]]—[[26 серпня]]\n25 серпня — 237-й день року."
    assert drop_navigation_lines(text, "uk") == ("25 серпня — 237-й день року.", 1)


def test_a_list_of_links_in_a_section_is_content():
    # bn "গণিত" (bnwiki, 2023): the branches of mathematics, joined by bullets, in a body section
    line = ":[[গাণিতিক বিশ্লেষণ]] • [[বাস্তব বিশ্লেষণ]] • [[জটিল বিশ্লেষণ]] • [[ফাংশনাল এনালিসিস]] • [[বিশেষ ফাংশন]]"
    text = f"গণিত হলো ...\n\n== গণিতের শাখা ==\n{line}\nআরও"
    assert drop_navigation_lines(text, "bn") == (text, 0)
    assert drop_navigation_lines(f"{line}\nগণিত হলো ...", "bn") == ("গণিত হলো ...", 1)
