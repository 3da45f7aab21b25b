"""Assertions shared by the format reader tests: no markup left in any text field, records by kind; a corpus built
from one input at a given number of processes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pyarrow.parquet as pq

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats.base import Skipped

WIKITEXT_LEFTOVERS = ("{{", "}}", "[[", "]]", "'''", "<ref", "{|", "|}")
HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(\s[^<>]*)?/?>")
LATEX_COMMAND = re.compile(r"\\[a-zA-Z]+|\\begin|\\end")


def text_fields(article: Article) -> list[str]:
    """Every plain-text field of an article: title, abstract, section titles/texts/paths, link fields, See also."""
    fields = [article.title, article.abstract, *article.see_also]
    for section in article.sections:
        fields += [section.title, section.text, *section.path]
    for link in article.links:
        fields += [link.anchor, link.sentence]
    return fields


def assert_clean(article: Article, extra: re.Pattern | None = None) -> None:
    """Fail when any text field holds wikitext leftovers (or matches ``extra``, e.g. an HTML tag)."""
    for text in text_fields(article):
        for token in WIKITEXT_LEFTOVERS:
            assert token not in text, f"{article.title}: {token!r} left in {text[:200]!r}"
        if extra is not None:
            assert not extra.search(text), f"{article.title}: markup left in {text[:200]!r}"


def split_records(records: Iterable) -> tuple[list[Article], list[Skipped], Counter]:
    """Articles, Skipped records and the skip reasons counted; anything else fails the test."""
    articles, skipped = [], []
    for record in records:
        if isinstance(record, Article):
            articles.append(record)
        elif isinstance(record, Skipped):
            skipped.append(record)
        else:
            raise AssertionError(f"unexpected record {record!r}")
    return articles, skipped, Counter(s.reason for s in skipped)


def build_corpus(path: Path, out: Path, processes: int) -> tuple[list[str], list[dict]]:
    """Build the corpus of ``path`` into ``out`` with ``--num-proc processes`` (a fresh process, as a user runs it):
    its rows as sorted JSON lines (to compare builds whatever their shard order) and its recorded shard plan."""
    command = [sys.executable, "-m", "dataset_scripts.corpus", "--input", str(path), "--output-dir", str(out),
               "--num-proc", str(processes)]  # fmt: skip
    result = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    tables = sorted((out / "data").glob("*.parquet"))
    rows = sorted(json.dumps(row, sort_keys=True) for table in tables for row in pq.read_table(table).to_pylist())
    return rows, json.loads((out / "logs" / "shards.json").read_text())
