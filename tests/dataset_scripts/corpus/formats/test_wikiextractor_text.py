"""WikiExtractor text mode: hand-written documents, the vendored real slice, and the full Wikiformer demo data."""

from __future__ import annotations

import bz2
import gzip
import re
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, shared_data
from tests.dataset_scripts.corpus.formats.markup import assert_clean, split_records
from wikiformer_kit.dataset_scripts.corpus.formats import wikiextractor_text
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions

OPTIONS = ReaderOptions()
VENDORED = SAMPLES / "wikiextractor" / "wiki_00"


def write(tmp_path: Path, text: str | bytes, name: str = "wiki_00") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def read_all(path: Path, options: ReaderOptions = OPTIONS):
    return split_records(wikiextractor_text.read(path, options))


DOCS = """<doc id="1" url="https://en.wikipedia.org/wiki?curid=1" title="Solar System">
Solar System

The Solar System is the Sun and the objects that orbit it. It formed 4.6 billion years ago.
Its planets are described below.
## Planets.
There are eight planets.
#### Dwarf planets.
Pluto is a dwarf planet.
### Outer planets.
Jupiter &amp; Saturn are giants; 1 &lt; 2.
## Is it stable?
Probably.
## Empty section.
## See also.
Related topics:
</doc>
<doc id="2" url="https://en.wikipedia.org/wiki?curid=2" title="Redirect page">
Redirect page



</doc>
<doc id="3" url="https://en.wikipedia.org/wiki?curid=3" title="Linked">
Linked

The <a href="Solar%20System">solar system</a> has a <a href="Sun">star</a>. Second sentence.
## See also.
<a href="Planet">Planet</a>
</doc>
"""


def test_headings_levels_and_jumps(tmp_path):
    articles, skipped, reasons = read_all(write(tmp_path, DOCS))
    assert [a.title for a in articles] == ["Solar System", "Linked"]
    assert reasons == {"empty": 1} and skipped[0].record == "2 (Redirect page)"
    solar = articles[0]
    assert solar.id == "1" and solar.url.endswith("curid=1") and solar.source == "wikiextractor-text"
    # the repeated title line is dropped; paragraphs are one per line
    assert solar.abstract == (
        "The Solar System is the Sun and the objects that orbit it. It formed 4.6 billion years ago.\n"
        "Its planets are described below."
    )
    titles = [(s.title, s.level, s.parent) for s in solar.sections]
    assert titles == [
        ("Planets", 2, -1),
        ("Dwarf planets", 4, 0),  # a jump from ## to ####: attached to the nearest shallower section
        ("Outer planets", 3, 0),
        ("Is it stable?", 2, -1),  # WikiExtractor adds no "." after "?"
        ("Empty section", 2, -1),
        ("See also", 2, -1),
    ]
    assert solar.sections[1].path == ["Solar System", "Planets", "Dwarf planets"]
    assert solar.sections[2].text == "Jupiter & Saturn are giants; 1 < 2."
    assert solar.sections[4].text == ""
    assert solar.see_also == []  # no links in plain WikiExtractor output


def test_links_mode_gives_links_sentences_and_see_also(tmp_path):
    articles, _, _ = read_all(write(tmp_path, DOCS))
    linked = articles[1]
    assert [(link.target, link.anchor, link.section) for link in linked.links] == [
        ("Solar System", "solar system", -1),
        ("Sun", "star", -1),
        ("Planet", "Planet", 0),
    ]
    assert linked.links[0].sentence == "The solar system has a star."
    assert linked.abstract == "The solar system has a star. Second sentence."
    assert linked.see_also == ["Planet"]


def test_unterminated_documents_and_stray_text_are_counted(tmp_path):
    text = 'stray\n<doc id="5" url="u" title="A">\nA\ntext\n<doc id="6" url="u" title="B">\nB\nbody\n</doc>\n'
    text += '<doc id="7" url="u" title="C">\nC\ncut short'
    articles, skipped, reasons = read_all(write(tmp_path, text))
    assert [a.title for a in articles] == ["B"]
    assert reasons == {"stray-line": 1, "unterminated": 2}
    assert {s.record for s in skipped} == {"line 1", "5 (A)", "7 (C)"}
    assert all(s.file.endswith("wiki_00") for s in skipped)


def test_non_utf8_document_is_skipped_and_the_next_one_read(tmp_path):
    text = b'<doc id="1" url="u" title="Bad">\nBad\nbytes \xff\xfe here\n</doc>\n<doc id="2" url="u" title="Good">\nGood\nfine\n</doc>\n'
    text += b'<doc id="3" url="u" title="Caf\xe9">\nCaf\xe9\ntext\n</doc>\n'
    articles, skipped, reasons = read_all(write(tmp_path, text))
    assert [a.title for a in articles] == ["Good"]
    assert reasons == {"non-utf8": 2} and skipped[0].record == "1 (Bad)" and skipped[1].record.startswith("3 ")


def test_empty_file_and_huge_document(tmp_path):
    assert read_all(write(tmp_path, b"", "empty"))[0] == []
    paragraph = "Word " * 200 + "end.\n"
    huge = '<doc id="9" url="u" title="Huge">\nHuge\n' + "## Part.\n" + paragraph * 5000 + "</doc>\n"  # ~5 MB
    path = write(tmp_path, huge, "huge")
    articles, _, _ = read_all(path)
    assert len(articles) == 1 and len(articles[0].sections[0].text) > 4_000_000
    articles, skipped, reasons = read_all(path, ReaderOptions(max_article_bytes=1_000_000))
    assert articles == [] and reasons == {"too-large": 1} and skipped[0].record == "9 (Huge)"


def test_leaked_wikitext_is_parsed_not_left(tmp_path):
    text = (
        '<doc id="4" url="u" title="Leak">\nLeak\n'
        'The [[Bronze Age|bronze]] city of [[Gaza]] traded.<ref name="a">cite</ref> It grew.\n'
        "]]\n[[Category:Cities]]\n{{Infobox city|name=x}} Done '''now'''.\n</doc>\n"
    )
    articles, _, _ = read_all(write(tmp_path, text))
    leak = articles[0]
    assert_clean(leak)
    assert leak.abstract == "The bronze city of Gaza traded. It grew.\nDone now."
    assert [(link.target, link.anchor) for link in leak.links] == [("Bronze Age", "bronze"), ("Gaza", "Gaza")]


def test_vendored_real_slice():
    articles, skipped, reasons = read_all(VENDORED)
    assert len(articles) + len(skipped) == 6
    assert reasons == {"empty": 1} and skipped[0].record == "10 (AccessibleComputing)"
    by_title = {a.title: a for a in articles}
    assert by_title["Austin (disambiguation)"].is_disambiguation
    assert not by_title["Arithmetic mean"].is_disambiguation
    assert "See also" in [s.title for s in by_title["Algorithms (journal)"].sections]
    g_protein = by_title["G protein"]
    assert max(s.level for s in g_protein.sections) >= 5
    heading_lines = [line for line in VENDORED.read_text("utf-8").splitlines() if re.match(r"^#+ ", line)]
    assert sum(len(a.sections) for a in articles) == len(heading_lines)
    mean = {s.title: s for s in by_title["Arithmetic mean"].sections}
    # WikiExtractor leaked an unclosed "<ref>" after this sentence; it is removed, the sentence kept
    assert mean["Weighted average"].text.endswith("given more weight in the calculation.")
    assert mean["Generalizations"].text == "" and mean["Weighted average"].path[1] == "Generalizations"
    for article in articles:
        assert_clean(article)
        assert "&amp;" not in article.text


@pytest.mark.shared_data
def test_wikiformer_demo_data_loses_nothing():
    root = shared_data("wikipedia/wikiextractor_wikiformer_demo")
    files = sorted(p for p in root.glob("*/wiki_*"))
    assert len(files) == 22
    headings: dict[str, int] = {}
    doc_ids: list[str] = []
    for path in files:
        current = None
        for line in path.read_text("utf-8").splitlines():
            if line.startswith("<doc "):
                current = re.search(r'id="([^"]*)"', line).group(1)
                doc_ids.append(current)
                headings[current] = 0
            elif re.match(r"^#+ \S", line):
                headings[current] += 1
    articles, skipped = [], []
    for path in files:
        found, lost, _ = read_all(path)
        articles += found
        skipped += lost
    assert len(doc_ids) == 1599
    assert len(articles) + len(skipped) == 1599  # every document accounted for
    assert {s.reason for s in skipped} == {"empty"}
    assert sorted([a.id for a in articles] + [s.record.split(" ")[0] for s in skipped]) == sorted(doc_ids)
    assert len(articles) == 1135
    for article in articles:  # every heading line became a section, whatever its level
        assert len(article.sections) == headings[article.id]
        assert_clean(article)
    assert sum(len(a.sections) for a in articles) == 15302
    assert sum(1 for a in articles if any(s.title == "See also" for s in a.sections)) == 9


def test_compressed_and_truncated_bz2(tmp_path):
    data = VENDORED.read_bytes()
    whole = tmp_path / "wiki_00.bz2"
    whole.write_bytes(bz2.compress(data))
    plain_titles = [a.title for a in read_all(VENDORED)[0]]
    assert [a.title for a in read_all(whole)[0]] == plain_titles
    packed = bz2.compress(data)
    (tmp_path / "wiki_01.bz2").write_bytes(packed[: len(packed) // 2])
    articles, skipped, reasons = read_all(tmp_path / "wiki_01.bz2")  # one bz2 block: nothing decodes
    assert articles == [] and reasons == {"truncated": 1} and skipped[0].record == "line 1"
    packed = gzip.compress(data)
    (tmp_path / "wiki_02.gz").write_bytes(packed[: len(packed) * 3 // 4])
    articles, skipped, reasons = read_all(tmp_path / "wiki_02.gz")
    assert reasons == {"empty": 1, "truncated": 1, "unterminated": 1}  # the document open at the break is named
    assert 0 < len(articles) < len(plain_titles) and [a.title for a in articles] == plain_titles[: len(articles)]


def test_vendored_real_links_output():
    # WikiExtractor 3.1.0 --links on the vendored enwiki dump sample: its anchors come out HTML-escaped
    path = SAMPLES / "wikiextractor" / "wiki_links_00"
    articles, skipped, reasons = read_all(path)
    assert reasons == {"empty": 1} and skipped[0].record == "728 (List of anthropologists)"
    by_title = {a.title: a for a in articles}
    assert set(by_title) == {"Affirming the consequent", "Aa River", "Algorithms (journal)"}
    fallacy = by_title["Affirming the consequent"]
    assert [(link.target, link.anchor) for link in fallacy.links[:2]] == [
        ("Formal fallacy", "formal fallacy"),
        ("Converse (logic)", "converse"),
    ]
    assert fallacy.links[0].sentence.startswith("Affirming the consequent, sometimes called converse error")
    assert fallacy.links[0].sentence.endswith("from the original statement.")
    raw_links = path.read_text("utf-8").count("&lt;a href=")
    assert sum(len(a.links) for a in articles) == raw_links  # every anchor became a link
    for article in articles:
        assert_clean(article, re.compile(r"</?a\b|&lt;|&gt;|&amp;"))
        for link in article.links:
            assert link.anchor in link.sentence and link.target[:1] == link.target[:1].upper()
