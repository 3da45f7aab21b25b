"""Disambiguation pages are recognised from the page in any language."""

import re

import pytest

from tests.conftest import SAMPLES
from wikiformer_kit.dataset_scripts.corpus.disambiguation import TEMPLATES, disambiguation_patterns, is_disambiguation
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext

# the Latgalian Wikipedia's page "Roksts" (CC BY-SA 3.0), a disambiguation page by its local template
ROKSTS = """Vuords '''roksts''' tur nazcik zeimeibu:
* [[Roksts (raksteiba)|Roksts]] — raksteiba;
* [[Roksts (musturs)|Roksts]] — musturs;
* [[Roksts (lauleibys registraceja)|Roksts]] — lauleibys registraceja.

{{Zeimeibu škiršona}}"""


def test_a_latgalian_disambiguation_page_is_one():
    assert parse_wikitext("Roksts", ROKSTS, language="ltg").is_disambiguation
    assert not parse_wikitext("Roksts", ROKSTS.replace("{{Zeimeibu škiršona}}", ""), language="ltg").is_disambiguation


@pytest.mark.parametrize(
    ("language", "wikitext"),
    [
        ("uk", "{{Неоднозначність}}"),
        ("uk", "[[Категорія:Багатозначні терміни]]"),
        ("ja", "{{aimai}}"),
        ("ja", "{{曖昧さ回避}}"),
        ("zh", "{{消歧義}}"),
        ("vi", "{{Trang định hướng}}"),
        ("el", "{{Αποσαφήνιση}}"),
        ("ru", "{{неоднозначность|тип=}}"),
        ("xx", "__DISAMBIG__"),
        ("xx", "{{Disambiguation}}"),
    ],
)
def test_local_templates_categories_and_the_magic_word(language, wikitext):
    assert is_disambiguation("Text.\n" + wikitext, language)


def test_a_language_s_names_do_not_apply_to_another():
    assert is_disambiguation("{{Dp}}", "nl") and not is_disambiguation("{{Dp}}", "en")
    largest = "en ceb de fr sv nl ru es it pl arz zh ja uk vi war ar pt fa ca id sr ko no ce fi tr hu cs tt".split()
    assert not [code for code in largest if code != "en" and code not in TEMPLATES]


@pytest.mark.parametrize(("language", "dump"), [("en", "enwiki-sample.xml.bz2"), ("ltg", "ltgwiki-sample.xml.bz2")])
def test_the_patterns_searched_apart_say_what_their_alternation_says(language, dump):
    patterns = disambiguation_patterns(language, ("category", "kategoreja"))
    assert len(patterns) == (3 if language == "ltg" else 2)
    together = re.compile("|".join(p.pattern for p in patterns), re.I)
    pages = [
        r.wikitext
        for r in mediawiki_xml.read_raw(SAMPLES / "wikipedia" / dump, ReaderOptions())
        if hasattr(r, "wikitext")
    ]
    pages += [
        "{{ DAB }}",
        "__disambig__",
        "[[Kategoreja : Zeimeibu_škiršona|x]]",
        "{{dabble}}",
        "[[kategoreja:Zeimeibu]]",
    ]
    said = [any(p.search(page) for p in patterns) for page in pages]
    assert said == [together.search(page) is not None for page in pages]
    assert any(said) and not all(said)
