"""WikiExtractor --json mode: the whole text is the abstract; bad lines are skipped naming the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, shared_data
from tests.dataset_scripts.corpus.formats.markup import assert_clean, split_records
from wikiformer_kit.dataset_scripts.corpus.formats import wikiextractor_json
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions

OPTIONS = ReaderOptions()


def write_lines(tmp_path: Path, lines: list[bytes | str | dict]) -> Path:
    path = tmp_path / "wiki.jsonl"
    encoded = [
        json.dumps(line).encode() if isinstance(line, dict) else line if isinstance(line, bytes) else line.encode()
        for line in lines
    ]
    path.write_bytes(b"\n".join(encoded) + b"\n")
    return path


def read_all(path: Path, options: ReaderOptions = OPTIONS):
    return split_records(wikiextractor_json.read(path, options))


def test_record_maps_to_abstract_without_sections(tmp_path):
    record = {"id": 7, "url": "https://x/7", "title": "Ampere", "text": "Ampere\n\nThe ampere is a unit.\n\nIt is SI."}
    articles, skipped, _ = read_all(write_lines(tmp_path, [record]))
    assert skipped == []
    (ampere,) = articles
    assert (ampere.id, ampere.title, ampere.url, ampere.source) == ("7", "Ampere", "https://x/7", "wikiextractor-json")
    assert ampere.abstract == "The ampere is a unit.\nIt is SI."
    assert ampere.sections == [] and ampere.links == []


def test_heading_lines_when_present_are_sections(tmp_path):
    record = {"id": "1", "title": "T", "text": "T\nLead.\n## History.\nOld.\n#### Deep.\nDeeper &amp; deeper."}
    (article,), _, _ = read_all(write_lines(tmp_path, [record]))
    assert [(s.title, s.level, s.parent) for s in article.sections] == [("History", 2, -1), ("Deep", 4, 0)]
    assert article.sections[1].text == "Deeper & deeper."


def test_bad_lines_are_skipped_with_their_line_numbers(tmp_path):
    good = {"id": "2", "title": "Good", "text": "Good\nText."}
    lines = [
        good,
        "{not json",
        b'{"id": "3", "title": "Bad", "text": "\xff"}',
        "",
        '["a list"]',
        {"id": "4", "title": "E", "text": "E\n\n"},
        good,
    ]
    articles, skipped, reasons = read_all(write_lines(tmp_path, lines))
    assert [a.title for a in articles] == ["Good", "Good"]
    assert reasons == {"bad-json": 1, "non-utf8": 1, "bad-record": 1, "empty": 1}
    assert [s.record for s in skipped] == ["line 2", "line 3", "line 5", "4 (E)"]
    assert all(s.file.endswith("wiki.jsonl") for s in skipped)


def test_empty_file_and_too_large_record(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert read_all(path) == ([], [], {})
    big = {"id": "5", "title": "Big", "text": "Big\n" + "Word. " * 900_000}  # ~5 MB on one line
    path = write_lines(tmp_path, [big])
    (article,), _, _ = read_all(path)
    assert len(article.abstract) > 5_000_000
    assert read_all(path, ReaderOptions(max_article_bytes=100_000))[2] == {"too-large": 1}


def test_sniff():
    head = (SAMPLES / "wikiextractor" / "wiki_toy.jsonl").read_bytes()[:4096]
    assert wikiextractor_json.sniff(Path("x.jsonl"), head)
    assert not wikiextractor_json.sniff(Path("x.jsonl"), b'<doc id="1" url="u" title="t">')


def test_vendored_real_lines():
    articles, skipped, reasons = read_all(SAMPLES / "wikiextractor" / "wiki_toy.jsonl")
    assert [a.title for a in articles] == ["Academy Award for Best Production Design", "Ada", "Algorithms (journal)"]
    assert reasons == {"empty": 1} and skipped[0].record == "728 (List of anthropologists)"
    assert {a.title: a.is_disambiguation for a in articles}["Ada"]
    for article in articles:
        assert article.abstract and not article.abstract.startswith(article.title + "\n")
        assert_clean(article)


@pytest.mark.shared_data
def test_prop_toy_corpus():
    path = shared_data("wikipedia/wikiextractor_json_prop_toy/wiki_toy.jsonl")
    articles, skipped, reasons = read_all(path)
    # 100 JSON records on 99 newline-terminated lines (the last has no newline): 99 with text, 1 empty
    assert len(articles) == 99 and reasons == {"empty": 1}
    assert len({a.id for a in articles}) == 99
    for article in articles:
        assert article.abstract and article.sections == []
        assert_clean(article)  # WikiExtractor leaked "<ref name=...>" fragments and a "]]" into three records
