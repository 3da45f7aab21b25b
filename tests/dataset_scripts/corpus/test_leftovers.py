"""Markup left as text, on the real pages it was found on where the samples hold them; link prefixes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.extract import read_articles
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.formats._parsoid import math_text
from wikiformer_kit.dataset_scripts.corpus.leftovers import cut_braced_tags, formula_text, strip_stray_tags
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH, classify_link, shown_title
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext

LTGWIKI = (
    Path(__file__).resolve().parents[3] / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "ltgwiki-sample.xml.bz2"
)
_TAG = re.compile(r"</?(?:div|span|table|tr|td|th|li|font|onlyinclude|i)\b[^<>]*>")


@pytest.fixture(scope="module")
def ltgwiki() -> dict[str, Article]:
    return {a.title: a for a in read_articles(mediawiki_xml, LTGWIKI) if isinstance(a, Article)}


def _texts(article: Article) -> list[str]:
    return [article.abstract, *(section.text for section in article.sections)]


def test_hand_written_html_table_rows_leave_no_tags(ltgwiki):
    """Spanīšu volūda (ltg) opens with a table of HTML rows the tokenizer cannot pair: 29 tags were text."""
    article = ltgwiki["Spanīšu volūda"]
    assert not any(_TAG.search(text) for text in _texts(article))
    # its tables are never closed with "|}": the lines that open them are attributes, not text
    assert not any("cellpadding" in text or "align=" in text for text in _texts(article))
    assert "Spanīšu volūda aba kastilīšu volūda" in article.abstract
    assert not any(_TAG.search(text) for a in ltgwiki.values() for text in _texts(a))


@pytest.mark.parametrize(
    "leftover",
    ["</div>", '<table class="wikitable"><tr>', "</onlyinclude>", "<li>", '<i id="mwAiw">', "</span>", "<br/>"],
)
def test_stray_tags_of_the_issue_go(leftover):
    assert strip_stray_tags(f"Перед {leftover}після").split() == ["Перед", "після"]


def test_comparisons_and_code_that_look_like_tags_stay():
    assert strip_stray_tags("java Zipf <n> and a < b > c") == "java Zipf <n> and a < b > c"


def test_braces_of_a_formula_inside_a_table_do_not_close_it():
    # the rows of the Ukrainian Електрон's table of properties leaked after a <math> holding "}}"
    wikitext = (
        'Intro.\n== Властивості ==\n{| class="wikitable"\n|-\n!Характеристика !! Значення\n|-\n'
        "|Інваріантна маса електрона |align=center|<math>\\frac{1}{\\sqrt{2}}</math>\n|-\n"
        "|Заряд||align=center|<math>e^{-}}}</math>\n|}\nЕлектрон має заряд."
    )
    article = parse_wikitext("Електрон", wikitext, language="uk")
    assert article.sections[0].text == "Електрон має заряд."
    escaped = "a <math>x^&#123;2&#125;&#125;</math> b <chem>H2O</chem> <score/>"
    assert cut_braced_tags("a <math>x^{2}}</math> b <chem>H2O</chem> <score>\\relative c' { c }</score>") == escaped


def test_a_formula_that_opens_a_line_keeps_the_line_as_it_was():
    # the English sample's Ambiguity: "<math>...</math>; however" is no definition list with the formula in place
    wikitext = "should be written as\n<math>~f(\\omega)=\\frac{1}{\\sqrt{2\\pi}}</math>; however, it is assumed"
    abstract = parse_wikitext("Ambiguity", wikitext).abstract
    assert abstract == "should be written as ~f(\\omega)=\\frac{1}{\\sqrt{2\\pi} }; however, it is assumed"


def test_a_formula_is_its_tex_source_as_the_html_reader_writes_it():
    # a hole where a formula was ("the area is .") tells a reader less than its source; the Enterprise HTML reader
    # writes MathML's alt text, so both readers give one text
    wikitext = (
        'The circle\'s area is <math display="inline">A = \\pi r^{2}</math>, and\n'
        "<math>\\left\\{ x \\mid x^{2} < 2 \\right\\}}</math>\nis a set; water is <chem>H2O</chem>."
    )
    abstract = parse_wikitext("Circle", wikitext).abstract
    assert abstract == (
        "The circle's area is A = \\pi r^{2}, and \\left\\{ x \\mid x^{2} < 2 \\right\\} } is a set; water is H2O."
    )
    assert formula_text(cut_braced_tags("<math>x^{{2}}</math>")[6:-7]) == "x^{ {2} }"
    alt = {"alttext": "{\\displaystyle x^{{2}}}"}
    assert math_text(HTMLParser("<span></span>").css_first("span"), alt) == "x^{ {2} }"


def test_interwiki_prefixes_are_no_article_links(enwiki_sample, ltgwiki):
    for prefix in ("w:Charles Lyell", "W:Charles Lyell", "Wikispecies:Homo sapiens", "Incubator:Wp/xx", "c:File:X"):
        assert classify_link(prefix) == "other", prefix
    aristotle = next(
        a for a in read_articles(mediawiki_xml, enwiki_sample) if isinstance(a, Article) and a.title == "Aristotle"
    )
    assert "Charles Lyell's" in aristotle.text
    assert not [link for link in aristotle.links if link.target.startswith("W:")]
    assert not [link for a in ltgwiki.values() for link in a.links if link.target.split(":")[0] in ("W", "C")]


@pytest.mark.parametrize(
    ("link", "shown"),
    [
        ("[[:Category:宮崎県の企業|]]", "宮崎県の企業"),  # a colon link's text: its title without the namespace
        ("[[:Thể loại:Phông chữ|]]", "Phông chữ"),
        ("[[:Tập tin:Times New Roman.png|]]", ""),  # a file shown as a link: no words
        ("[[w:Charles Lyell|]]", "Charles Lyell"),  # the pipe trick
        ("[[w:Charles Lyell]]", "w:Charles Lyell"),  # as MediaWiki shows it, but no article link
        ("[[:Category:宮崎県の企業|宮崎県の企業一覧]]", "宮崎県の企業一覧"),
    ],
)
def test_text_of_namespaced_links(link, shown):
    namespaces = ENGLISH.with_aliases(namespace_names("vi"))
    article = parse_wikitext("T", f"Xem {link} nữa.", language="vi", namespaces=namespaces)
    assert article.abstract == " ".join(p for p in ("Xem", shown, "nữa.") if p)
    assert shown_title("Tập tin:Times New Roman.png", namespaces) == ""
