"""Categories of Enterprise HTML records: the category links written in the page (not those its templates or
MediaWiki add: hidden and tracking categories), the record's own ``categories`` list where the HTML has none, on
the vendored real records (English, German, Russian, Arabic)."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from tests.conftest import SAMPLES
from tests.dataset_scripts.corpus.formats.markup import split_records
from tests.dataset_scripts.corpus.formats.test_enterprise_html import DUMP, OPTIONS, records
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.extract import _namespaces
from wikiformer_kit.dataset_scripts.corpus.formats import enterprise_html
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext

ARABIC = SAMPLES / "enterprise" / "arwiki_namespace_0_0.ndjson.gz"
WRITTEN_CATEGORY_LINK = re.compile(r'<link rel="mw:PageProp/Category" href="\./[^":]+:([^"#]+)[^"]*" id="[^"]+"/>')


@pytest.fixture(scope="module")
def articles() -> dict[str, Article]:
    found, skipped, _ = split_records([*enterprise_html.read(DUMP, OPTIONS), *enterprise_html.read(ARABIC, OPTIONS)])
    assert skipped == []
    return {f"{article.language}:{article.title}": article for article in found}


def test_every_category_link_written_in_the_page_is_recorded_once_without_namespace_or_sort_key(articles):
    arabic = json.loads(gzip.decompress(ARABIC.read_bytes()))
    for key, record in [*records().items(), ("arwiki:" + arabic["name"], arabic)]:
        language = key.split(":")[0].removesuffix("wiki")
        written = [m.replace("_", " ") for m in WRITTEN_CATEGORY_LINK.findall(record["article_body"]["html"])]
        expected = list(dict.fromkeys(re.sub("%20", " ", name) for name in written))
        assert articles[f"{language}:{record['name']}"].categories == expected, key
    assert articles["ar:رياضيات"].categories == [
        "رياضيات",
        "تصنيف المواضيع الرئيسية",
        "علوم شكلية",
        "مصطلحات رياضياتية",
    ]
    assert "رياضيات" in articles["ar:رياضيات"].categories  # ./تصنيف:رياضيات#*: the sort key dropped


def test_tracking_and_template_categories_are_left_out(articles):
    clark = articles["en:William Clark (inventor)"].categories
    assert "Use dmy dates from November 2021" not in clark and "AC with 0 elements" not in clark  # templates'
    assert "Human name disambiguation pages" not in articles["en:Mike Potts"].categories  # {{hndis}}'s
    assert articles["en:Mike Potts"].is_disambiguation and articles["de:Squirrel"].is_disambiguation
    russian = articles["ru:Squirrel"].categories
    assert "ПРО:ИТ:Статьи по алфавиту" not in russian  # a project's tracking category
    assert "Википедия:Страницы с ежедневно очищаемым кэшем" not in russian  # MediaWiki's own: no id, no about
    assert not any("مقالات متعلقة" in name for name in articles["ar:رياضيات"].categories)  # Portal:…/related articles


def test_the_html_and_the_wikitext_give_the_same_categories(articles):
    record = records()["enwiki:William Clark (inventor)"]
    from_wikitext = parse_wikitext(record["name"], record["article_body"]["wikitext"]).categories
    assert from_wikitext == ["1821 births", "1880 deaths", "English civil engineers", "19th-century British inventors",
                             "Alumni of King's College London", "Associates of King's College"]  # fmt: skip
    assert articles["en:William Clark (inventor)"].categories == from_wikitext

    russian = records()["ruwiki:Squirrel"]
    wikitext = parse_wikitext(russian["name"], russian["article_body"]["wikitext"], language="ru",
                              namespaces=_namespaces((), "ru")).categories  # fmt: skip
    assert wikitext == ["Скриптовые языки", "Свободные библиотеки программ"]
    assert articles["ru:Squirrel"].categories == wikitext


def test_the_records_own_list_is_used_for_what_the_html_lacks():
    record = records()["ruwiki:Squirrel"]
    record["article_body"]["html"] = re.sub(
        r'<link rel="mw:PageProp/Category"[^>]*>', "", record["article_body"]["html"]
    )
    record["categories"].append({"name": "Категория:Скриптовые языки"})  # a repeat: kept once
    found, skipped, _ = split_records(enterprise_html.parse_record(json.dumps(record).encode(), "f", "line 1", OPTIONS))
    assert skipped == []
    assert found[0].categories == [
        "Свободные библиотеки программ", "Википедия:Страницы с ежедневно очищаемым кэшем",
        "Языки программирования по алфавиту", "Языки программирования, появившиеся в 2003 году",
        "ПРО:ИТ:Статьи по алфавиту", "ПРО:ИТ:Последняя правка: в текущем году", "Скриптовые языки",
    ]  # fmt: skip
