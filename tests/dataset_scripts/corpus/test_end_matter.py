"""End matter by name in the largest Wikipedias' languages, and reference lists of any name, on real pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikiformer_kit.dataset_scripts.corpus.article import Article, Section
from wikiformer_kit.dataset_scripts.corpus.end_matter import (
    END_MATTER_TITLES,
    end_matter_by_name,
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
        # th Berlin (the dbpedia minidump): its external links were an SRR and ATI negative
        ("th", "แหล่งข้อมูลอื่น"),
        ("th", "อ้างอิง"),
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
    names = end_matter_names("en")
    found = {
        (title, article.sections[i].title)
        for title, article in enwiki.items()
        for i in reference_list_sections(article, end_matter_by_name(article, names))
    }
    # at the foot of the article: a book list and a list of editions (ISBNs); the videos in the body stay
    assert found == {("Alain Connes", "Books"), ("Animal Farm", "Editions")}
    prose = enwiki["Albedo"].sections[0].text
    assert not is_reference_list(prose)


def test_reference_lists_are_counted_apart(enwiki):
    article = enwiki["Animal Farm"]
    options = TaskOptions()
    out = srr_groups(article, task_rng(options.seed, "srr", article.id), options)
    editions = article.sections[[s.title for s in article.sections].index("Editions")].text
    assert out.skipped[REFERENCE_LIST_SKIP] >= 1 and out.skipped[END_MATTER_SKIP] >= 1
    assert all(editions not in (row["positive"], *row["negatives"]) for row in out.groups)


@pytest.mark.parametrize(
    "line",
    [
        # a biography's years and the works it names in 『』
        "1972年、『燃えて走れ!』でデビュー。1985年、『風を抜け!』で講談社漫画賞を受賞。",
        # a date page's deaths: "(s. 1732)" is "born 1732", no page
        "1799 – George Washington, tổng thống Hoa Kỳ (s. 1732)",
        # prose about addresses
        "Nhiều trang web có tên miền bắt đầu bằng www, chẳng hạn www.example.com, vì theo truyền thống máy chủ web "
        "của một tổ chức được đặt tên là www; ngày nay tiền tố này không còn bắt buộc, và nhiều trang bỏ nó đi, "
        "như example.org hay wikipedia.org, mà trình duyệt vẫn tìm thấy trang đúng như trước.",
        "DVD Release Date: August 16, 2005, Run Time: 57 minutes.",
    ],
)
def test_prose_and_works_are_no_reference_lines(line):
    assert not is_reference_line(line)


def test_references_still_found():
    assert is_reference_line("村上もとか『JIN-仁-』集英社、2001年。ISBN 978-4-08-782001-3")
    assert is_reference_line("Smith, J. (ed.) The Book. London: Penguin, 1999, pp. 12–40.")
    assert is_reference_line("www.example.org – the official site")
    assert is_reference_line("Müller, K. Geschichte. Berlin: Aufbau, 1990, S. 1501")


def _sections(*rows: tuple[str, int, int, str]) -> Article:
    """An article from (title, level, parent, text) rows."""
    sections = [Section(title, level, text, [], parent) for title, level, parent, text in rows]
    for section in sections:
        section.path = ["Page", *([] if section.parent < 0 else sections[section.parent].path[1:]), section.title]
    return Article(id="1", title="Page", abstract="A page.", sections=sections, language="uk")


def test_literature_under_culture_is_content():
    article = _sections(
        ("Культура", 2, -1, "Культура країни."),
        ("Література", 3, 0, "Словацька література бере початок у IX столітті."),
        ("Музика", 3, 0, "Музика."),
        ("Примітки", 2, -1, "Примітка."),
        ("Література", 2, -1, "Книга, 1999."),
        ("Посилання", 2, -1, "www.example.org"),
    )
    assert end_matter_by_name(article, end_matter_names("uk")) == {3, 4, 5}


def test_literature_is_end_matter_only_in_the_closing_run():
    article = _sections(
        ("Історія", 2, -1, "Історія."),
        ("Література", 2, -1, "Українська література має давню історію."),
        ("Мова", 2, -1, "Мова."),
        ("Галерея", 2, -1, ""),  # a gallery has no text: it does not end the closing run
        ("Література", 2, -1, "Книга, 1999."),
        ("Підрозділ", 3, 4, "Ще книга."),
        ("Примітки", 2, -1, "Примітка."),
    )
    assert end_matter_by_name(article, end_matter_names("uk")) == {4, 5, 6}


def test_a_works_list_in_the_body_is_content_whatever_its_shape():
    isbns = "Cover, 1979, ISBN 978-4-02-123456-7\nTales, 1981, ISBN 978-4-02-123457-4"
    article = _sections(
        ("作品リスト", 2, -1, ""),
        ("短編集など", 3, 0, isbns),
        ("展示", 2, -1, "個展を開いた。"),
        ("参考", 2, -1, isbns),  # a list of sources under a name no table has, at the foot
        ("脚注", 2, -1, ""),
    )
    names = end_matter_names("ja")
    by_name = end_matter_by_name(article, names)
    assert by_name == {4} and reference_list_sections(article, by_name) == {3}


def test_armenian_bengali_and_marathi_end_matter_by_name_and_place():
    article = _sections(
        ("Մշակույթ", 2, -1, "Մշակույթ։"),
        ("Գրականություն", 3, 0, "Հայ գրականությունը հարուստ է։"),  # literature, the art
        ("Ծանոթագրություններ", 2, -1, "Ծանոթագրություն։"),
        ("Արտաքին հղումներ", 2, -1, "Կայք"),
    )
    assert end_matter_by_name(article, end_matter_names("hy")) == {2, 3}
    assert {"তথ্যসূত্র", "বহিঃসংযোগ", "আরও দেখুন"} <= end_matter_names("bn")
    assert {"संदर्भ", "बाह्य दुवे", "हे सुद्धा पहा"} <= end_matter_names("mr")
