"""Wikimedia Enterprise HTML dumps: the ``.json.tar.gz`` streamed, each record's Parsoid HTML as one Article."""

from __future__ import annotations

import gzip
import io
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import PROJECT_ROOT, SAMPLES
from tests.dataset_scripts.corpus.formats.markup import HTML_TAG, assert_clean, build_corpus, split_records
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats import _enterprise_records, enterprise_html
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped
from wikiformer_kit.dataset_scripts.corpus.sources import detect_format, plan_shards
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext

DUMP = SAMPLES / "enterprise" / "wiki-NS0-sample-ENTERPRISE-HTML.json.tar.gz"
OPTIONS = ReaderOptions()
REFERENCE_MARKER = re.compile(r"\[\d+\]")


def members() -> dict[str, bytes]:
    """The NDJSON members of the vendored dump, by name."""
    with tarfile.open(DUMP) as archive:
        return {member.name: archive.extractfile(member).read() for member in archive if member.isfile()}


def records() -> dict[str, dict]:
    """The vendored records by ``<wiki>:<name>``."""
    found = {}
    for data in members().values():
        for line in data.splitlines():
            record = json.loads(line)
            found[f"{record['is_part_of']['identifier']}:{record['name']}"] = record
    return found


@pytest.fixture(scope="module")
def articles() -> dict[str, Article]:
    found, skipped, _ = split_records(enterprise_html.read(DUMP, OPTIONS))
    assert skipped == []
    return {f"{article.language}:{article.title}": article for article in found}


def one_article(tmp_path: Path, name: str, identifier: int, language: str, body: str, options=OPTIONS) -> Article:
    """The one article an Enterprise record of this body reads as."""
    record = {
        "name": name,
        "identifier": identifier,
        "in_language": {"identifier": language},
        "article_body": {"html": body},
    }
    path = tmp_path / "part.ndjson"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (article,) = list(enterprise_html.read(path, options))
    return article


def test_the_dump_and_its_members_are_recognised_by_content(tmp_path):
    assert detect_format(DUMP) is enterprise_html
    plain_tar = tmp_path / "archive.bin"  # by content, not by name: an uncompressed tar of the same members
    with tarfile.open(plain_tar, "w") as archive:
        for name, data in members().items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    assert detect_format(plain_tar) is enterprise_html
    assert len(split_records(enterprise_html.read(plain_tar, OPTIONS))[0]) == 4
    member = tmp_path / "part.ndjson"
    member.write_bytes(members()["enwiki_namespace_0_0.ndjson"])
    assert detect_format(member) is enterprise_html
    wikiextractor = SAMPLES / "wikiextractor" / "wiki_toy.jsonl"
    assert not enterprise_html.sniff(wikiextractor, wikiextractor.read_bytes()[:4096])


def test_every_record_is_an_article_with_its_wiki_language_and_id(articles):
    assert sorted(articles) == ["de:Squirrel", "en:Mike Potts", "en:William Clark (inventor)", "ru:Squirrel"]
    clark = articles["en:William Clark (inventor)"]
    identifier = records()["enwiki:William Clark (inventor)"]["identifier"]
    assert (clark.id, clark.url, clark.source) == (
        str(identifier),
        "https://en.wikipedia.org/wiki/William_Clark_(inventor)",
        "enterprise-html",
    )
    assert articles["ru:Squirrel"].url == "https://ru.wikipedia.org/wiki/Squirrel"
    for article in articles.values():
        assert_clean(article, HTML_TAG)


def test_disambiguation_pages_are_flagged(articles):
    flagged = {key for key, article in articles.items() if article.is_disambiguation}
    assert flagged == {"en:Mike Potts", "de:Squirrel"}


def test_sections_headings_and_see_also_in_the_records_language(articles):
    clark = articles["en:William Clark (inventor)"]
    assert clark.abstract.startswith("William Clark (17 March 1821 – 22 January 1880) was an English civil engineer")
    assert [(s.title, s.level) for s in clark.sections] == [("Life", 2), ("References", 2)]
    squirrel = articles["ru:Squirrel"]
    titles = [s.title for s in squirrel.sections]
    assert titles[:3] == ["Основные особенности", "Отличия от Lua", "Типы данных"]
    assert squirrel.sections[1].parent == 0 and squirrel.sections[1].level == 3
    assert squirrel.see_also == ["Lua", "Python", "ECMAScript", "Ruby"]  # under "См. также"


def test_links_keep_anchor_sentence_and_red_links(articles):
    clark = articles["en:William Clark (inventor)"]
    by_target = {link.target: link for link in clark.links}
    english = by_target["England"]
    assert (english.anchor, english.section) == ("English", -1)
    assert english.sentence == clark.abstract
    red = by_target["Oudh and Rohilkund Railway Company"]  # class="new": the page does not exist
    assert red.sentence.endswith("consulting engineer to the Oudh and Rohilkund Railway Company.")
    assert red.section == 0
    assert "William Clark (disambiguation)" not in by_target  # it stands in the hatnote, which is dropped


def test_template_rendered_words_are_kept_where_wikitext_loses_them(articles):
    record = records()["dewiki:Squirrel"]
    from_wikitext = parse_wikitext(record["name"], record["article_body"]["wikitext"], language="de")
    assert "englisch" not in from_wikitext.abstract  # {{enS}} renders to "englisch"; the wikitext path drops it
    html = articles["de:Squirrel"]
    assert html.abstract.startswith("Squirrel (englisch für Hörnchen) steht für:")
    assert ("Englische Sprache", "englisch") in [(link.target, link.anchor) for link in html.links]


def test_hatnotes_references_styles_and_boxes_are_left_out(articles):
    clark = articles["en:William Clark (inventor)"]
    everything = "\n".join(article.text for article in articles.values())
    assert "For other people named William Clark" not in everything  # hatnote (role="note")
    assert ".mw-parser-output" not in everything and "font-style" not in everything  # TemplateStyles rules
    assert not REFERENCE_MARKER.search(everything)  # sup.reference
    assert "Begriffsklärungsseite" not in everything  # the disambiguation box
    assert "Карточка" not in everything and "latest_release" not in everything
    assert "The Drainage of Calcutta, 1871." in clark.sections[0].text


def test_bad_records_are_counted_skips_naming_file_and_line(tmp_path):
    good = members()["dewiki_namespace_0_0.ndjson"].strip()
    no_html = json.dumps({"name": "Leer", "identifier": 1, "in_language": {"identifier": "de"}, "article_body": {}})
    talk = json.loads(good)
    talk["namespace"] = {"identifier": 1}
    path = tmp_path / "part.ndjson"
    path.write_bytes(
        b"\n".join([good, b'{"name": "cut', no_html.encode(), json.dumps(talk).encode(), b'"\xff"', b"[1]", good])
        + b"\n"
    )
    found, skipped, reasons = split_records(enterprise_html.read(path, OPTIONS))
    assert [article.title for article in found] == ["Squirrel", "Squirrel"]
    assert reasons == {"bad-json": 1, "no-html": 1, "not-an-article": 1, "non-utf8": 1, "bad-record": 1}
    assert all(skip.file == str(path) for skip in skipped)
    assert [skip.record for skip in skipped] == ["line 2", "line 3 (Leer)", "line 4 (Squirrel)", "line 5", "line 6"]
    limited = split_records(enterprise_html.read(path, ReaderOptions(max_article_bytes=1000)))[2]
    assert limited["too-large"] == 3


def test_a_cut_archive_keeps_the_records_before_the_cut(tmp_path):
    data = DUMP.read_bytes()
    path = tmp_path / "cut.json.tar.gz"
    path.write_bytes(data[: len(data) // 2])
    found, skipped, reasons = split_records(enterprise_html.read(path, OPTIONS))
    assert [article.title for article in found][:2] == ["Mike Potts", "William Clark (inventor)"]
    assert reasons == {"truncated": 1} and skipped[0].file == str(path)


def test_redirects_math_and_the_language_from_the_wiki(tmp_path):
    body = (
        '<section data-mw-section-id="0"><p>The mass–energy relation <span typeof="mw:Extension/math" '
        'data-mw=\'{"name":"math","attrs":{},"body":{"extsrc":"E=mc^2"}}\'><span class="mwe-math-mathml-inline" '
        'style="display: none;"><math alttext="{\\displaystyle E=mc^{2}}"><mi>E</mi></math></span>'
        '<img alt="{\\displaystyle E=mc^{2}}" src="x.svg"/></span> links <a rel="mw:WikiLink" '
        'href="./Energy" title="Energy">energy</a> and <a rel="mw:WikiLink" href="./Help:Math" title="Help:Math">'
        "help</a>.</p></section>"
    )
    record = {
        "name": "Mass–energy equivalence",
        "identifier": 422481,
        "is_part_of": {"identifier": "simplewiki"},
        "redirects": [{"name": "E=mc2"}, {"name": "Mass energy_equivalence"}],
        "article_body": {"html": f"<!DOCTYPE html><html><head></head><body>{body}</body></html>"},
    }
    path = tmp_path / "part.ndjson"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    *redirects, article = list(enterprise_html.read(path, OPTIONS))
    assert redirects == [
        Redirect("E=mc2", "Mass–energy equivalence"),
        Redirect("Mass energy equivalence", "Mass–energy equivalence"),
    ]
    assert article.abstract == "The mass–energy relation E=mc^{2} links energy and help."
    assert [link.target for link in article.links] == ["Energy"]
    assert article.language == "simple"


def test_a_tar_is_read_as_a_stream_member_by_member(tmp_path):
    names = list(members())
    path = tmp_path / "dump.json.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name in reversed(names):
            data = members()[name]
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        folder = tarfile.TarInfo("empty-folder")
        folder.type = tarfile.DIRTYPE
        archive.addfile(folder)
    found = [record for record in enterprise_html.read(path, OPTIONS) if not isinstance(record, Skipped)]
    assert [article.language for article in found] == ["ru", "de", "en", "en"]


def build(out: Path, *options: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "dataset_scripts.build", "--input", str(DUMP), "--output-dir", str(out), *options]
    result = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def rows(folder: Path) -> list[dict]:
    return [row for path in sorted(folder.rglob("*.parquet")) for row in pq.read_table(path).to_pylist()]


def test_the_build_command_makes_the_corpus_and_the_four_tasks_from_the_dump(tmp_path):
    out = tmp_path / "out"
    result = build(out)
    for task in ("srr", "rwi", "ati", "ltm"):
        assert (out / f"wikiformer-{task}").is_dir(), task
    assert "ltm: 0 rows: none of the 4 articles gave a group" in result.stdout
    corpus = rows(out / "corpus" / "data")
    by_title = {(row["language"], row["title"]): row for row in corpus}
    assert by_title[("de", "Squirrel")]["is_disambiguation"]
    assert by_title[("de", "Squirrel")]["abstract"].startswith("Squirrel (englisch für Hörnchen)")
    assert {row["source"] for row in corpus} == {"enterprise-html"}
    srr = rows(out / "wikiformer-srr")
    assert srr and all(not REFERENCE_MARKER.search(json.dumps(row, ensure_ascii=False)) for row in srr)
    shared = tmp_path / "two"
    build(shared, "--num-proc", "2")  # one archive, read by two processes
    key = json.dumps
    assert sorted(map(key, rows(shared / "corpus" / "data"))) == sorted(map(key, corpus))
    for task in ("srr", "rwi", "ati"):
        assert sorted(map(key, rows(shared / f"wikiformer-{task}"))) == sorted(
            map(key, rows(out / f"wikiformer-{task}"))
        )


def test_parts_of_a_file_parse_every_record_once(tmp_path):
    whole = [r.title for r in enterprise_html.read(DUMP, OPTIONS) if isinstance(r, Article)]
    parts = [
        [r.title for r in enterprise_html.read(DUMP, OPTIONS, part=(k, 3)) if isinstance(r, Article)] for k in range(3)
    ]
    assert sorted(sum(parts, [])) == sorted(whole) and all(parts[:3])
    assert parts[0] == [whole[0], whole[3]]  # records 0 and 3 of the archive, counted over its members
    cut = tmp_path / "cut.json.tar.gz"
    cut.write_bytes(DUMP.read_bytes()[: DUMP.stat().st_size // 2])
    skips = [
        r.reason for k in range(3) for r in enterprise_html.read(cut, OPTIONS, part=(k, 3)) if isinstance(r, Skipped)
    ]
    assert skips == ["truncated"]  # the break is reported once, by part 0


def test_an_archive_is_planned_as_one_shard_per_process():
    (whole,), _ = plan_shards([DUMP])
    assert whole.record_part is None
    shards, _ = plan_shards([DUMP, SAMPLES / "wikiextractor" / "wiki_toy.jsonl"], min_shards=4)
    assert [(shard.fmt, shard.record_part) for shard in shards] == [
        ("enterprise-html", (0, 3)),
        ("enterprise-html", (1, 3)),
        ("enterprise-html", (2, 3)),
        ("wikiextractor-json", None),
    ]


def test_a_page_nested_deeper_than_libxml2_reads_is_read_whole(tmp_path):
    nested = "<span>" * 3000 + "deep words" + "</span>" * 3000
    body = f'<section data-mw-section-id="0"><p>Lead with {nested} <a rel="mw:WikiLink" href="./Energy">link</a>.</p>'
    article = one_article(tmp_path, "Deep", 7, "en", body)
    assert article.abstract == "Lead with deep words link."
    assert [(link.target, link.anchor) for link in article.links] == [("Energy", "link")]


def test_tables_comments_hidden_text_and_nested_anchors(tmp_path):
    body = (
        '<section data-mw-section-id="0"><p>Lead <!-- a comment -->text, <a rel="mw:WikiLink" href="./C" title="C">'
        '<i>italic</i> <b>bold</b><sup class="reference">[1]</sup></a>, <a rel="mw:ExtLink" href="http://x.org">'
        'out</a><span style="DISPLAY : none">hidden</span>.</p><table><tr><th>head</th><td>cell</td></tr></table>'
        '<dl><dt>term</dt><dd>definition</dd></dl></section><section data-mw-section-id="1"><h2>Heading '
        '<span class="mw-editsection">edit</span></h2><p>Body<br>line <span typeof="mw:Transclusion mw:File/Thumb">'
        "image</span>two</p></section>"
    )
    article = one_article(tmp_path, "Mixed", 8, "en", body)
    assert article.abstract == "Lead text, italic bold, out.\nterm\ndefinition"
    assert [(link.target, link.anchor) for link in article.links] == [("C", "italic bold")]
    assert [(section.title, section.text) for section in article.sections] == [("Heading", "Body\nline two")]


def plain_ndjson(folder: Path, copies: int = 1) -> Path:
    """The records of every member of the vendored dump as one plain NDJSON file, with a blank line."""
    lines = [line for data in members().values() for line in data.splitlines() if line.strip()] * copies
    path = folder / "dump.ndjson"
    path.write_bytes(b"\n".join(lines[:2] + [b""] + lines[2:]) + b"\n")
    return path


def test_byte_ranges_cut_anywhere_read_every_line_once(tmp_path):
    path = plain_ndjson(tmp_path)
    data = path.read_bytes()
    starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    cuts = sorted({max(0, min(len(data), s + d)) for s in starts for d in (-2, -1, 0, 1, 2)} | {len(data) // 3})

    def first_bytes(raw, file, where, options):
        return [(where, raw[:40])]

    whole = [raw for _, raw in _enterprise_records.read_byte_range(path, OPTIONS, first_bytes, 0, -1)]
    assert len(whole) == 4
    for cut in cuts:
        for end in (cut, cut + 7):
            ranges = [(0, cut), (cut, end), (end, -1)]
            read = [raw for start, stop in ranges for _, raw in _enterprise_records.read_byte_range(
                path, OPTIONS, first_bytes, start, stop)]  # fmt: skip
            assert read == whole, (cut, end)
    wheres = [where for where, _ in _enterprise_records.read_byte_range(path, OPTIONS, first_bytes, 1, -1)]
    assert wheres[0] == f"line at byte {starts[1]}"


def test_a_plain_ndjson_is_planned_as_byte_ranges_and_read_as_a_whole(tmp_path):
    path = plain_ndjson(tmp_path)
    whole = split_records(enterprise_html.read(path, OPTIONS))[0]
    shards, _ = plan_shards([path], min_shards=3)
    size = path.stat().st_size
    assert [(shard.line_range, shard.record_part) for shard in shards] == [
        ((0, size // 3), None),
        ((size // 3, 2 * size // 3), None),
        ((2 * size // 3, -1), None),
    ]
    parts = [split_records(enterprise_html.read(path, OPTIONS, byte_range=shard.line_range))[0] for shard in shards]
    assert sum(parts, []) == whole
    gzipped = tmp_path / "dump.ndjson.gz"
    gzipped.write_bytes(gzip.compress(path.read_bytes()))
    assert [shard.record_part for shard in plan_shards([gzipped], min_shards=2)[0]] == [(0, 2), (1, 2)]


def test_one_or_two_processes_build_the_same_corpus_from_a_plain_ndjson(tmp_path):
    path = plain_ndjson(tmp_path, copies=3)
    corpora = {}
    for processes in (1, 2):
        corpora[processes], shards = build_corpus(path, tmp_path / f"corpus-{processes}", processes)
        assert len(shards) == processes and all(shard["parts"] == 1 for shard in shards)
        statistics = json.loads((tmp_path / f"corpus-{processes}" / "build_stats.json").read_text())["statistics"]
        assert statistics["skipped:duplicate-id"] == 8  # each record three times: kept once
    assert corpora[1] == corpora[2] and len(corpora[1]) == 4


def test_see_also_by_structure_where_the_language_has_no_known_heading_as_the_wikitext_path(tmp_path, articles):
    assert articles["ru:Squirrel"].see_also_found_by == "name"
    unknown = "kk"  # a language whose See also heading the built-in table lacks: found by the section's structure
    path = tmp_path / "part.ndjson"
    chosen = [records()["ruwiki:Squirrel"], records()["enwiki:William Clark (inventor)"]]
    path.write_text(
        "".join(json.dumps({**record, "in_language": {"identifier": unknown}}) + "\n" for record in chosen),
        encoding="utf-8",
    )
    squirrel, clark = split_records(enterprise_html.read(path, OPTIONS))[0]
    assert (squirrel.see_also, squirrel.see_also_found_by) == (["Lua", "Python", "ECMAScript", "Ruby"], "structure")
    wikitext = parse_wikitext("Squirrel", chosen[0]["article_body"]["wikitext"], language=unknown)
    assert (wikitext.see_also, wikitext.see_also_found_by) == (squirrel.see_also, "structure")
    assert (clark.see_also, clark.see_also_found_by) == ([], "")  # Life and References: no list of articles


def deeply_nested_list(depth: int, item: str) -> dict:
    """A page whose last section is a list nested ``depth`` deep (``item(n)``: the ``n``-th item's content), in a
    language whose See also heading no table names."""
    lead = '<section data-mw-section-id="0"><p>' + " ".join(f"word{n}" for n in range(40)) + "</p></section>"
    items = "".join(f"<ul><li>{item(n)}" for n in range(depth)) + "</li></ul>" * depth
    body = f'{lead}<section data-mw-section-id="1"><h2>Heading</h2>{items}</section>'
    return {"name": "Deep", "identifier": 7, "in_language": {"identifier": "kk"}, "article_body": {"html": body}}


def test_see_also_by_structure_reads_a_deeply_nested_list_once(tmp_path, monkeypatch):
    from wikiformer_kit.dataset_scripts.corpus.formats import _parsoid, _parsoid_see_also

    calls = 0

    def counted(attributes, tag=""):
        nonlocal calls
        calls += 1
        return _parsoid.is_dropped(attributes, tag)

    monkeypatch.setattr(_parsoid_see_also, "is_dropped", counted)
    path = tmp_path / "deep.ndjson"
    record = deeply_nested_list(300, lambda n: f'<a rel="mw:WikiLink" href="./T{n}">T{n}</a>')
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (article,) = enterprise_html.read(path, OPTIONS)
    assert article.see_also_found_by == "structure" and article.see_also == [f"T{n}" for n in range(300)]
    assert calls < 10 * 300  # a few times each element (its prose, its items), not once per element above it


def test_a_record_of_lists_nested_10000_deep_is_read_in_seconds(tmp_path):
    import time

    path = tmp_path / "deep.ndjson"
    path.write_text(json.dumps(deeply_nested_list(10_000, lambda n: "item ")) + "\n", encoding="utf-8")  # 230 kB
    started = time.perf_counter()
    (article,) = enterprise_html.read(path, OPTIONS)
    assert time.perf_counter() - started < 10  # about 1 s; a minute when each item's ancestors were walked
    assert article.title == "Deep" and article.see_also == []  # items without links: no See also


def test_an_arabic_parsoid_page_right_to_left_with_its_see_also_by_name_and_by_structure(tmp_path):
    member = SAMPLES / "enterprise" / "arwiki_namespace_0_0.ndjson.gz"
    assert detect_format(member) is enterprise_html
    (article,), skipped, _ = split_records(enterprise_html.read(member, OPTIONS))
    assert skipped == [] and (article.title, article.language, article.id) == ("رياضيات", "ar", "38")
    assert article.abstract.startswith("الرياضيات علم عبارة عن مفاهيم مجردة")
    levels = {(section.title, section.level) for section in article.sections}
    assert {("التاريخ", 2), ("أسس وفلسفة الرياضيات", 3), ("الكمية", 4)} <= levels
    assert article.see_also_found_by == "name" and article.see_also[:2] == [
        "قائمة الرموز الرياضية",
        "قائمة الرموز الرياضية بحسب الموضوع",
    ]
    assert not REFERENCE_MARKER.search(article.text) and "تصنيف:" not in article.text  # references, categories
    assert_clean(article, HTML_TAG)
    record = json.loads(gzip.decompress(member.read_bytes()))
    unknown = tmp_path / "part.ndjson"
    unknown.write_text(json.dumps({**record, "in_language": {"identifier": "kk"}}) + "\n", encoding="utf-8")
    (by_structure,) = split_records(enterprise_html.read(unknown, OPTIONS))[0]
    assert (by_structure.see_also, by_structure.see_also_found_by) == (article.see_also, "structure")


def test_links_parsoid_marks_as_redirects_or_disambiguation_pages_stay_links_to_the_page_they_name(articles):
    clark = {link.target: link.anchor for link in articles["en:William Clark (inventor)"].links}
    assert clark["Inventor"] == "inventor"  # class="mw-redirect": resolved later by the corpus's title map
    squirrel = {link.target: link.anchor for link in articles["ru:Squirrel"].links}
    assert squirrel["JIT"] == "JIT" and squirrel["Shadow Warrior"] == "Shadow Warrior"  # mw-redirect, mw-disambig


def multi_member_dump(folder: Path, sizes: tuple[int, ...] = (3, 1, 5, 2, 1)) -> Path:
    """A ``.json.tar.gz`` of NDJSON members of ``sizes[m]`` records each, laid out as Wikimedia ships one wiki's dump:
    the vendored records in turn, each copy with an identifier and a name of its own (so that a record read twice or
    never shows)."""
    lines = [json.loads(line) for data in members().values() for line in data.splitlines() if line.strip()]
    path = folder / "wiki-NS0-20240101-ENTERPRISE-HTML.json.tar.gz"
    number = 0
    with tarfile.open(path, "w:gz") as archive:
        for member, size in enumerate(sizes):
            chosen = []
            for _ in range(size):
                record = lines[number % len(lines)]
                chosen.append(json.dumps({**record, "identifier": 1000 + number, "name": f"{record['name']} {number}"}))
                number += 1
            data = ("\n".join(chosen) + "\n").encode()
            info = tarfile.TarInfo(f"wiki_namespace_0_{member}.ndjson")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_processes_share_a_multi_member_archive_by_records_across_its_members(tmp_path):
    path = multi_member_dump(tmp_path)
    whole = [r.id for r in enterprise_html.read(path, OPTIONS) if isinstance(r, Article)]
    assert whole == [str(1000 + n) for n in range(12)]
    for parts in (2, 3, 5):
        shards = plan_shards([path], min_shards=parts)[0]
        assert [shard.record_part for shard in shards] == [(k, parts) for k in range(parts)]
        read = [[r.id for r in enterprise_html.read(path, OPTIONS, part=s.record_part) if isinstance(r, Article)]
                for s in shards]  # fmt: skip
        assert sorted(sum(read, [])) == sorted(whole)
        assert [len(ids) for ids in read] == [len(whole[k::parts]) for k in range(parts)]  # balanced to one record
        assert read[0] == whole[::parts]  # counted over the archive, across members


def test_one_two_or_three_processes_build_the_same_corpus_from_a_multi_member_archive(tmp_path):
    path = multi_member_dump(tmp_path)
    corpora = {}
    for processes in (1, 2, 3):
        corpora[processes], shards = build_corpus(path, tmp_path / f"corpus-{processes}", processes)
        assert [(shard["part"], shard["parts"]) for shard in shards] == [(k, processes) for k in range(processes)]
    assert corpora[1] == corpora[2] == corpora[3] and len(corpora[1]) == 12


def test_inline_maintenance_tags_are_left_out(tmp_path):
    # frwiki's {{Référence souhaitée}} and {{Lesquelles}} as Parsoid renders them: a superscript in brackets that
    # links the help page explaining it
    body = (
        '<section data-mw-section-id="0"><p>La ville compte 30 000 habitants<sup about="#mwt3" '
        'typeof="mw:Transclusion" class="need_ref_tag"><a rel="mw:WikiLink" href="./Aide:Référence_nécessaire" '
        'title="Aide:Référence nécessaire">[réf. souhaitée]</a></sup> et plusieurs musées<sup about="#mwt4" '
        'typeof="mw:Transclusion">[<a rel="mw:WikiLink" href="./Aide:Précisez" title="Aide:Précisez">Lesquelles ?'
        '</a>]</sup>. Le 1<sup>er</sup> mai, la <a rel="mw:WikiLink" href="./Fête" title="Fête">fête</a><sup>[note]'
        "</sup>.</p></section>"
    )
    article = one_article(tmp_path, "Ville", 9, "fr", body, ReaderOptions(language="fr"))
    assert article.abstract == "La ville compte 30 000 habitants et plusieurs musées. Le 1er mai, la fête[note]."


def test_infoboxes_named_by_version_are_left_out(tmp_path):
    # frwiki's infobox v3 is a div (its tables go with the table rule, its header would not): the abstract of a
    # French year page was "Chronologies"
    body = (
        '<section data-mw-section-id="0"><div class="infobox_v3 noarchive"><div class="entete">Chronologies</div>'
        "<table><caption>Décennies</caption><tr><td>1990</td></tr></table></div>"
        '<div class="infobox_v3 large taxobox_v3 zoologie"><div class="entete">Araignée</div></div>'
        "<p>L'année <b>1999</b> est une année commune.</p></section>"
    )
    article = one_article(tmp_path, "1999", 9, "fr", body)
    assert article.abstract == "L'année 1999 est une année commune."
