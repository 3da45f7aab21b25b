"""MS MARCO Document ranking's files as distributed: only the candidates' documents read, by offset or streamed."""

from __future__ import annotations

import builtins
import codecs
import gzip
import logging
import shutil

import pytest

from tests.eval.conftest import EVAL_SAMPLES
from wikiformer_kit.eval.collections import CollectionFormatError, load_collection, msmarco_docs, read_trec_run
from wikiformer_kit.eval.collections.folder import read_tsv_documents
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
    read_bytes, read_checks = [], []

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

        def read(self, size):  # the byte before a line: it must end the line before
            data = self.stream.read(size)
            read_checks.append(len(data))
            return data

    monkeypatch.setattr(msmarco_docs, "open", lambda path, mode: Counting(builtins.open(path, mode)), raising=False)
    wanted = {lines[1][0], lines[3][0], lines[4][0]}
    documents = read_msmarco_documents(corpus, wanted, lookup)
    assert set(documents) == wanted
    assert corpus.stat().st_size > 4 * (64 << 20)
    assert len(read_bytes) == 3 and sum(read_bytes) < 3 * 1000
    assert read_checks == [1, 1, 1]


def test_a_lookup_of_another_copy_is_an_error_naming_it(tmp_path):
    shutil.copy(DOCS, tmp_path / DOCS.name)
    rows = LOOKUP.read_text(encoding="utf-8").splitlines()
    shifted = [f"{r.split(chr(9))[0]}\t0\t{int(r.split(chr(9))[2]) + 1}" for r in rows]
    (tmp_path / LOOKUP.name).write_text("\n".join(shifted) + "\n", encoding="utf-8")
    with pytest.raises(
        CollectionFormatError,
        match=r"msmarco-docs-lookup.tsv:1: puts document D1555982 at byte 1 of msmarco-docs.tsv, inside a line",
    ):
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


def copy_sample(folder, compressed: bool = False, lookup_rows: list[str] | None = None, docs: bytes | None = None):
    """The sample in ``folder``, its documents and lookup gzipped when ``compressed``, with other lookup rows or
    document bytes when given; returns the documents' and lookup's paths."""
    suffix = ".gz" if compressed else ""
    for path in MINI.iterdir():
        if not path.name.startswith("msmarco-docs"):
            shutil.copy(path, folder / path.name)
    lookup = LOOKUP.read_bytes() if lookup_rows is None else ("\n".join(lookup_rows) + "\n").encode()
    documents = DOCS.read_bytes() if docs is None else docs
    docs_path, lookup_path = folder / (DOCS.name + suffix), folder / (LOOKUP.name + suffix)
    for path, data in ((docs_path, documents), (lookup_path, lookup)):
        path.write_bytes(gzip.compress(data) if compressed else data)
    return docs_path, lookup_path


def lookup_rows() -> list[list[str]]:
    return [line.split("\t") for line in LOOKUP.read_text(encoding="utf-8").splitlines()]


def columns_swapped() -> list[str]:
    return [f"{docid}\t{tsv}\t{trec}" for docid, trec, tsv in lookup_rows()]


def offsets_swapped() -> list[str]:
    """Two documents' offsets exchanged: the offsets no longer rise row by row."""
    rows = lookup_rows()
    rows[1][1:], rows[2][1:] = rows[2][1:], rows[1][1:]
    return ["\t".join(row) for row in rows]


def past_the_end() -> list[str]:
    return [f"{docid}\t{trec}\t{int(tsv) + (1 << 30)}" for docid, trec, tsv in lookup_rows()]


def not_numbers() -> list[str]:
    rows = [f"{docid}\t{trec}\t{tsv}" for docid, trec, tsv in lookup_rows()]
    rows[1] = rows[1].split("\t")[0] + "\tabc\t12x"
    return rows


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("damage", [columns_swapped, offsets_swapped, past_the_end, not_numbers])
def test_a_damaged_lookup_is_refused_naming_it_never_read_as_documents(tmp_path, damage, compressed):
    _, lookup = copy_sample(tmp_path, compressed, damage())
    assert sniff(lookup).kind == LOOKUP_KIND
    with pytest.raises(CollectionFormatError, match=rf"^{lookup}:\d+: .*download it again, or remove it") as error:
        load_collection(str(tmp_path))
    if damage is not_numbers:
        assert str(error.value).startswith(f"{lookup}:2: expected 'docid<TAB>offset_in_trec<TAB>offset_in_tsv'")


def test_a_damaged_lookup_does_not_lift_the_refusal_of_a_large_corpus_without_candidates(tmp_path, monkeypatch):
    copy_sample(tmp_path, lookup_rows=offsets_swapped())
    (tmp_path / "msmarco-docdev-top100").unlink()
    monkeypatch.setattr(msmarco_docs, "WHOLE_READ_LIMIT", 1000)
    with pytest.raises(CollectionFormatError, match=r"msmarco-docs.tsv: .* no candidate run beside it"):
        load_collection(str(tmp_path))


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])
def test_a_lookup_row_at_another_documents_line_names_the_lookup_and_its_line(tmp_path, compressed):
    rows = [f"{docid}\t{trec}\t{tsv}" for docid, trec, tsv in lookup_rows()]
    first, second = rows[0].split("\t"), rows[1].split("\t")
    rows[1] = f"{second[0]}\t{second[1]}\t{first[2]}"  # the second document put at the first one's line
    docs, lookup = copy_sample(tmp_path, compressed, rows)
    with pytest.raises(
        CollectionFormatError, match=rf"^{lookup}:2: puts document {second[0]} at byte 0 of {docs.name}"
    ):
        read_msmarco_documents(docs, {second[0]}, lookup)


def test_a_candidate_without_a_lookup_row_is_named_in_a_warning_naming_the_lookup(tmp_path, caplog):
    rows = [line for line in LOOKUP.read_text(encoding="utf-8").splitlines() if not line.startswith("D1281784\t")]
    _, lookup = copy_sample(tmp_path, lookup_rows=rows)
    with caplog.at_level(logging.WARNING):
        collection = load_collection(str(tmp_path))
    assert "D1281784" not in collection.documents  # judged relevant for query 900002
    assert f"{lookup}: no row for 1 of the 26 candidate documents (e.g. ['D1281784'])" in caplog.text


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])
def test_a_body_holding_tabs_is_rejoined_not_dropped(tmp_path, compressed, caplog):
    """A tab put for a space in a judged document's body: the offsets stay right, the text the same."""
    data = DOCS.read_bytes()
    start = data.index(b"D1281784\t")
    line_end = data.index(b"\n", start)
    body_start = data.rindex(b"\t", start, line_end) + 1
    space = data.index(b" ", body_start)
    docs, _ = copy_sample(tmp_path, compressed, docs=data[:space] + b"\t" + data[space + 1 :])
    with caplog.at_level(logging.WARNING):
        collection = load_collection(str(tmp_path))
    assert collection.documents == load_collection(str(MINI)).documents
    assert "were skipped" not in caplog.text
    assert read_tsv_documents(docs)["D1281784"] == collection.documents["D1281784"]


@pytest.mark.parametrize("victim", ["msmarco-docs.tsv.gz", "msmarco-docs-lookup.tsv.gz"])
@pytest.mark.parametrize("kept", [0.3, 0.9])
def test_a_truncated_gz_is_named_as_truncated(tmp_path, victim, kept):
    copy_sample(tmp_path, compressed=True)
    path = tmp_path / victim
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * kept)])
    with pytest.raises(CollectionFormatError, match=rf"^{path}(:\d+)?: .*truncated or damaged .*download it again"):
        load_collection(str(tmp_path))


def test_a_byte_order_mark_before_the_corpus_is_read(tmp_path):
    copy_sample(tmp_path, docs=codecs.BOM_UTF8 + DOCS.read_bytes())
    assert load_collection(str(tmp_path)).documents == load_collection(str(MINI)).documents


@pytest.mark.parametrize("victim", ["docs", "lookup"])
def test_a_utf16_corpus_or_lookup_is_named_as_utf16(tmp_path, victim):
    docs, lookup = copy_sample(tmp_path)
    path = docs if victim == "docs" else lookup
    path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
    with pytest.raises(CollectionFormatError, match=rf"^{path}: UTF-16 text: .*re-encode it as UTF-8"):
        load_collection(str(tmp_path))
