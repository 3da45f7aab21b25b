"""MediaWiki XML dumps: the real enwiki sample, other real samples when present, and bad input."""

from __future__ import annotations

import bz2
import html
import re
from collections import Counter

import pytest

from tests.conftest import shared_data
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.extract import read_articles
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.formats.base import Redirect, Skipped
from wikiformer_kit.dataset_scripts.corpus.sources import detect_format

LEFTOVER = re.compile(r"\{\{|\}\}|\[\[|\]\]|'''|<ref|\{\||\|\}")
HEADING = re.compile(r"^(={2,6})\s*(.+?)\s*\1\s*$", re.M)


def read_all(path):
    records = list(read_articles(mediawiki_xml, path))
    articles = {r.title: r for r in records if isinstance(r, Article)}
    return records, articles


@pytest.fixture(scope="module")
def enwiki(enwiki_sample):
    return read_all(enwiki_sample)


def raw_pages(path):
    text = bz2.open(path).read().decode()
    pages = re.findall(r"<title>(.*?)</title>.*?<text[^>]*>(.*?)</text>", text, re.S)
    return {title: html.unescape(wikitext) for title, wikitext in pages}


def assert_no_leftover_markup(article: Article):
    fields = [article.title, article.abstract]
    fields += [s.text for s in article.sections] + [s.title for s in article.sections]
    fields += [link.anchor for link in article.links] + [link.sentence for link in article.links]
    for field in fields:
        assert not LEFTOVER.search(field), (article.title, LEFTOVER.search(field).group(), field[:200])


def test_counts_on_the_enwiki_sample(enwiki):
    records, articles = enwiki
    kinds = Counter(type(r).__name__ for r in records)
    assert len(articles) == 106
    assert kinds["Redirect"] == 99
    assert [r.reason for r in records if isinstance(r, Skipped)] == ["not-article-namespace"]
    assert sum(bool(a.see_also) for a in articles.values()) == 78
    for article in articles.values():
        assert article.source == "mediawiki-xml" and article.language == "en"
        assert article.url == "https://en.wikipedia.org/wiki/" + article.title.replace(" ", "_")


def test_every_see_also_section_gives_targets(enwiki, enwiki_sample):
    _, articles = enwiki
    with_section = {a.title for a in articles.values() if any(s.title.lower() == "see also" for s in a.sections)}
    assert len(with_section) == 78
    assert all(articles[title].see_also for title in with_section)


@pytest.mark.parametrize("title", ["Anarchism", "Autism", "Albedo", "Aristotle", "Abraham Lincoln"])
def test_sections_match_the_wikitext_headings(enwiki, enwiki_sample, title):
    _, articles = enwiki
    wikitext = re.sub(r"<!--.*?-->", "", raw_pages(enwiki_sample)[title], flags=re.S)
    expected = [
        (len(marks), re.sub(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]|'''?", r"\1", name))
        for marks, name in HEADING.findall(wikitext)
    ]
    assert [(s.level, s.title) for s in articles[title].sections] == expected
    for section in articles[title].sections:
        parent_path = [title] if section.parent == -1 else articles[title].sections[section.parent].path
        assert section.path == parent_path + [section.title]


def test_albedo_by_hand(enwiki):
    albedo = enwiki[1]["Albedo"]
    assert albedo.abstract.startswith("Albedo or reflection coefficient, derived from Latin albedo")
    assert [s.path[1:] for s in albedo.sections[:3]] == [
        ["Terrestrial albedo"],
        ["Terrestrial albedo", "White-sky and black-sky albedo"],
        ["Astronomical albedo"],
    ]
    assert albedo.see_also == [
        "Cool roof", "Daisyworld", "Emissivity", "Global dimming", "Irradiance", "Polar see-saw",
        "Solar radiation management",
    ]  # fmt: skip
    latin = next(link for link in albedo.links if link.target == "Latin")
    assert latin.anchor == "Latin" and latin.section == -1 and "derived from Latin albedo" in latin.sentence


def test_redirects_are_a_title_map(enwiki):
    records, _ = enwiki
    redirects = {r.source: r.target for r in records if isinstance(r, Redirect)}
    assert redirects["AccessibleComputing"] == "Computer accessibility"


def test_every_link_sentence_holds_its_anchor_and_keeps_initials_together(enwiki):
    links = [(article.title, link) for article in enwiki[1].values() for link in article.links]
    assert len(links) > 20_000
    assert [(title, link.anchor) for title, link in links if link.anchor not in link.sentence] == []
    bell = next(link for title, link in links if title == "Abraham Lincoln" and link.anchor == "John Bell")
    assert (
        bell.sentence.startswith("On November 6, 1860, Lincoln was elected")
        and "Stephen A. Douglas, John C." in bell.sentence
    )


def test_no_leftover_markup_in_the_vendored_sample(enwiki):
    for article in enwiki[1].values():
        assert_no_leftover_markup(article)


@pytest.mark.parametrize(
    "relative",
    [
        "wikipedia/enwiki_gensim_sample/enwiki-table-markup.xml.bz2",
        "wikipedia/enwiki_dbpedia_minidump/enwiki-minidump.xml.bz2",
        "wikipedia/ltgwiki_sample/smallwiki-latest-pages-articles.xml",
    ],
)
def test_no_leftover_markup_in_other_real_dumps(relative):
    records, articles = read_all(shared_data(relative))
    assert articles
    for article in articles.values():
        assert_no_leftover_markup(article)


def test_latgalian_see_also_and_namespaces():
    records, articles = read_all(shared_data("wikipedia/ltgwiki_sample/smallwiki-latest-pages-articles.xml"))
    skipped = Counter(r.reason for r in records if isinstance(r, Skipped))
    assert len(articles) + skipped["no-text"] == 903
    assert all(a.language == "ltg" for a in articles.values())
    with_section = [a for a in articles.values() if any(s.title == "Verīs taipoš" for s in a.sections)]
    assert len(with_section) > 100
    assert sum(bool(a.see_also) for a in articles.values()) >= 25
    # localised category links (Kategoreja:) are never See also targets
    assert not any(t.startswith("Kategoreja:") for a in articles.values() for t in a.see_also)


# --- bad input -------------------------------------------------------------------------------------------


def test_truncated_bz2_keeps_what_was_read_and_says_where(enwiki_sample, tmp_path):
    data = enwiki_sample.read_bytes()
    cut = tmp_path / "cut.xml.bz2"
    cut.write_bytes(data[: len(data) // 2])
    records = list(read_articles(mediawiki_xml, cut))
    assert 20 < sum(isinstance(r, Article) for r in records) < 106
    last = records[-1]
    assert isinstance(last, Skipped) and last.reason == "truncated-file" and last.file == str(cut)
    assert "after page" in last.record


SITE = '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"><siteinfo><dbname>enwiki</dbname></siteinfo>'


def page(title, text, ns=0):
    return f"<page><title>{title}</title><ns>{ns}</ns><id>1</id><revision><text>{text}</text></revision></page>"


def test_malformed_xml_names_file_and_last_page(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text(
        SITE + page("Good", "Fine text.") + "<page><title>Broken</title><ns>0</ns><revision><text>x</revision>"
    )
    records = list(read_articles(mediawiki_xml, path))
    assert isinstance(records[0], Article) and records[0].title == "Good"
    assert records[-1].reason == "malformed-xml" and "'Good'" in records[-1].record and records[-1].file == str(path)


def test_bytes_that_are_not_utf8_are_replaced_not_fatal(tmp_path):
    path = tmp_path / "latin1.xml"
    path.write_bytes(
        (SITE + page("Café", "Caf\u00e9 au lait. ")).encode()
        + b"\xff\xfe"
        + (page("Next", "Ok.") + "</mediawiki>").encode()
    )
    path.write_bytes(path.read_bytes().replace("Caf\u00e9 au".encode(), b"Caf\xe9 au"))
    records = list(read_articles(mediawiki_xml, path))
    assert [r.title for r in records] == ["Café", "Next"]
    assert "\ufffd" in records[0].abstract


def test_empty_pages_and_other_namespaces_are_counted(tmp_path):
    path = tmp_path / "mixed.xml"
    path.write_text(
        SITE + page("Empty", "  ") + page("Talk:X", "t", ns=1) + page("Only template", "{{stub}}") + "</mediawiki>"
    )
    reasons = [r.reason for r in read_articles(mediawiki_xml, path)]
    assert reasons == ["empty", "not-article-namespace", "no-text"]


def test_a_5mb_article_parses(tmp_path, enwiki_sample):
    wikitext = raw_pages(enwiki_sample)["Anarchism"]
    body = "\n".join(wikitext for _ in range(5_000_000 // len(wikitext) + 1))
    path = tmp_path / "big.xml"
    path.write_text(SITE + page("Big", html.escape(body)) + "</mediawiki>")
    (article,) = read_articles(mediawiki_xml, path)
    assert len(article.text) > 1_000_000 and len(article.sections) > 100
    assert_no_leftover_markup(article)


# --- encodings -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "declaration"),
    [("utf-16", ""), ("utf-16-le", '<?xml version="1.0" encoding="UTF-16"?>\n'), ("utf-16-be", "")],
)
def test_utf16_dump_of_the_vendored_sample_reads_as_the_utf8_one(
    enwiki, enwiki_sample, tmp_path, encoding, declaration
):
    # "utf-16" writes a byte-order mark; the other two have none and are found from "<" as two bytes
    text = bz2.open(enwiki_sample).read().decode()
    path = tmp_path / "enwiki-utf16.xml.bz2"
    path.write_bytes(bz2.compress((declaration + text).encode(encoding)))
    assert detect_format(path) is mediawiki_xml
    records, articles = read_all(path)
    _, expected = enwiki
    assert list(articles) == list(expected)
    assert all(articles[t].to_dict() == expected[t].to_dict() for t in ["Albedo", "Anarchism"])
    assert [r.reason for r in records if isinstance(r, Skipped)] == ["not-article-namespace"]


def test_a_declared_8bit_encoding_is_decoded_by_the_parser(tmp_path):
    path = tmp_path / "latin1.xml"
    path.write_bytes(
        ('<?xml version="1.0" encoding="ISO-8859-1"?>\n' + SITE + page("Café", "Un café. ") + "</mediawiki>").encode(
            "latin-1"
        )
    )
    assert mediawiki_xml.sniff(path, path.read_bytes()[:4096])
    (article,) = read_articles(mediawiki_xml, path)
    assert article.title == "Café" and article.abstract == "Un café."
