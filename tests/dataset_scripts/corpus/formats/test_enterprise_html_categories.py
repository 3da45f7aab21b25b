"""Categories of Enterprise HTML records: Parsoid's category links (template-added ones included), the record's own
``categories`` list, on the vendored real records (English, German, Russian, Arabic)."""

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
CATEGORY_LINK = re.compile(r'<link rel="mw:PageProp/Category" href="\./[^":]+:([^"#]+)')


@pytest.fixture(scope="module")
def articles() -> dict[str, Article]:
    found, skipped, _ = split_records([*enterprise_html.read(DUMP, OPTIONS), *enterprise_html.read(ARABIC, OPTIONS)])
    assert skipped == []
    return {f"{article.language}:{article.title}": article for article in found}


def test_every_category_link_of_the_html_is_recorded_once_without_namespace_or_sort_key(articles):
    arabic = json.loads(gzip.decompress(ARABIC.read_bytes()))
    for key, record in [*records().items(), ("arwiki:" + arabic["name"], arabic)]:
        language = key.split(":")[0].removesuffix("wiki")
        written = [m.replace("_", " ") for m in CATEGORY_LINK.findall(record["article_body"]["html"])]
        expected = list(dict.fromkeys(re.sub("%20", " ", name) for name in written))
        assert articles[f"{language}:{record['name']}"].categories == expected, key
    # the Arabic page links one category twice (two templates add it): recorded once
    assert articles["ar:رياضيات"].categories.count("Webarchive template wayback links") == 1


def test_sort_keys_and_localised_namespaces_are_dropped_and_colons_in_names_kept(articles):
    assert "Human name disambiguation pages" in articles["en:Mike Potts"].categories  # href ...#Potts,%20Mike
    assert articles["de:Squirrel"].categories == ["Begriffsklärung"]  # ./Kategorie:Begriffsklärung
    russian = articles["ru:Squirrel"].categories
    assert "Скриптовые языки" in russian and "ПРО:ИТ:Статьи по алфавиту" in russian  # Категория: stripped once
    assert "رياضيات" in articles["ar:رياضيات"].categories  # ./تصنيف:رياضيات#*
    assert not any(":" in name for name in articles["en:William Clark (inventor)"].categories)


def test_the_html_has_the_categories_templates_add_that_the_wikitext_lacks(articles):
    record = records()["enwiki:William Clark (inventor)"]
    from_wikitext = parse_wikitext(record["name"], record["article_body"]["wikitext"]).categories
    from_html = articles["en:William Clark (inventor)"].categories
    assert from_wikitext == ["1821 births", "1880 deaths", "English civil engineers", "19th-century British inventors",
                             "Alumni of King's College London", "Associates of King's College"]  # fmt: skip
    assert set(from_wikitext) < set(from_html)
    assert "Use dmy dates from November 2021" in from_html  # added by {{Use dmy dates}}
    assert "Use dmy dates from November 2021" not in from_wikitext

    russian = records()["ruwiki:Squirrel"]
    wikitext = parse_wikitext(russian["name"], russian["article_body"]["wikitext"], language="ru",
                              namespaces=_namespaces((), "ru")).categories  # fmt: skip
    assert wikitext == ["Скриптовые языки", "Свободные библиотеки программ"]
    assert set(wikitext) < set(articles["ru:Squirrel"].categories)


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
