"""MS MARCO Document ranking's files as distributed: only the candidates' documents read, by offset or streamed."""

from __future__ import annotations

import builtins
import gzip
import logging
import shutil

import pytest

from tests.eval.conftest import EVAL_SAMPLES
from wikiformer_kit.eval.collections import CollectionFormatError, load_collection, msmarco_docs, read_trec_run
from wikiformer_kit.eval.collections.msmarco_docs import LOOKUP_KIND, read_msmarco_documents
from wikiformer_kit.eval.collections.sniff import sniff

MINI = EVAL_SAMPLES / "msmarco-doc-mini"
DOCS = MINI / "msmarco-docs.tsv"
LOOKUP = MINI / "msmarco-docs-lookup.tsv"


def sample_lines() -> dict[str, list[str]]:
    return {
        line.split("\t")[0]: line.split("\t") for line in DOCS.read_text(encoding="utf-8").splitlines() if line.strip()
    }


def candidates() -> set[str]:
    return {docid for ranking in read_trec_run(MINI / "msmarco-docdev-top100").values() for docid in ranking}


def test_the_sample_lookup_gives_each_documents_byte_offset_in_its_third_column():
    data = DOCS.read_bytes()
    rows = [line.split("\t") for line in LOOKUP.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len(sample_lines()) == 40
    for docid, _trec, tsv in rows:
        assert data[int(tsv) :].startswith(docid.encode() + b"\t")
    assert sniff(LOOKUP).kind == LOOKUP_KIND
    assert sniff(DOCS).kind == "tsv-documents"


def test_the_folder_reads_only_the_candidates_documents_title_and_body():
    collection = load_collection(str(MINI))
    wanted = candidates()
    assert set(collection.documents) == wanted
    assert len(wanted) < 40  # some of the sample's documents are no query's candidate, and are not read
    _, url, title, body = sample_lines()["D1281784"]
    assert collection.documents["D1281784"] == " ".join(f"{title} {body}".split())
    assert url not in collection.documents["D1281784"]
    assert collection.queries["900002"] == "what is subrogation in insurance"
    assert collection.qrels["900002"] == {"D1281784": 1}
    assert list(collection.runs) == ["msmarco-docdev-top100"]
    assert collection.problems() == []


def test_compressed_files_are_streamed_once_for_the_same_documents(tmp_path):
    for path in MINI.iterdir():
        if path.name.startswith("msmarco-docs"):
            (tmp_path / (path.name + ".gz")).write_bytes(gzip.compress(path.read_bytes()))
        else:
            shutil.copy(path, tmp_path / path.name)
    assert sniff(tmp_path / "msmarco-docs-lookup.tsv.gz").kind == LOOKUP_KIND
    assert load_collection(str(tmp_path)).documents == load_collection(str(MINI)).documents


def test_without_a_lookup_the_corpus_named_msmarco_docs_is_streamed_for_the_candidates(tmp_path):
    for path in MINI.iterdir():
        if path != LOOKUP:
            shutil.copy(path, tmp_path / path.name)
    assert set(load_collection(str(tmp_path)).documents) == candidates()


def test_documents_are_read_by_seeking_only_to_their_lines(tmp_path, monkeypatch):
    """A corpus padded with 64 MiB holes between its lines: reading three documents reads three lines."""
    lines = list(sample_lines().values())[:5]
    corpus, lookup = tmp_path / "msmarco-docs.tsv", tmp_path / "msmarco-docs-lookup.tsv"
    rows = []
    with open(corpus, "wb") as out:
        for columns in lines:
            out.seek(out.tell() + (64 << 20) if rows else 0)
            out.write(b"\n")  # the hole's NUL bytes end in a line of their own
            rows.append(f"{columns[0]}\t0\t{out.tell()}\n")
            out.write(("\t".join(columns) + "\n").encode())
    lookup.write_text("".join(rows), encoding="utf-8")
    read_bytes = []

    class Counting:
        def __init__(self, stream):
            self.stream = stream

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.stream.close()

        def seek(self, offset):
            return self.stream.seek(offset)

        def readline(self):
            line = self.stream.readline()
            read_bytes.append(len(line))
            return line

    monkeypatch.setattr(msmarco_docs, "open", lambda path, mode: Counting(builtins.open(path, mode)), raising=False)
    wanted = {lines[1][0], lines[3][0], lines[4][0]}
    documents = read_msmarco_documents(corpus, wanted, lookup)
    assert set(documents) == wanted
    assert corpus.stat().st_size > 4 * (64 << 20)
    assert len(read_bytes) == 3 and sum(read_bytes) < 3 * 1000


def test_a_lookup_of_another_copy_is_an_error_naming_it(tmp_path):
    shutil.copy(DOCS, tmp_path / DOCS.name)
    rows = LOOKUP.read_text(encoding="utf-8").splitlines()
    shifted = [f"{r.split(chr(9))[0]}\t0\t{int(r.split(chr(9))[2]) + 1}" for r in rows]
    (tmp_path / LOOKUP.name).write_text("\n".join(shifted) + "\n", encoding="utf-8")
    with pytest.raises(CollectionFormatError, match=r"msmarco-docs-lookup.tsv puts document D1555982 at byte 1"):
        read_msmarco_documents(tmp_path / DOCS.name, {"D1555982"}, tmp_path / LOOKUP.name)


def test_a_line_without_four_columns_is_a_counted_skip(tmp_path, caplog):
    corpus = tmp_path / "msmarco-docs.tsv"
    corpus.write_text("D1\thttp://a\tTitle\tBody text\nD2\tno url or title\nD3\thttp://c\tThird\tbody\n")
    with caplog.at_level(logging.WARNING):
        documents = read_msmarco_documents(corpus, {"D1", "D2", "D3"})
    assert documents == {"D1": "Title Body text", "D3": "Third body"}
    assert "1 lines are not 'docid<TAB>url<TAB>title<TAB>body'" in caplog.text and "line 2" in caplog.text


def test_a_large_corpus_without_candidates_is_refused(tmp_path, monkeypatch):
    for name in ("msmarco-docs.tsv", "msmarco-docs-lookup.tsv", "msmarco-docdev-queries.tsv"):
        shutil.copy(MINI / name, tmp_path / name)
    monkeypatch.setattr(msmarco_docs, "WHOLE_READ_LIMIT", 1000)
    with pytest.raises(CollectionFormatError, match=r"no candidate run beside it.*msmarco-docdev-top100"):
        load_collection(str(tmp_path))
    monkeypatch.setattr(msmarco_docs, "WHOLE_READ_LIMIT", 1 << 30)
    assert len(load_collection(str(tmp_path)).documents) == 40


def test_the_trec_dl_2019_document_layout_is_read_with_its_graded_judgments(tmp_path):
    for name in ("msmarco-docs.tsv", "msmarco-docs-lookup.tsv"):
        shutil.copy(MINI / name, tmp_path / name)
    (tmp_path / "msmarco-test2019-queries.tsv").write_text("19335\twhat is subrogation in insurance\n")
    (tmp_path / "2019qrels-docs.txt").write_text("19335 Q0 D1281784 3\n19335 Q0 D2442854 0\n19335 Q0 D62203 1\n")
    (tmp_path / "msmarco-doctest2019-top100").write_text(
        "19335 Q0 D2442854 1 -5.1 IndriQueryLikelihood\n19335 Q0 D1281784 2 -5.3 IndriQueryLikelihood\n"
    )
    collection = load_collection(str(tmp_path))
    assert set(collection.documents) == {"D2442854", "D1281784"}
    assert collection.qrels["19335"]["D1281784"] == 3
    assert collection.relevance_level == 2  # TREC DL's grades 0-3: relevant from 2
    assert list(collection.runs) == ["msmarco-doctest2019-top100"]
