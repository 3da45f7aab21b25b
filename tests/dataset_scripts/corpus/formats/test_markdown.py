"""Markdown reader: title and heading levels, links with sentences, See also, bad input."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

from tests.conftest import SAMPLES
from tests.dataset_scripts.corpus.formats.markup import HTML_TAG, assert_clean, split_records
from wikiformer_kit.dataset_scripts.corpus.formats import markdown
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions

OPTIONS = ReaderOptions()
MARKDOWN_LEFTOVER = r"\]\(|^#+ |```|\*\*"


def read_one(tmp_path: Path, text: str | bytes, name: str = "doc.md", options: ReaderOptions = OPTIONS):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return split_records(markdown.read(path, options))


DOC = """# Solar *System*
The [Sun](https://en.wikipedia.org/wiki/Sun) is a star. It has [planets][p] and
a soft line break. Mail [me](mailto:x@y.z).

## Planets
There are eight planets, e.g. [Mars](./Mars_(planet)). See <a href="Venus">Venus</a> too.

#### Dwarf planets
Pluto **is** one. `code` stays.

```python
print("dropped")
```

### Outer
| name | kind |
|------|------|
| Jupiter | gas |

## Empty

## See Also
- [Planet](Planet)
- [Star](/wiki/Star "title")

<script>alert(1)</script>

[p]: /wiki/Planet
"""


def test_structure_links_and_see_also(tmp_path):
    (article,), skipped, _ = read_one(tmp_path, DOC)
    assert skipped == []
    assert (article.id, article.title, article.source) == ("doc", "Solar System", "markdown")
    assert article.abstract == "The Sun is a star. It has planets and a soft line break. Mail me."
    assert [(s.title, s.level, s.parent) for s in article.sections] == [
        ("Planets", 2, -1),
        ("Dwarf planets", 4, 0),  # level jump: under the nearest shallower section
        ("Outer", 3, 0),
        ("Empty", 2, -1),
        ("See Also", 2, -1),
    ]
    assert article.sections[1].path == ["Solar System", "Planets", "Dwarf planets"]
    assert article.sections[1].text == "Pluto is one. code stays."
    assert article.sections[2].text == "name kind\nJupiter gas"
    assert article.sections[3].text == ""
    links = [(link.target, link.anchor, link.section) for link in article.links]
    assert links == [
        ("Sun", "Sun", -1),
        ("Planet", "planets", -1),
        ("Mars (planet)", "Mars", 0),
        ("Venus", "Venus", 0),
        ("Planet", "Planet", 4),
        ("Star", "Star", 4),
    ]
    assert article.links[0].sentence == "The Sun is a star."
    assert article.links[2].sentence == "There are eight planets, e.g. Mars."
    assert article.see_also == ["Planet", "Star"]
    assert_clean(article, HTML_TAG)
    assert "alert" not in article.text and "dropped" not in article.text


def test_title_fallbacks(tmp_path):
    (article,), _, _ = read_one(tmp_path, "Intro text.\n\n## First\nBody.\n\n# Later top\nMore.", name="my-notes.md")
    assert article.title == "my-notes"
    assert [(s.title, s.level, s.parent) for s in article.sections] == [("First", 2, -1), ("Later top", 1, -1)]
    (article,), _, _ = read_one(tmp_path, "---\ntitle: From YAML\ndate: 2024-01-01\n---\n# Heading one\nText.\n")
    assert article.title == "From YAML" and article.sections == [] and article.abstract == "Text."
    (article,), _, _ = read_one(tmp_path, "Setext title\n============\nLead.\n\nPart\n----\nBody.\n")
    assert article.title == "Setext title" and [(s.title, s.level) for s in article.sections] == [("Part", 2)]


def test_readme_example():
    articles, _, _ = split_records(markdown.read(SAMPLES / "structured" / "wikiformer-readme-example.md", OPTIONS))
    (article,) = articles
    assert article.title == "Main Title" and article.abstract == "Welcome to our Markdown example."
    assert [(s.path, s.text) for s in article.sections] == [
        (["Main Title", "Section 1"], "Details about section 1."),
        (["Main Title", "Section 2"], "Details about section 2."),
    ]


def test_bad_input(tmp_path):
    assert read_one(tmp_path, b"")[2] == {"empty": 1}
    assert read_one(tmp_path, "# Only a title\n\n## And a heading\n")[2] == {"empty": 1}
    _, skipped, reasons = read_one(tmp_path, b"# T\nbad \xff byte\n", name="latin.md")
    assert reasons == {"non-utf8": 1} and skipped[0].record == "latin" and "byte 8" in skipped[0].detail
    (article,), _, _ = read_one(tmp_path, "\ufeff# BOM title\ntext")
    assert article.title == "BOM title"
    (article,), _, _ = read_one(tmp_path, "# T\n[unclosed](link\n**bold\n<div><p>raw html")
    assert_clean(article, HTML_TAG)


def test_deep_nesting_is_read_or_skipped_never_truncated(tmp_path):
    (article,), _, _ = read_one(tmp_path, "> " * 40 + "deep quote")
    assert article.abstract == "deep quote"
    nested_list = "".join("  " * i + f"- item{i}\n" for i in range(60))
    _, skipped, reasons = read_one(tmp_path, nested_list)
    assert reasons == {"too-deep": 1} and skipped[0].record == "doc"


def test_huge_document(tmp_path):
    paragraph = "A plain sentence of text goes here. " * 30 + "A [link](Target).\n\n"
    text = "# Huge\n" + "".join(f"## Part {i}\n" + paragraph * 130 for i in range(15))  # ~2 MB
    (article,), _, _ = read_one(tmp_path, text)
    assert len(article.sections) == 15 and len(article.links) == 15 * 130
    assert article.links[0].sentence == "A link."
    assert read_one(tmp_path, text, options=ReaderOptions(max_article_bytes=1_000_000))[2] == {"too-large": 1}


def test_sniff():
    assert markdown.sniff(Path("a/README.md"), b"anything")
    assert not markdown.sniff(Path("a/page.html"), b"# heading")


def test_compressed_file(tmp_path):
    path = tmp_path / "notes.md.gz"
    path.write_bytes(gzip.compress(b"# Zipped\nText [a](B).\n"))
    assert markdown.sniff(path, b"")
    (article,), _, _ = split_records(markdown.read(path, OPTIONS))
    assert (article.id, article.title, article.abstract) == ("notes", "Zipped", "Text a.")
    packed = gzip.compress(b"# Zipped\n" + random.Random(0).randbytes(20_000).hex().encode())
    path.write_bytes(packed[: len(packed) // 2])
    assert split_records(markdown.read(path, OPTIONS))[2] == {"truncated": 1}
