"""Category names from link targets and category titles, with the Category namespace's names per language."""

from __future__ import annotations

from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH, category_from_title, category_name, classify_link


def test_a_category_link_target_gives_the_name_as_mediawiki_normalises_it():
    assert category_name("Category:1821_births") == "1821 births"
    assert category_name(" category : english  civil_engineers ") == "English civil engineers"
    assert category_name("Category:Alumni of King&#39;s College London") == "Alumni of King's College London"


def test_other_namespaces_and_colon_links_are_no_categories():
    assert category_name(":Category:Derelict satellites in heliocentric orbit") == ""
    assert category_name("File:Thing.png") == ""
    assert category_name("Categoryless article") == ""
    assert classify_link(":Category:X") == "other"  # a link shown in the text, as before


def test_every_name_and_alias_of_the_category_namespace_of_a_language():
    japanese = ENGLISH.with_aliases(namespace_names("ja"))
    assert category_name("カテゴリ:中国の地下鉄路線", japanese) == "中国の地下鉄路線"
    assert category_name("Category:中国の地下鉄路線", japanese) == "中国の地下鉄路線"
    chinese = ENGLISH.with_aliases(namespace_names("zh"))
    assert category_name("分類:网络协议", chinese) == category_name("分类:网络协议", chinese) == "网络协议"
    assert category_name("Категория:Литва", ENGLISH) == ""  # the Russian name only with the Russian table
    assert category_name("Категория:Литва", ENGLISH.with_aliases(namespace_names("ru"))) == "Литва"
    assert "kategoreja" in ENGLISH.with_names({14: "Kategoreja", 6: "Fails"}).category
    assert "fails" not in ENGLISH.with_names({14: "Kategoreja", 6: "Fails"}).category


def test_a_category_title_loses_its_namespace_whatever_the_language():
    assert category_from_title("Kategorie:Begriffsklärung") == "Begriffsklärung"
    assert category_from_title("Категория:ПРО:ИТ:Статьи_по_алфавиту") == "ПРО:ИТ:Статьи по алфавиту"
    assert category_from_title("تصنيف:رياضيات#*") == "رياضيات"
    assert category_from_title("Category:Human_name_disambiguation_pages#Potts,%20Mike") == (
        "Human name disambiguation pages"
    )
    assert category_from_title("No namespace") == ""
