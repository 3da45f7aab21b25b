"""Collection files in the encodings tools write: a UTF-8 byte-order mark is read (stripped); UTF-16 with a mark is
read, and without one (NUL bytes beside each character) named as UTF-16 with what to do."""

from __future__ import annotations

import codecs
import json
import logging

import pytest

from wikiformer_kit.eval.collections import CollectionFormatError, load_beir_folder, load_collection

FILES = {
    "tsv": {"collection.tsv": "D1\tWiki A wiki is a site.\nD2\tOther text\n", "queries.tsv": "1\twhat is a wiki\n"},
    "jsonl": {
        "docs.jsonl": json.dumps({"doc_id": "D1", "title": "Wiki", "body": "A wiki is a site."})
        + "\n"
        + json.dumps({"doc_id": "D2", "title": "Other", "body": "text"})
        + "\n",
        "queries.jsonl": json.dumps({"query_id": "1", "text": "what is a wiki"}) + "\n",
        "qrels.jsonl": json.dumps({"query_id": "1", "doc_id": "D1", "relevance": 1}) + "\n",
    },
}


def write(folder, files: dict[str, str], encoded: str | None = None, how: str = "bom") -> None:
    folder.mkdir()
    for name, text in files.items():
        data = text.encode("utf-8")
        if name == encoded:
            data = codecs.BOM_UTF8 + data if how == "bom" else text.encode(how)
        (folder / name).write_bytes(data)
    if "qrels.jsonl" not in files:
        (folder / "qrels.txt").write_text("1 0 D1 1\n", encoding="utf-8")


@pytest.mark.parametrize("layout", sorted(FILES))
@pytest.mark.parametrize("how", ["bom", "utf-16"])
def test_a_byte_order_mark_is_read(tmp_path, layout, how):
    files = FILES[layout]
    write(tmp_path / "plain", files)
    expected = load_collection(str(tmp_path / "plain"))
    for name in files:
        folder = tmp_path / f"{name}-{how}"
        write(folder, files, name, how)
        collection = load_collection(str(folder))
        assert (collection.documents, collection.queries, collection.qrels) == (
            expected.documents,
            expected.queries,
            expected.qrels,
        ), name


@pytest.mark.parametrize("how", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_named_as_utf16(tmp_path, how, caplog):
    write(tmp_path / "c", FILES["tsv"], "queries.tsv", how)
    with caplog.at_level(logging.WARNING):
        collection = load_collection(str(tmp_path / "c"))
    assert not collection.queries
    message = "UTF-16 text without a byte-order mark: re-encode it as UTF-8"
    assert f"queries.tsv: not read: {message}" in caplog.text
    with pytest.raises(CollectionFormatError, match=rf"queries.tsv: not a collection file: {message}"):
        load_collection(f"trec:{tmp_path / 'c' / 'collection.tsv'},{tmp_path / 'c' / 'queries.tsv'}")


def test_a_beir_file_in_utf16_without_a_byte_order_mark_is_named_as_utf16(tmp_path):
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(json.dumps({"_id": "D1", "text": "A wiki."}) + "\n", encoding="utf-8")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "1", "text": "wiki"}) + "\n", encoding="utf-16-le")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\tD1\t1\n", encoding="utf-8")
    with pytest.raises(CollectionFormatError, match=r"queries.jsonl:1: UTF-16 text without a byte-order mark"):
        load_beir_folder(folder)
