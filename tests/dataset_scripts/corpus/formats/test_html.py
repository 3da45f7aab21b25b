"""HTML reader: headings h1-h6, links, dropped elements, encodings, malformed and huge pages."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SAMPLES
from tests.dataset_scripts.corpus.formats.markup import HTML_TAG, assert_clean, split_records
from wikiformer_kit.dataset_scripts.corpus.formats import html
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions

OPTIONS = ReaderOptions()


def read_one(tmp_path: Path, text: str | bytes, name: str = "page.html", options: ReaderOptions = OPTIONS):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return split_records(html.read(path, options))


PAGE = """<!DOCTYPE html>
<html><head><title>Solar System - Example Site</title><style>p { color: red }</style>
<script>var x = "<p>not text</p>";</script></head>
<body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<h1>Solar System</h1>
<p>The <a href="https://en.wikipedia.org/wiki/Sun">Sun</a> is a star. It has
<a href="#planets">planets</a> &amp; moons.<!-- a comment --></p>
<h2 id="planets">Planets<span class="mw-editsection">[edit]</span></h2>
<p>There are eight planets<sup class="reference"><a href="#cite-1">[1]</a></sup>, e.g. <a href="./Mars_(planet)">Mars</a>.
Write to <a href="mailto:a@b.c">us</a>.</p>
<h4>Dwarf planets</h4>
<ul><li>Pluto</li><li>Eris</li></ul>
<h3>Outer</h3>
<table><tr><th>name</th><th>kind</th></tr><tr><td>Jupiter</td><td>gas</td></tr></table>
<h2>Empty</h2>
<h2>See <i>also</i></h2>
<ul><li><a href="/wiki/Planet">Planet</a></li><li><a href="Star.html">Star</a></li></ul>
<noscript>Enable JS</noscript>
</body></html>
"""


def test_structure_links_and_see_also(tmp_path):
    (article,), skipped, _ = read_one(tmp_path, PAGE)
    assert skipped == []
    assert (article.id, article.title, article.source) == ("page", "Solar System", "html")
    assert article.abstract == "The Sun is a star. It has planets & moons."
    assert [(s.title, s.level, s.parent) for s in article.sections] == [
        ("Planets", 2, -1),
        ("Dwarf planets", 4, 0),
        ("Outer", 3, 0),
        ("Empty", 2, -1),
        ("See also", 2, -1),
    ]
    assert article.sections[0].text == "There are eight planets, e.g. Mars. Write to us."
    assert article.sections[1].text == "Pluto\nEris"
    assert article.sections[2].text == "name kind\nJupiter gas"
    assert article.sections[3].text == ""
    assert [(link.target, link.anchor, link.section) for link in article.links] == [
        ("Sun", "Sun", -1),
        ("#planets", "planets", -1),
        ("Mars (planet)", "Mars", 0),
        ("Planet", "Planet", 4),
        ("Star.html", "Star", 4),
    ]
    assert article.links[1].sentence == "It has planets & moons."
    assert article.see_also == ["Planet", "Star.html"]
    assert_clean(article, HTML_TAG)
    for dropped in ("Home", "not text", "color", "Enable JS", "[edit]", "[1]"):
        assert dropped not in article.text


def test_title_fallbacks(tmp_path):
    (article,), _, _ = read_one(tmp_path, "<html><head><title>Page title</title></head><body><h2>A</h2><p>x</p>")
    assert article.title == "Page title" and [s.title for s in article.sections] == ["A"]
    (article,), _, _ = read_one(tmp_path, "<p>Just text</p>", name="bare-page.htm")
    assert article.title == "bare-page" and article.abstract == "Just text"


def test_readme_example():
    articles, _, _ = split_records(html.read(SAMPLES / "structured" / "wikiformer-readme-example.html", OPTIONS))
    (article,) = articles
    assert article.title == "Main Title" and article.abstract == "Welcome to our web corpus example."
    assert [(s.path, s.text) for s in article.sections] == [
        (["Main Title", "Section 1"], "Details about section 1."),
        (["Main Title", "Section 2"], "Details about section 2. ."),
    ]


def test_malformed_html_is_recovered(tmp_path):
    page = "<html><body><h1>Broken<h2>Unclosed <b>bold</h2><p>para <a href='X'>link<div></span></td>text after"
    (article,), _, _ = read_one(tmp_path, page)
    # as browsers parse it (HTML5): the h2 closes the h1, the div closes the paragraph and the open link is
    # reopened inside the div
    assert article.title == "Broken"
    assert [(s.title, s.text) for s in article.sections] == [("Unclosed bold", "para link\ntext after")]
    assert [(link.target, link.anchor) for link in article.links] == [("X", "link"), ("X", "text after")]
    assert_clean(article, HTML_TAG)
    everything_in_a_heading = "<html><body><h1>Broken<h2>Unclosed <b>bold<p>para <a href='X'>link</a>"
    assert read_one(tmp_path, everything_in_a_heading)[2] == {"empty": 1}  # no text outside the headings


def test_encodings_and_empty_files(tmp_path):
    _, skipped, reasons = read_one(tmp_path, b"<p>caf\xe9</p>", name="latin.html")
    assert reasons == {"non-utf8": 1} and skipped[0].record == "latin"
    declared = '<html><head><meta charset="iso-8859-1"></head><body><p>café</p></body></html>'.encode("latin-1")
    (article,), _, _ = read_one(tmp_path, declared)
    assert article.abstract == "café"
    xhtml = (
        '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>ok</p></body></html>'
    )
    (article,), _, _ = read_one(tmp_path, xhtml)
    assert article.abstract == "ok"
    assert read_one(tmp_path, b"")[2] == {"empty": 1}
    assert read_one(tmp_path, "<html><body><script>only()</script></body></html>")[2] == {"empty": 1}


def test_deep_nesting_and_huge_page(tmp_path):
    deep = "<div>" * 2000 + "<p>deep <a href='T'>" + "<span>" * 40 + "text</a></p>" + "</div>" * 2000
    (article,), _, _ = read_one(tmp_path, f"<html><body><h1>Deep</h1>{deep}</body></html>")
    assert article.abstract == "deep text" and article.links[0].anchor == "text"
    deeper = "<div>" * 5000 + "<p>deeper than libxml2 reads</p>" + "</div>" * 5000
    (article,), _, _ = read_one(tmp_path, f"<html><body><h1>Deeper</h1>{deeper}</body></html>")
    assert article.abstract == "deeper than libxml2 reads"
    paragraph = "<p>" + "A plain sentence of text goes here. " * 30 + "A <a href='T'>link</a>.</p>"
    page = (
        "<html><body><h1>Huge</h1>"
        + "".join(f"<h2>Part {i}</h2>" + paragraph * 130 for i in range(15))
        + "</body></html>"
    )
    (article,), _, _ = read_one(tmp_path, page)  # ~2 MB
    assert len(article.sections) == 15 and len(article.links) == 15 * 130
    assert read_one(tmp_path, page, options=ReaderOptions(max_article_bytes=100_000))[2] == {"too-large": 1}


def test_sniff():
    assert html.sniff(Path("x.html"), b"")
    assert html.sniff(Path("download"), b"  <!DOCTYPE html><html>")
    assert not html.sniff(Path("notes.md"), b"# title")
