"""MS MARCO document TSV: docid, url, title, body; the body is the abstract; bad lines are counted skips."""

from __future__ import annotations

from tests.conftest import shared_data
from tests.dataset_scripts.corpus.formats.markup import split_records
from wikiformer_kit.dataset_scripts.corpus.formats import msmarco_tsv
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, read_head
from wikiformer_kit.dataset_scripts.corpus.sources import detect_format

LINES = [
    b"D1555982\thttps://answers.yahoo.com/q\tThe hot glowing surfaces of stars.?\tScience  The hot glowing\tsurfaces",
    b"D301595\thttp://example.org/x\tStar\tA star is   a luminous ball of plasma.",
    b"D9\thttp://example.org/y\t\t",
    b"\xff\xfe broken",
    b"D10\thttp://example.org/z\tTitle only\t",
]


def test_lines_become_documents_and_bad_lines_are_skipped(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_bytes(b"\n".join(LINES[1:]) + b"\n")
    articles, skipped, _ = split_records(msmarco_tsv.read(path, ReaderOptions()))
    assert [(a.id, a.title, a.abstract, a.url) for a in articles] == [
        ("D301595", "Star", "A star is a luminous ball of plasma.", "http://example.org/x"),
        ("D10", "Title only", "", "http://example.org/z"),
    ]
    assert articles[0].sections == [] and articles[0].links == [] and articles[0].source == "msmarco-tsv"
    assert [(s.reason, s.record) for s in skipped] == [("empty", "D9"), ("non-utf8", "line 3")]
    five = tmp_path / "five.tsv"
    five.write_bytes(LINES[0] + b"\n")
    assert [s.reason for s in split_records(msmarco_tsv.read(five, ReaderOptions()))[1]] == ["bad-record"]


def test_prop_toy_corpus_is_detected_and_read():
    path = shared_data("eval/msmarco_docs_prop_toy/msmarco_toy.tsv")
    assert msmarco_tsv.sniff(path, read_head(path)) and detect_format(path).NAME == "msmarco-tsv"
    articles, skipped, _ = split_records(msmarco_tsv.read(path, ReaderOptions()))
    assert len(articles) == 100 and not skipped
    assert all(a.id.startswith("D") and a.abstract for a in articles)
