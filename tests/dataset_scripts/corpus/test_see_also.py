"""See also in any language: by heading name (30 Wikipedias), else by structure; on dumps of other Wikipedias
made from real pages (Chinese, Latgalian, German), xz-compressed and truncated mid-page as real partial dumps are."""

from __future__ import annotations

import html
import json
import lzma
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.extract import read_articles
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Skipped
from wikiformer_kit.dataset_scripts.corpus.see_also import (
    HEADING,
    SEE_ALSO_TITLES,
    find_see_also_sections,
    heading_key,
    heading_lines,
    looks_like_see_also,
    see_also_names,
)
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext

PAGES = SAMPLES / "wikipedia" / "other-languages"
# namespace names as each wiki's <siteinfo> lists them (files and categories must never be See also targets)
NAMESPACES = {
    "zh": {6: "File", 14: "Category"},
    "ltg": {6: "Fails", 10: "Taiss", 14: "Kategoreja"},
    "de": {6: "Datei", 10: "Vorlage", 14: "Kategorie"},
    "ja": {6: "ファイル", 10: "Template", 14: "Category"},
    "vi": {6: "Tập tin", 10: "Bản mẫu", 14: "Thể loại"},
    "ru": {6: "Файл", 10: "Шаблон", 14: "Категория"},
    "uk": {6: "Файл", 10: "Шаблон", 14: "Категорія"},
    "el": {6: "Αρχείο", 10: "Πρότυπο", 14: "Κατηγορία"},
}
EXPECTED = {  # the See also targets of each page, read off its wikitext
    "电信级NAT": ["NAT64"],
    "嵌入式OpenType": ["WOFF"],
    "Latgolys doba": ["Latgolys geografeja", "Latgolys dobys pīminiekli"],
    "Latgolys karūgs": ["Latgolys himnys", "Latgolys gerbs"],
    "Čile": ["Santjago (Čile)", "Konsepsjons"],
    "Mozilla Firefox": ["Liste von Webbrowsern"],
    "上海軌道交通3号線": ["中華人民共和国の鉄道", "淞滬鉄道"],
    "VIQR": ["Mnemonic Encoding Specification for Vietnamese", "VISCII", "VNI"],
    "Литва": ["Праздники и памятные дни Литвы", "История почты и почтовых марок Литвы", "Ордена Литвы"],
    "Берлін": ["Бероліна", "Міста Європи з населенням понад 500 тисяч осіб", "422 Бероліна"],
    "Βερολίνο": [],  # the page has no See also section: nothing is found, by name or by structure
}


def pages(language: str) -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted((PAGES / language).glob("*.wikitext"))}


def make_dump(language: str, folder: Path, dbname: str | None = None, truncate: bool = True) -> Path:
    """A MediaWiki export of the real pages of ``language``, xz-compressed; with ``truncate`` a last page is cut in
    the middle of its text, as a dump truncated mid-page."""
    namespaces = "".join(f'<namespace key="{k}">{v}</namespace>' for k, v in NAMESPACES[language].items())
    site = (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" xml:lang="x">'
        f"<siteinfo><dbname>{dbname or language}wiki</dbname>"
        f"<base>https://{language}.wikipedia.org/wiki/Main</base><namespaces>{namespaces}</namespaces></siteinfo>"
    )
    body = "".join(
        f"<page><title>{html.escape(title)}</title><ns>0</ns><id>{i}</id><revision><text>{html.escape(text)}"
        "</text></revision></page>"
        for i, (title, text) in enumerate(pages(language).items(), start=1)
    )
    xml = site + body + "</mediawiki>"
    if truncate:
        cut_page = html.escape(next(iter(pages(language).values())))
        xml = site + body + f"<page><title>Cut</title><ns>0</ns><id>99</id><revision><text>{cut_page[:300]}"
    path = folder / f"{dbname or language}wiki-truncated.xml.xz"
    path.write_bytes(lzma.compress(xml.encode("utf-8")))
    return path


@pytest.mark.parametrize("language", ["zh", "ltg", "de", "ja", "vi", "ru", "uk", "el"])
def test_real_pages_of_other_wikipedias_find_see_also_by_name(tmp_path, language):
    records = list(read_articles(mediawiki_xml, make_dump(language, tmp_path)))
    articles = {r.title: r for r in records if isinstance(r, Article)}
    assert set(articles) == set(pages(language))
    for title, article in articles.items():
        assert article.see_also == EXPECTED[title] and article.see_also_found_by == ("name" if EXPECTED[title] else "")
        assert article.language == language
    assert [r.reason for r in records if isinstance(r, Skipped)] == ["malformed-xml"]  # the cut page, counted


@pytest.mark.parametrize("language", ["zh", "ltg", "de"])
def test_unknown_language_finds_see_also_by_structure(tmp_path, language):
    # "xx" has no heading names: the section is found by its structure alone, with the same targets
    articles = [
        r for r in read_articles(mediawiki_xml, make_dump(language, tmp_path, dbname="xx")) if isinstance(r, Article)
    ]
    assert articles and all(a.language == "xx" for a in articles)
    for article in articles:
        assert article.see_also == EXPECTED[article.title] and article.see_also_found_by == "structure"


def test_see_also_title_overrides_the_structure(tmp_path):
    dump = make_dump("ltg", tmp_path, dbname="xx")
    given = ReaderOptions(see_also_titles=("Verīs taipoš",))
    articles = [r for r in read_articles(mediawiki_xml, dump, given) if isinstance(r, Article)]
    assert {a.see_also_found_by for a in articles} == {"name"}
    other = ReaderOptions(see_also_titles=("Nav taida",))  # a wrong name given: no guessing behind the user's back
    assert not any(r.see_also for r in read_articles(mediawiki_xml, dump, other) if isinstance(r, Article))


def test_build_summary_counts_sections_by_name_and_by_structure(tmp_path):
    (tmp_path / "in").mkdir()
    make_dump("zh", tmp_path / "in", truncate=False)
    make_dump("ltg", tmp_path / "in", dbname="xx", truncate=False)
    stats = build_corpus([tmp_path / "in"], tmp_path / "out")
    assert stats["see_also_by_name"] == 2 and stats["see_also_by_structure"] == 3
    assert stats["articles_with_see_also"] == 5


def test_the_table_covers_the_30_largest_wikipedias_and_zh_variants():
    largest = "en ceb de fr sv nl ru es it pl arz zh ja uk vi war ar pt fa ca id sr ko no ce fi tr hu cs tt".split()
    assert not [code for code in largest if code not in SEE_ALSO_TITLES]
    assert {"参见", "參見", "相关条目", "相關條目"} <= see_also_names("zh-hant") == see_also_names("zh")
    assert "关联项目" not in see_also_names("zh") and "関連項目" in see_also_names("ja")
    assert heading_key("参见：") == heading_key("参见")


ARTICLE = "Prose of the article body, long enough to be an article and not a list page. " * 5 + "\n"


def structure(wikitext: str) -> str:
    found, how = find_see_also_sections(wikitext, frozenset())
    return how


def test_structure_takes_a_late_list_of_links_and_refuses_look_alikes():
    see_also = "== Related ==\n* [[Alpha]]\n* [[Beta]] – a short note\n{{Portal|Science}}\n"
    end = "== Notes ==\n{{Reflist}}\n== Links ==\n* [http://example.org Site]\n"
    assert structure(ARTICLE + "== History ==\n" + ARTICLE + see_also + end) == "structure"
    refused = {
        "external links": "== Web ==\n* [http://a.org A]\n* [http://b.org B]\n",
        "works with years": "== Works ==\n* [[First Album]] (1999)\n* [[Second Album]] (2003)\n",
        "sources with pages": "== Sources ==\n* [[Homer]], ''Iliad'' 1.1\n* [[Ovid]], XI, 217–265\n",
        "references": "== Refs ==\n<references/>\n* {{cite book|title=T}}\n",
        "a list of forms": "== Forms ==\n* [[A]] [[B]] [[C]] [[D]]\n* [[E]] [[F]] [[G]]\n",
        "prose after it": see_also + "== Legacy ==\n" + ARTICLE * 2,
        "prose around it": "== Related ==\n" + ARTICLE + "\n* [[Alpha]]\n",
        "with subsections": "== Related ==\n=== Sub ===\n* [[Alpha]]\n",
    }
    for why, section in refused.items():
        assert structure(ARTICLE + section + end) == "", why
    assert structure("A may refer to:\n== Places ==\n* [[A (town)]]\n* [[A (river)]]\n") == ""  # no article body


def test_disambiguation_pages_are_not_guessed():
    text = "'''X''' may mean many things. " * 10 + "\n== Other ==\n* [[X (band)]]\n* [[X (film)]]\n{{disambiguation}}"
    article = parse_wikitext("X", text, language="xx")
    assert article.is_disambiguation and article.see_also == []


def test_looks_like_see_also_reads_cjk_prose_as_prose():
    long_item = "* [[甲]]" + "这是一个很长的描述，说明这个条目和本条目之间的关系以及它的历史背景。" * 2
    assert not looks_like_see_also("参见", long_item, [])
    assert looks_like_see_also("参见", "* [[甲]]\n* [[乙]]", [])


def test_a_known_language_is_never_guessed_and_its_variants_are_names():
    body = ARTICLE + "== Історія ==\n" + ARTICLE + "== Померли ==\n* [[Ельфріде Єлінек]]\n* [[Джон Сміт]]\n"
    article = parse_wikitext("Київ", body, language="uk")
    assert article.see_also == [] and article.see_also_found_by == ""
    named = parse_wikitext("Київ", body + "== Дивись також ==\n* [[Львів]]\n", language="uk")
    assert named.see_also == ["Львів"] and named.see_also_found_by == "name"
    assert {"δείτε ακόμη", "σχετικά άρθρα"} <= {heading_key(n) for n in SEE_ALSO_TITLES["el"]}
    assert heading_key("Σχετικά Άρθρα") in see_also_names("el") and heading_key("Дивіться також") in see_also_names(
        "uk"
    )


def test_a_list_after_a_lead_in_line_is_not_see_also():
    page = ARTICLE + "== Ļauds ==\nKuorsovā dzymuši:\n* [[Evalds Dauguļs]]\n* [[Antons Jurkāns]]\n"
    assert structure(page) == ""


def test_the_task_build_prints_the_see_also_summary_and_warns_of_an_unknown_language(tmp_path, capsys):
    from wikiformer_kit.dataset_scripts.build import main

    (tmp_path / "in").mkdir()
    make_dump("ltg", tmp_path / "in", dbname="xx", truncate=False)
    assert main(["--input", str(tmp_path / "in"), "--output-dir", str(tmp_path / "out"), "--tasks", "srr"]) == 0
    out = capsys.readouterr()
    assert "corpus: 3 articles with See also: 0 found by heading name, 3 by structure" in out.out
    assert "language 'xx' (3 articles)" in out.err and "found by structure" in out.err
    record = json.loads((tmp_path / "out" / "corpus" / "build_stats.json").read_text())
    assert record["languages"] == {"xx": 3} and record["options"]["reader"]["language"] == "xx"


def test_a_known_language_gets_no_warning_and_is_recorded_from_the_dump(tmp_path, capsys):
    from wikiformer_kit.dataset_scripts.corpus.__main__ import main

    (tmp_path / "in").mkdir()
    make_dump("zh", tmp_path / "in", truncate=False)
    assert main([str(tmp_path / "in"), "--output-dir", str(tmp_path / "out")]) == 0
    assert "warning" not in capsys.readouterr().err
    record = json.loads((tmp_path / "out" / "build_stats.json").read_text())
    assert record["options"]["reader"]["language"] == "zh"


def _sample_pages() -> list[str]:
    return [
        record.wikitext
        for name in ("enwiki-sample.xml.bz2", "ltgwiki-sample.xml.bz2")
        for record in mediawiki_xml.read_raw(SAMPLES / "wikipedia" / name, ReaderOptions())
        if hasattr(record, "wikitext")
    ]


@pytest.mark.parametrize(
    "wikitext",
    [
        "== Top ==\ntext",
        "intro\n==See also==\n* [[A]]\n=== Sub ===\nx\n== Notes ==",
        "a = b = c\n=x=\n= not closed\n==\n=== ===\n== trailing == \t\n==a==b==\n",
        "line\r\n== Windows ==\r\nbody\n== Last ==",
        "\n\n== after blank lines ==\n text == not a heading ==\n",
        "",
    ],
)
def test_heading_lines_are_the_heading_pattern_s_matches(wikitext):
    found = [(m.start(), m.group(0)) for m in heading_lines(wikitext)]
    assert found == [(m.start(), m.group(0)) for m in HEADING.finditer(wikitext)]


def test_heading_lines_on_the_sample_dumps_are_the_heading_pattern_s_matches():
    pages = _sample_pages()
    assert len(pages) > 100
    for wikitext in pages:
        assert [m.span() for m in heading_lines(wikitext)] == [m.span() for m in HEADING.finditer(wikitext)]


def test_a_see_also_list_nested_thousands_deep_reads_its_links_in_a_moment():
    import time

    from wikiformer_kit.dataset_scripts.corpus.see_also import see_also_targets

    section = "".join("*" * 10_000 + f" [[Target {n}]]\n" for n in range(20))  # 200 kB of list markers
    started = time.perf_counter()
    assert see_also_targets(section) == [f"Target {n}" for n in range(20)]
    assert time.perf_counter() - started < 2  # each marker a parser node: 8 s
    assert see_also_targets("* [[A]]\n** [[B|b]] and {{annotated link|C}}\n#: [[D]]\n") == ["A", "B", "C", "D"]
