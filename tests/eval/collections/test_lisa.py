"""The Glasgow LISA collection in its original files: the vendored real records (data/samples/eval/lisa-mini)."""

from __future__ import annotations

import logging
import shutil
import tarfile

import pytest

from tests.eval.conftest import LISA_MINI
from wikiformer_kit.eval.collections import CollectionFormatError, load_collection
from wikiformer_kit.eval.collections.lisa import read_lisa_documents, read_lisa_qrels, read_lisa_queries
from wikiformer_kit.eval.collections.sniff import sniff
from wikiformer_kit.eval.first_stage import first_stage_run
from wikiformer_kit.eval.metrics import RunMismatchError, evaluate_run

JUDGED = {
    "1": {"3392", "3396"},
    "2": {"2623", "4291"},
    "3": {"1407", "1431", "3794", "3795", "3796"},
    "4": {"604", "3527", "4644", "5087", "5112", "5113", "5295"},
    "5": {"3401"},
}


def test_the_original_files_are_recognised_and_read():
    assert {p.name: sniff(p).kind for p in LISA_MINI.iterdir() if p.name != "README.md"} == {
        "LISA5.627": "lisa-documents",
        "LISA.QUE": "lisa-queries",
        "LISARJ.NUM": "lisa-qrels",
    }
    documents = read_lisa_documents(LISA_MINI / "LISA5.627")
    assert list(documents) == ["5640"]
    assert documents["5640"].startswith("NORDINFO COURSE IN BIBLIOMETRICS, 1981-10-26-29, HANASSARI, HELSINKI,")
    assert documents["5640"].endswith("AND OTHER AREAS OF LIBRARY ADMINISTRATION.")
    queries = read_lisa_queries(LISA_MINI / "LISA.QUE")
    assert list(queries) == ["24"] and queries["24"].endswith("CLUSTERING, TERM CLASSIFICATIONS.")
    # counts wrapped over 80-column lines (query 3's fifth document, query 4's last three, on the next line)
    qrels = read_lisa_qrels(LISA_MINI / "LISARJ.NUM")
    assert {q: set(d) for q, d in qrels.items()} == JUDGED and {g for d in qrels.values() for g in d.values()} == {1}


def test_the_older_lisa_rel_layout_and_the_newer_file_preferred(tmp_path, caplog):
    folder = tmp_path / "lisa"
    shutil.copytree(LISA_MINI, folder)
    # the same judgments in LISA.REL's layout ("Query N", "K Relevant Refs:", the numbers, -1)
    rel = "".join(
        f"Query {q}\n{len(d)} Relevant Refs:\n{' '.join(sorted(d, key=int))} -1\n\n" for q, d in JUDGED.items()
    )
    (folder / "LISA.REL").write_text(rel)
    assert sniff(folder / "LISA.REL").kind == "lisa-qrels"
    assert {q: set(d) for q, d in read_lisa_qrels(folder / "LISA.REL").items()} == JUDGED
    with caplog.at_level(logging.WARNING):
        collection = load_collection(str(folder))
    assert "LISA.REL: not read (the older LISA judgments; LISARJ.NUM is read)" in caplog.text
    assert {q: set(d) for q, d in collection.qrels.items()} == JUDGED
    # the sample holds none of the judged documents: said when loading, and a run is refused, not scored as zeros
    assert "only 0 of the 17 judged documents are in the document files ['LISA5.627']" in caplog.text
    run = first_stage_run(collection, "bm25", 10, ["24"])
    with pytest.raises(RunMismatchError, match="no query id in common"):
        evaluate_run(run, collection.qrels, source="bm25", documents=set(collection.documents))


def test_documents_and_queries_load_as_a_folder_and_as_a_tar_gz(tmp_path):
    folder = tmp_path / "lisa"
    folder.mkdir()
    for name in ("LISA5.627", "LISA.QUE"):
        shutil.copy(LISA_MINI / name, folder / name)
    collection = load_collection(f"lisa:{folder}")
    assert list(collection.documents) == ["5640"] and list(collection.queries) == ["24"]
    archive = tmp_path / "lisa.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="lisa")
    packed = load_collection(str(archive))
    assert packed.documents == collection.documents and packed.queries == collection.queries
    run = first_stage_run(packed, "bm25", 10, ["24"])
    assert list(run["24"]) == ["5640"]


def test_damaged_files_name_file_and_line(tmp_path):
    unclosed = tmp_path / "LISA.QUE"
    unclosed.write_text("24\nI AM INTERESTED IN ALMOST ANYTHING\n")
    with pytest.raises(CollectionFormatError, match=r"LISA.QUE:1: query 24 is not closed by '#'"):
        read_lisa_queries(unclosed)
    short = tmp_path / "LISARJ.NUM"
    short.write_text("  1  3  3392  3396\n")
    with pytest.raises(CollectionFormatError, match=r"LISARJ.NUM:1: query 1: 3 documents announced, 2 found"):
        read_lisa_qrels(short)


def test_text_outside_a_record_is_skipped_and_counted_with_its_file_and_line(tmp_path, caplog):
    # as in LISA1.501: a fragment of a record's text after its asterisks, before the next "Document N"
    lines = (LISA_MINI / "LISA5.627").read_text().splitlines()
    fragment = lines[-3:-1]  # two lines of the real abstract, out of place
    second = ["Document 5641", *lines[1:3], "", *lines[4:6], lines[-1]]
    damaged = tmp_path / "LISA5.627"
    damaged.write_text("\n".join([*lines, *fragment, "", fragment[0], *second]) + "\n")
    first_line = len(lines) + 1
    with caplog.at_level(logging.WARNING):
        documents = read_lisa_documents(damaged)
    assert list(documents) == ["5640", "5641"]
    assert documents["5640"] == read_lisa_documents(LISA_MINI / "LISA5.627")["5640"]
    assert documents["5641"] == " ".join(" ".join([*lines[1:3], *lines[4:6]]).split())  # no fragment in it
    assert (
        f"{damaged}: 1 text fragment outside a 'Document N' record skipped (3 lines, belonging to no document): "
        f"{damaged}:{first_line}" in caplog.text
    )
    collection_folder = tmp_path
    for name in ("LISA.QUE", "LISARJ.NUM"):
        shutil.copy(LISA_MINI / name, collection_folder / name)
    assert set(load_collection(str(collection_folder)).documents) == {"5640", "5641"}


def test_a_file_of_text_without_any_record_is_still_refused(tmp_path):
    path = tmp_path / "LISA0.001"
    path.write_text("NORDINFO COURSE IN BIBLIOMETRICS\n")
    with pytest.raises(CollectionFormatError, match=r"LISA0.001: no 'Document N' record"):
        read_lisa_documents(path)
