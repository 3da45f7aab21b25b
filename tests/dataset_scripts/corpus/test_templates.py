"""Inline templates rendered as text, and the debris of removed templates cleaned: by hand and on real articles."""

from __future__ import annotations

import pytest

from wikiformer_kit.dataset_scripts.corpus.extract import read_articles
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.templates import RENDERERS, render_template, template_name
from wikiformer_kit.dataset_scripts.corpus.wikitext import _DEBRIS, clean_debris, parse_wikitext, strip_non_text


def debris_count(text: str) -> int:
    """How many pieces of template debris (see clean_debris) ``text`` holds."""
    return sum(len(pattern.findall(text)) for pattern, _ in _DEBRIS)


@pytest.fixture(scope="module")
def sample(enwiki_sample):
    return {a.title: a for a in read_articles(mediawiki_xml, enwiki_sample) if hasattr(a, "sections")}


@pytest.mark.parametrize(
    ("wikitext", "text"),
    [
        ("{{convert|5|km|mi}}", "5 km"),
        ("{{convert|1|to|2|km|mi|abbr=on}}", "1 to 2 km"),
        ("{{convert|10|-|12|m}}", "10–12 m"),
        ("{{lang|grc|ἄγαλμα}}", "ἄγαλμα"),
        ("{{lang-grc|ἄγαλμα}}", "ἄγαλμα"),
        ("{{Nowrap|10 May}}", "10 May"),
        ("{{nobr|[[Foo]] bar}}", "[[Foo]] bar"),
        ("{{val|1.23|e=5|u=m}}", "1.23×10^5 m"),
        ("{{start date|1990|5|1}}", "1 May 1990"),
        ("{{date|2001-02-03}}", "2001-02-03"),
        ("{{as of|2010|lc=y}}", "as of 2010"),
        ("{{nihongo|Tokyo|東京|Tōkyō}}", "Tokyo (東京, Tōkyō)"),
        ("{{frac|1|2}}", "1/2"),
        ("{{lang|grc|{{linktext|ἄνθρωπος}}}}", "ἄνθρωπος"),
        ("{{HMS|Victory}}", "HMS Victory"),
    ],
)
def test_inline_templates_render(wikitext, text):
    assert strip_non_text(wikitext) == text


def test_other_templates_are_still_removed():
    assert strip_non_text("a{{cite book|title=X}}b{{Infobox|x={{convert|1|m}}}}c") == "abc"
    assert render_template("{{cite web|url=x}}", strip_non_text) is None


def test_the_table_is_extensible(monkeypatch):
    monkeypatch.setitem(RENDERERS, "my template", lambda positional, named: positional[0].upper())
    assert template_name("{{My_Template |x}}") == "my template"
    assert strip_non_text("say {{my template|hi}}") == "say HI"


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ('a statue is "delight" (, agalma)', 'a statue is "delight" (agalma)'),
        ("Algae (; singular alga ) is", "Algae (singular alga) is"),
        ("Azerbaijan , officially", "Azerbaijan, officially"),
        ("the phoneme in ways: , , , and more", "the phoneme in ways: and more"),
        ("empty () and [ ; ] brackets", "empty and brackets"),
        ("quoted [...] and (?) stay, e.g., as (☫) does", "quoted [...] and (?) stay, e.g., as (☫) does"),
    ],
)
def test_debris_is_cleaned(text, clean):
    assert clean_debris(text) == clean
    assert debris_count(clean) == 0


def test_real_articles_render_by_hand(sample):
    # checked by hand against the live articles' rendering
    anthropology = sample["Anthropology"].text
    assert 'ánthrōpos (ἄνθρωπος, "human") and lógos (λόγος, "study")' in anthropology
    apollo = sample["Apollo"].text
    assert 'Acraephius (ə-KREE-fee-əs; Ἀκραιφιος, Akraiphios, literally "Acraephian")' in apollo
    assert sample["Algae"].abstract.startswith("Algae (singular alga) is an informal term")
    assert "the angle of cos−1(−1/3) ≈ 109.47° between them" in sample["Alkane"].text
    assert sample["Azerbaijan"].abstract.startswith("Azerbaijan (AZ-ər-by-JAHN; Azərbaycan ɑzærbɑjdʒɑn), officially")


def test_no_debris_in_the_sample(sample):
    texts = [t for a in sample.values() for t in [a.abstract, *(s.text for s in a.sections)]]
    assert len(texts) > 1000
    assert sum(debris_count(t) for t in texts) == 0


def test_debris_counted_before_cleaning():
    assert debris_count('"delight" (, agalma) and Azerbaijan , officially') == 2
    assert parse_wikitext("X", "'''X''' ({{IPAc-en|x}}; {{lang|grc|ξ}}) is.").abstract == "X (ξ) is."
