"""Sectioned XML reader: nested sections, references, many documents per file, malformed and huge XML."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.dataset_scripts.corpus.formats.markup import HTML_TAG, assert_clean, split_records
from wikiformer_kit.dataset_scripts.corpus.formats import xml_sections
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions

OPTIONS = ReaderOptions()


def read_all(tmp_path: Path, text: str | bytes, name: str = "corpus.xml", options: ReaderOptions = OPTIONS):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return split_records(xml_sections.read(path, options))


DOC = """<?xml version="1.0" encoding="UTF-8"?>
<corpus>
  <document id="solar" url="https://example.org/solar">
    <title>Solar System</title>
    <content>The Sun is a star &amp; it has <reference target="planets">planets</reference>. Second one.</content>
    <section id="planets">
      <title>Planets</title>
      <content>There are eight. See <reference target="outer"/> below.</content>
      <section>
        <title>Dwarf planets</title>
        <content>Pluto is <em>one</em>.</content>
      </section>
      <section id="outer">
        <title>Outer planets</title>
        <content>Jupiter.</content>
        <content>Saturn <!-- comment --> too.</content>
      </section>
    </section>
    <section><title>Empty</title></section>
    <section>
      <title>See also</title>
      <content><reference target="Star"/>, <reference target="Moon">the Moon</reference></content>
    </section>
  </document>
  <document><title>No text</title><section><title>Heading only</title></section></document>
  <document><title>Second</title><content>Short.</content></document>
</corpus>
"""


def test_structure_references_and_see_also(tmp_path):
    articles, skipped, reasons = read_all(tmp_path, DOC)
    assert [a.title for a in articles] == ["Solar System", "Second"]
    assert reasons == {"empty": 1} and skipped[0].record == "corpus-2 (No text)"
    solar = articles[0]
    assert (solar.id, solar.url, solar.source) == ("solar", "https://example.org/solar", "xml-sections")
    assert solar.abstract == "The Sun is a star & it has planets. Second one."
    assert [(s.title, s.level, s.parent) for s in solar.sections] == [
        ("Planets", 2, -1),
        ("Dwarf planets", 3, 0),
        ("Outer planets", 3, 0),
        ("Empty", 2, -1),
        ("See also", 2, -1),
    ]
    assert solar.sections[0].text == "There are eight. See Outer planets below."
    assert solar.sections[2].text == "Jupiter.\nSaturn too."
    assert solar.sections[2].path == ["Solar System", "Planets", "Outer planets"]
    assert solar.sections[3].text == ""
    assert [(link.target, link.anchor, link.section) for link in solar.links] == [
        ("planets", "planets", -1),
        ("outer", "Outer planets", 0),  # an empty reference reads as the title of the section it names
        ("Star", "Star", 4),
        ("Moon", "the Moon", 4),
    ]
    assert solar.links[0].sentence == "The Sun is a star & it has planets."
    assert solar.see_also == ["Star", "Moon"]
    assert articles[1].id == "corpus-3"
    for article in articles:
        assert_clean(article, HTML_TAG)


def test_readme_example():
    path = SAMPLES / "structured" / "wikiformer-readme-example.xml"
    (article,), _, _ = split_records(xml_sections.read(path, OPTIONS))
    assert article.title == "Main Document Title" and article.abstract == ""
    assert [(s.path, s.text) for s in article.sections] == [
        (["Main Document Title", "Section 1"], "Content of Section 1. See also Section 2"),
        (["Main Document Title", "Section 2"], "Content of Section 2. Referring back to Section 1"),
    ]
    assert [(link.target, link.anchor, link.section) for link in article.links] == [
        ("sec2", "Section 2", 0),
        ("sec1", "Section 1", 1),
    ]


def test_malformed_xml_keeps_earlier_documents_and_names_the_line(tmp_path):
    text = "<corpus>\n<document><title>A</title><content>ok</content></document>\n<document><title>B<content>x</document>\n"
    articles, skipped, reasons = read_all(tmp_path, text)
    assert [a.title for a in articles] == ["A"]
    assert reasons == {"malformed-xml": 1} and skipped[0].record == "line 3" and "1 documents read" in skipped[0].detail


def test_non_utf8_and_empty_files(tmp_path):
    _, skipped, reasons = read_all(tmp_path, b"<document><title>caf\xe9</title><content>x</content></document>")
    assert reasons == {"non-utf8": 1} and skipped[0].file.endswith("corpus.xml")
    declared = '<?xml version="1.0" encoding="ISO-8859-1"?><document><title>café</title><content>x</content></document>'
    (article,), _, _ = read_all(tmp_path, declared.encode("latin-1"))
    assert article.title == "café"
    assert read_all(tmp_path, b"")[2] == {"empty": 1}
    assert read_all(tmp_path, "<corpus><other/></corpus>")[2] == {"empty": 1}


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc (Linux)")
def test_many_documents_stream_in_bounded_memory(tmp_path):
    # libxml2 memory is invisible to tracemalloc, so look at the process: a 60 MB file of 300 documents must not
    # grow the resident size by anything near its size (the whole tree would take several times that).
    document = "<document><title>T{0}</title><content>" + "Some words here. " * 12_000 + "</content></document>\n"
    path = tmp_path / "big.xml"
    with path.open("w") as handle:
        handle.write("<corpus>\n")
        for i in range(300):
            handle.write(document.format(i))
        handle.write("</corpus>\n")
    before = resident_bytes()
    count = sum(1 for _ in xml_sections.read(path, OPTIONS))
    growth = resident_bytes() - before
    assert count == 300
    assert growth < 30_000_000, f"resident memory grew by {growth} bytes reading {path.stat().st_size} bytes"


def test_huge_document_and_size_limit(tmp_path):
    body = "".join(
        f"<section><title>Part {i}</title><content>" + "A sentence. " * 20_000 + "</content></section>"
        for i in range(20)
    )
    text = f"<document><title>Huge</title>{body}</document>"  # ~5 MB
    (article,), _, _ = read_all(tmp_path, text)
    assert len(article.sections) == 20 and len(article.text) > 4_500_000
    _, skipped, reasons = read_all(tmp_path, text, options=ReaderOptions(max_article_bytes=1_000_000))
    assert reasons == {"too-large": 1} and skipped[0].record == "corpus-1 (Huge)"


def test_sniff():
    head = (SAMPLES / "structured" / "wikiformer-readme-example.xml").read_bytes()
    assert xml_sections.sniff(Path("x.xml"), head)
    assert not xml_sections.sniff(Path("x.xml"), b"<mediawiki><page><title>t</title></page></mediawiki>")


def test_compressed_and_truncated(tmp_path):
    (tmp_path / "docs.xml.gz").write_bytes(gzip.compress(DOC.encode()))
    articles, _, _ = split_records(xml_sections.read(tmp_path / "docs.xml.gz", OPTIONS))
    assert [a.title for a in articles] == ["Solar System", "Second"]
    document = "<document><title>T{0}</title><content>" + "Words and more words. " * 200 + "</content></document>\n"
    packed = gzip.compress(("<corpus>" + "".join(document.format(i) for i in range(200)) + "</corpus>").encode())
    (tmp_path / "cut.xml.gz").write_bytes(packed[: len(packed) // 2])
    articles, skipped, reasons = split_records(xml_sections.read(tmp_path / "cut.xml.gz", OPTIONS))
    assert reasons == {"truncated": 1} and 0 < len(articles) < 200
    assert f"{len(articles)} documents read" in skipped[0].detail
