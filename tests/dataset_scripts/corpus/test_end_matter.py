"""End matter by name in the largest Wikipedias' languages, and reference lists of any name, on real pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.end_matter import (
    END_MATTER_TITLES,
    end_matter_names,
    is_end_matter,
    is_reference_line,
    is_reference_list,
    reference_list_sections,
)
from wikiformer_kit.dataset_scripts.corpus.extract import read_articles
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext
from wikiformer_kit.dataset_scripts.tasks.common import END_MATTER_SKIP, REFERENCE_LIST_SKIP, task_rng
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.srr import srr_groups

PAGES = Path(__file__).resolve().parents[3] / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "other-languages"
LARGEST = (
    "en ceb de fr sv nl ru es it pl arz zh ja uk vi war ar pt fa ca id sr ko no ce fi tr hu cs tt"
).split()  # the 30 largest Wikipedias by articles


@pytest.fixture(scope="module")
def enwiki(enwiki_sample) -> dict[str, Article]:
    return {a.title: a for a in read_articles(mediawiki_xml, enwiki_sample) if isinstance(a, Article)}


def _page(language: str, title: str) -> Article:
    text = (PAGES / language / f"{title}.wikitext").read_text(encoding="utf-8")
    namespaces = ENGLISH.with_aliases(namespace_names(language))
    return parse_wikitext(title, text, language=language, namespaces=namespaces)


def test_every_large_wikipedia_and_bulgarian_have_names():
    assert set(LARGEST) | {"bg", "el"} <= set(END_MATTER_TITLES)


@pytest.mark.parametrize(
    ("language", "heading"),
    [
        ("el", "Προτεινόμενη βιβλιογραφία"),
        ("el", "Επιπλέον βιβλιογραφία"),
        ("el", "Περαιτέρω ανάγνωση"),
        ("el", "Σύνδεσμοι"),
        ("el", "Χρήσιμοι εξωτερικοί σύνδεσμοι"),
        ("el", "Άλλες πηγές"),
        ("ja", "関連文献"),
        ("ja", "関連書籍"),
        ("ja", "日本語文献"),
        ("vi", "Liên kết bên ngoài"),
        ("vi", "Sách tham khảo"),
        ("vi", "Nguồn tham khảo"),
        ("bg", "Източници"),
        ("bg", "Външни препратки"),
        ("bg", "Бележки"),
        ("bg", "Литература"),
    ],
)
def test_names_of_the_issue(language, heading):
    assert is_end_matter(["Title", heading], end_matter_names(language))


def test_vendored_pages_end_matter_is_found_by_name():
    berlin = _page("el", "Βερολίνο")
    names = end_matter_names("el")
    assert [s.title for s in berlin.sections if is_end_matter(s.path, names)] == ["Παραπομπές", "Εξωτερικοί σύνδεσμοι"]
    viqr = _page("vi", "VIQR")
    names = end_matter_names("vi")
    assert {"Tham khảo", "Liên kết ngoài"} <= {s.title for s in viqr.sections if is_end_matter(s.path, names)}


def test_reference_lines():
    assert is_reference_line("ISBN 0-451-51679-6 (paperback, 1956, Signet Classic)")
    assert is_reference_line("Иванов И. И. История Литвы. — М.: Наука, 1985. — 300 с.")
    assert is_reference_line("Berlin.de – Das offizielle Hauptstadtportal")
    assert not is_reference_line("In 1999, the city, which had grown, became the capital: it was rebuilt.")
    assert not is_reference_line("Academy Honorary Award: since 1929")


def test_reference_lists_of_other_names_on_the_english_sample(enwiki):
    found = {
        (title, article.sections[i].title)
        for title, article in enwiki.items()
        for i in reference_list_sections(article, set())
        if not is_end_matter(article.sections[i].path, end_matter_names("en"))
    }
    # a book list and a list of editions (ISBNs), a list of videos with their releases, a table's source lines
    assert ("Alain Connes", "Books") in found and ("Animal Farm", "Editions") in found
    assert found == {
        ("Alabama", "Population centers"),
        ("Alain Connes", "Books"),
        ("Andre Agassi", "Video"),
        ("Animal Farm", "Editions"),
    }
    prose = enwiki["Albedo"].sections[0].text
    assert not is_reference_list(prose)


def test_reference_lists_are_counted_apart(enwiki):
    article = enwiki["Animal Farm"]
    options = TaskOptions()
    out = srr_groups(article, task_rng(options.seed, "srr", article.id), options)
    editions = article.sections[[s.title for s in article.sections].index("Editions")].text
    assert out.skipped[REFERENCE_LIST_SKIP] >= 1 and out.skipped[END_MATTER_SKIP] >= 1
    assert all(editions not in (row["positive"], *row["negatives"]) for row in out.groups)
