"""The reader contract's two readers (``read`` and the raw hook ``read_raw``) and the one place that parses raw pages."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.dataset_scripts.corpus import reading
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.extract import read_articles
from wikiformer_kit.dataset_scripts.corpus.formats import markdown, wikitext_file
from wikiformer_kit.dataset_scripts.corpus.formats.base import RawPage, ReaderOptions, Redirect
from wikiformer_kit.dataset_scripts.corpus.sources import FORMAT_MODULES, Shard, format_modules

FORMATS = PROJECT_ROOT / "wikiformer_kit" / "dataset_scripts" / "corpus" / "formats"
PAGE = "'''Wiki''' is a [[website]].\n\n== History ==\nIt was made in 1995 by [[Ward Cunningham]].\n"


def test_every_format_module_has_one_reader_and_imports_nothing_above_it():
    for module in format_modules().values():
        assert hasattr(module, "read") != hasattr(module, "read_raw"), module.NAME
    for name in FORMAT_MODULES:
        tree = ast.parse((FORMATS / f"{name}.py").read_text("utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 2}
        assert not imported & {"extract", "steps", "build", "reading", "sources"}, (name, imported)


def test_raw_pages_are_parsed_once_by_read_articles(tmp_path):
    page = tmp_path / "Wiki.wiki"
    page.write_text(PAGE, encoding="utf-8")
    (raw,) = wikitext_file.read_raw(page, ReaderOptions())
    assert isinstance(raw, RawPage) and raw.title == "Wiki"
    (article,) = read_articles(wikitext_file, page)
    assert isinstance(article, Article) and [s.title for s in article.sections] == ["History"]
    assert [link.target for link in article.links] == ["Website", "Ward Cunningham"]
    redirect = tmp_path / "WWW.wiki"
    redirect.write_text("#REDIRECT [[World Wide Web]]", encoding="utf-8")
    assert list(read_articles(wikitext_file, redirect)) == [Redirect("WWW", "World Wide Web")]


def test_a_format_with_its_own_read_is_passed_through():
    path = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "structured" / "wikiformer-readme-example.md"
    assert list(read_articles(markdown, path)) == list(markdown.read(path, ReaderOptions()))


def test_a_page_file_counts_its_bytes_and_refuses_a_byte_range(tmp_path):
    page = tmp_path / "Wiki.wiki"
    page.write_text(PAGE, encoding="utf-8")
    counted = []
    list(wikitext_file.read_raw(page, ReaderOptions(), on_bytes=counted.append))
    assert sum(counted) == page.stat().st_size
    with pytest.raises(ValueError, match="read whole"):
        list(wikitext_file.read_raw(page, ReaderOptions(), byte_range=(0, 10)))


def test_a_small_shard_is_read_ahead_in_a_thread(monkeypatch, tmp_path):
    page = tmp_path / "Wiki.wiki"
    page.write_text(PAGE, encoding="utf-8")
    monkeypatch.setattr(reading, "read_raw_in_process", lambda *a: pytest.fail("forked for a one-page file"))
    records = list(reading.read_shard(Shard(str(page), "wikitext"), ReaderOptions(), "process", lambda n: None))
    assert [type(r) for r in records] == [RawPage]
    assert Path(records[0].file) == page
