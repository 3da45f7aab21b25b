"""Hatnotes out of section texts: the templates of real pages leave no words, hand-written notes go."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.extract import read_articles
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.hatnotes import HATNOTE_TEMPLATES, drop_hatnote_lines
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext, strip_non_text

PAGES = Path(__file__).resolve().parents[3] / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "other-languages"
_TEMPLATE = re.compile(r"^\{\{([^|{}]+)\|([^|{}]+)\}\}$", re.M)


def is_hatnote_template(name: str) -> bool:
    """Whether a template name (any language of HATNOTE_TEMPLATES) is a hatnote's."""
    key = " ".join(name.replace("_", " ").split()).casefold()
    return any(key in names for names in HATNOTE_TEMPLATES.values())


@pytest.mark.parametrize(
    ("language", "title", "names"),
    [
        ("de", "Mozilla Firefox", {"hauptartikel"}),
        ("ru", "Литва", {"главная", "main"}),
        ("el", "Βερολίνο", {"κύριο"}),
        ("uk", "Берлін", {"main"}),
    ],
)
def test_hatnote_templates_of_real_pages_leave_no_words(language, title, names):
    wikitext = (PAGES / language / f"{title}.wikitext").read_text(encoding="utf-8")
    hatnotes = [(n.strip(), t.strip()) for n, t in _TEMPLATE.findall(wikitext) if n.strip().casefold() in names]
    assert hatnotes and all(is_hatnote_template(name) for name, _ in hatnotes)
    article = parse_wikitext(
        title, wikitext, language=language, namespaces=ENGLISH.with_aliases(namespace_names(language))
    )
    for _, target in hatnotes:
        assert not any(section.text.startswith(target) for section in article.sections), target


def test_hand_written_see_also_line_of_the_english_sample_goes(enwiki_sample):
    article = next(
        a
        for a in read_articles(mediawiki_xml, enwiki_sample)
        if isinstance(a, Article) and a.title == "Analysis of variance"
    )
    assert not any("See also Lack-of-fit" in section.text for section in article.sections)
    assert not any(
        link.target == "Lack-of-fit sum of squares" and link.sentence.startswith("See also") for link in article.links
    )


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("uk", ":''Див. також [[Періодична система елементів]]''"),
        ("uk", "Див. також: [[Періодична система елементів]]."),
        ("el", ":''Κύριο λήμμα: [[Συνθήκη της Λωζάνης]]''"),
        ("el", "<div>''Κύριο λήμμα'': [[Συνθήκη της Λωζάνης]]</div>"),
        ("vi", ": ''Bài chính: [[Lịch sử Los Angeles]]''"),
        ("vi", "Xem thêm: [[Lịch sử Los Angeles]], [[Los Angeles]] và [[California]]"),
        ("en", "''Main article: [[History of Alabama]]''"),
        ("ja", ":詳細は「[[上海軌道交通]]」を参照"),
        ("ltg", ":''Golvonais rakstīņs: [[Latgolys geografeja]].''"),
        ("ltg", "''Golvanīs rakstīņs [[Latgolys viesture]]''"),
        ("ltg", "''Golvonais rakstīņs: [[Magmatiskī plīkšni]]''."),
    ],
)
def test_hand_written_hatnote_lines_go(language, line):
    wikitext = f"{line}\nΜετά τη συνθήκη, η χώρα."
    assert drop_hatnote_lines(wikitext, language) == ("\nΜετά τη συνθήκη, η χώρα.", 1)


def test_italic_hatnote_glued_to_its_paragraph_goes_alone():
    wikitext = "''Κύριο λήμμα: [[Συνθήκη της Λωζάνης]]'' Μετά τη [[Συνθήκη της Λωζάνης|συνθήκη]], η χώρα."
    text, count = drop_hatnote_lines(wikitext, "el")
    assert count == 1 and text == "Μετά τη [[Συνθήκη της Λωζάνης|συνθήκη]], η χώρα."
    article = parse_wikitext("Ελλάδα", "Intro.\n== Ιστορία ==\n" + wikitext, language="el")
    assert article.sections[0].text == "Μετά τη συνθήκη, η χώρα."


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("uk", "Див. також [[Періодична система елементів]] та її історію, що описано нижче."),
        ("en", "See the [[Moon]] rise."),
        ("el", "Δείτε ότι ο [[Δίας]] είναι πλανήτης."),
        ("ltg", "Golvonais rakstīņs par [[Latgola|Latgolu]] ir pyrmais."),
    ],
)
def test_prose_that_opens_with_the_words_stays(language, line):
    assert drop_hatnote_lines(line, language) == (line, 0)


def test_hatnote_templates_are_cut_without_their_words():
    for template in ("{{Main|History of X}}", "{{Див. також|Періодична система елементів}}",
                     "{{Κύριο λήμμα|Συνθήκη της Λωζάνης}}", "{{Bài chính|Lịch sử Los Angeles}}"):  # fmt: skip
        name = template[2:].split("|")[0]
        assert is_hatnote_template(name)
        assert strip_non_text(template + "\nText.") == "\nText."


def test_indented_italic_note_goes_whole():
    # the English sample's Algorithm: an indented note in italics whose link is followed by more words
    line = ":''See also: [[Software patents]] for a general overview of the patentability of software, including"
    line += " computer-implemented algorithms.''"
    assert drop_hatnote_lines(line + "\nText.", "en") == ("\nText.", 1)


def test_italic_words_then_colon_of_the_english_sample_go():
    # the English sample's Anatomy: the words and their colon in italics, the link after them
    line = "''Main article:'' [[Bibliography of biology#Anatomy|Bibliography of anatomy]]"
    assert drop_hatnote_lines(line, "en") == ("", 1)


@pytest.mark.parametrize(
    "language, wikitext, left",
    [
        # uk "Польща": "in the articles:", its italic left open to the end of the line, or closed after the words
        (
            "uk",
            "=== Геологія ===\n''Докладніше в статтях: [[Геологія Польщі]], [[Корисні копалини Польщі]]\n"
            "На території Польщі стикаються три підрозділи:",
            "=== Геологія ===\n\nНа території Польщі стикаються три підрозділи:",
        ),
        ("uk", "Текст.\n''Докладніше в статтях:'' [[Гідрогеологія Польщі]]\nРічки.", "Текст.\n\nРічки."),
        # vi "Alcohol": an indented note in italics opening the page, in words no table lists ("this article is about")
        (
            "vi",
            ":''Bài này viết về rượu nhìn theo phương diện [[hóa học]]. Trong Wikipedia tiếng Việt còn có bài viết "
            "về [[thức uống có cồn|các loại thức uống có chứa cồn]] và [[ethanol|cồn (ethanol)]].''\n\n"
            "'''Alcohol''' là một [[hợp chất hữu cơ]].",
            "\n\n'''Alcohol''' là một [[hợp chất hữu cơ]].",
        ),
    ],
)
def test_hatnotes_of_other_words_and_places(language, wikitext, left):
    assert drop_hatnote_lines(wikitext, language) == (left, 1)


def test_an_indented_quotation_in_the_body_stays():
    text = "Intro.\n: ''To be, or not to be, that is the [[question]]''\nMore."
    assert drop_hatnote_lines(text, "en") == (text, 0)


@pytest.mark.parametrize(
    "language, line",
    [
        ("hy", "Հիմնական հոդվածը՝ [[Էրեբունի օդանավակայան]]"),  # hy "Հայաստան" (hywiki, 2023)
        ("hy", "Տես նաև՝ [[Մոսկվայի ֆուտբոլային մարզադաշտերի ցանկ]]"),
        ("bn", "মূল নিবন্ধ: [[হিন্দু উৎসব]]"),  # bn "হিন্দুধর্ম" (bnwiki, 2023)
    ],
)
def test_armenian_and_bengali_hatnotes(language, line):
    assert drop_hatnote_lines(f"{line}\nText.", language) == ("\nText.", 1)
