"""Categories from wikitext: ``[[Category:Name|sort key]]`` under the Category namespace's names and aliases of the
page's language and of the dump's ``<siteinfo>``, on real pages (the English and Latgalian sample dumps, pages of
other Wikipedias)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ENWIKI_SAMPLE, SAMPLES
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.extract import _namespaces, parse_page
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.formats.base import RawPage, ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
from wikiformer_kit.dataset_scripts.corpus.titles import CATEGORY_KEY, ENGLISH
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext

PAGES = SAMPLES / "wikipedia" / "other-languages"
LTGWIKI_SAMPLE = SAMPLES / "wikipedia" / "ltgwiki-sample.xml.bz2"
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def page(language: str, title: str) -> Article:
    text = (PAGES / language / f"{title}.wikitext").read_text(encoding="utf-8")
    return parse_wikitext(title, text, language=language, namespaces=_namespaces((), language))


def written_categories(wikitext: str, names: list[str]) -> list[str]:
    """The category links of a page as a plain pattern finds them (no colon link, no comment), each once."""
    prefixes = "|".join(re.escape(name) for name in names)
    pattern = re.compile(rf"\[\[\s*(?:{prefixes})\s*:([^\]|]*)(?:\|[^\]]*)?\]\]", re.I)
    found = (" ".join(m.group(1).replace("_", " ").split()) for m in pattern.finditer(_COMMENT.sub("", wikitext)))
    return list(dict.fromkeys(name[:1].upper() + name[1:] for name in found))


@pytest.mark.parametrize(
    ("dump", "names"),
    [(ENWIKI_SAMPLE, ["Category"]), (LTGWIKI_SAMPLE, list(namespace_names("ltg")[CATEGORY_KEY]))],
)
def test_every_category_link_of_a_sample_dump_is_recorded(dump: Path, names: list[str]):
    pages = [record for record in mediawiki_xml.read_raw(dump, ReaderOptions()) if isinstance(record, RawPage)]
    recorded = 0
    for raw in pages:
        article = parse_page(raw)
        if isinstance(article, Article):
            assert article.categories == written_categories(raw.wikitext, names), raw.title
            recorded += len(article.categories)
    assert recorded > len(pages) // 2  # most pages have one or more


def test_sort_keys_are_dropped_and_colon_links_stay_links_in_the_text():
    pages = {r.title: r for r in mediawiki_xml.read_raw(ENWIKI_SAMPLE, ReaderOptions()) if isinstance(r, RawPage)}
    lincoln = parse_page(pages["Abraham Lincoln"])
    assert "[[Category:Lincoln family|Abraham]]" in pages["Abraham Lincoln"].wikitext
    assert "Lincoln family" in lincoln.categories and "Abraham Lincoln" in lincoln.categories  # "| " sort key too
    pointer = next(r for r in pages.values() if "[[:Category:Derelict satellites" in r.wikitext)
    article = parse_page(pointer)
    assert "Derelict satellites in heliocentric orbit" not in article.categories
    assert "third stage became a derelict object" in " ".join(article.text.split())  # the colon link's words stay


@pytest.mark.parametrize(
    ("language", "title", "expected"),
    [
        ("ru", "Литва", ["Литва"]),  # [[Категория:Литва| ]]; [[:Категория:Газеты Литвы]] is a link in the text
        ("ja", "上海軌道交通3号線", ["上海軌道交通", "中国の地下鉄路線"]),  # [[Category:上海軌道交通|路03]]
        ("de", "Mozilla Firefox", ["Mozilla", "Freier Webbrowser", "Unix-Software", "Linux-Software",
                                   "MacOS-Software", "OS/2-Software", "Windows-Software", "Solaris-Software",
                                   "BeOS-Software", "Fuchs als Namensgeber"]),
        ("el", "Βερολίνο", ["Βερολίνο", "Διοργανώτριες πόλεις Θερινών Ολυμπιακών Αγώνων", "Πρωτεύουσες της Ευρώπης",
                             "Πόλεις της Γερμανίας"]),
        ("vi", "VIQR", ["Mã kí tự", "Kiểu gõ chữ Việt"]),  # Thể loại:, two words
        ("zh", "电信级NAT", ["网络协议", "网络地址转换", "互联网协议"]),  # [[Category:X|Category:X]]
    ],
)  # fmt: skip
def test_localised_category_namespaces(language: str, title: str, expected: list[str]):
    assert page(language, title).categories == expected


def test_a_namespace_name_only_the_dump_gives_is_read_from_its_siteinfo():
    title = "Latgolys doba"
    text = (PAGES / "ltg" / f"{title}.wikitext").read_text(encoding="utf-8")
    assert parse_wikitext(title, text, language="ltg", namespaces=ENGLISH).categories == []
    siteinfo = ENGLISH.with_names({14: "Kategoreja", 6: "Fails"})
    assert parse_wikitext(title, text, language="ltg", namespaces=siteinfo).categories == [
        "Doba", "Latgolys doba", "Latgolys dobys pīminiekli"
    ]  # fmt: skip
    assert parse_wikitext(title, text, language="ltg", namespaces=siteinfo).text == page("ltg", title).text


def test_categories_do_not_change_the_text():
    text = (PAGES / "ru" / "Литва.wikitext").read_text(encoding="utf-8")
    with_names = page("ru", "Литва")
    without = parse_wikitext("Литва", re.sub(r"\[\[Категория:[^\]]*\]\]", "", text), language="ru",
                             namespaces=_namespaces((), "ru"))  # fmt: skip
    assert with_names.text == without.text and without.categories == []


def test_an_xml_dump_s_siteinfo_names_the_category_namespace_of_a_language_the_table_lacks(tmp_path):
    from xml.sax.saxutils import escape

    from wikiformer_kit.dataset_scripts.corpus.extract import read_articles

    title = "Latgolys doba"
    text = escape((PAGES / "ltg" / f"{title}.wikitext").read_text(encoding="utf-8"))
    found = {}
    for name in ("Kategoreja", ""):  # a dump of language "zzz" whose siteinfo names namespace 14, or does not
        dump = tmp_path / f"named-{bool(name)}.xml"
        dump.write_text(
            '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"><siteinfo><dbname>zzzwiki</dbname>'
            f'<namespaces><namespace key="14" case="first-letter">{name}</namespace></namespaces></siteinfo>'
            f"<page><title>{title}</title><ns>0</ns><id>7</id><revision><text>{text}</text></revision></page>"
            "</mediawiki>",
            encoding="utf-8",
        )
        (found[name],) = [a for a in read_articles(mediawiki_xml, dump) if isinstance(a, Article)]
    assert found["Kategoreja"].language == "zzz"
    assert found["Kategoreja"].categories == ["Doba", "Latgolys doba", "Latgolys dobys pīminiekli"]
    assert found[""].categories == []
