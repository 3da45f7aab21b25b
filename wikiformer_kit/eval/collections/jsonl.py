"""JSON-lines documents, queries and qrels as Pyserini, ir_datasets and BEIR write them.

* documents: Pyserini's JsonCollection ``{"id", "contents"}``, ir_datasets' ``export ... docs --format jsonl``
  ``{"doc_id", "text"}`` (or ``title``/``body`` fields), BEIR's ``{"_id", "title", "text"}``;
* queries: ir_datasets' ``{"query_id", "text"}``, ``{"qid", "query"}``, BEIR's ``{"_id", "text"}``;
* qrels: ir_datasets' ``{"query_id", "doc_id", "relevance"}``.
"""

from __future__ import annotations

from pathlib import Path

from wikiformer_kit.eval.collections.beir import query_texts, read_jsonl
from wikiformer_kit.eval.collections.collection import Qrels
from wikiformer_kit.eval.collections.errors import CollectionFormatError

_ID_KEYS = ("id", "doc_id", "_id")
_TEXT_KEYS = ("title", "contents", "text", "body")


def _first_key(record: dict, keys: tuple[str, ...], path: str | Path, number: int) -> str:
    key = next((k for k in keys if k in record), None)
    if key is None:
        raise CollectionFormatError(path, f"record {number} has none of the keys {list(keys)}")
    return key


def read_jsonl_documents(path: str | Path) -> dict[str, str]:
    """Documents of a JSON-lines file: id -> the title and text fields joined (see the module docstring).

    Raises:
        CollectionFormatError: a line that is not a JSON object, or a record without an id or text field.
    """
    documents = {}
    for number, record in enumerate(read_jsonl(path, ()), start=1):
        docid = str(record[_first_key(record, _ID_KEYS, path, number)])
        texts = [str(record[k]) for k in _TEXT_KEYS if isinstance(record.get(k), str | int | float)]
        if not texts:
            raise CollectionFormatError(path, f"record {number} ({docid!r}) has none of the keys {list(_TEXT_KEYS)}")
        documents[docid] = " ".join(" ".join(texts).split())
    return documents


def read_jsonl_queries(path: str | Path) -> dict[str, str]:
    """Queries of a JSON-lines file: id -> text (see the module docstring).

    A query whose text is null is skipped, counted in a warning.

    Raises:
        CollectionFormatError: a line that is not a JSON object, or a record without an id or text.
    """
    rows = []
    for number, record in enumerate(read_jsonl(path, ()), start=1):
        qid = record[_first_key(record, ("query_id", "qid", "_id", "id"), path, number)]
        text = record[_first_key(record, ("text", "query", "title"), path, number)]
        rows.append((qid, None if text is None else " ".join(str(text).split())))
    return query_texts(rows, path)


def read_jsonl_qrels(path: str | Path) -> Qrels:
    """ir_datasets' JSON-lines qrels: ``{"query_id", "doc_id", "relevance"}`` per line.

    Raises:
        CollectionFormatError: a record without these keys or with a non-integer relevance.
    """
    qrels: Qrels = {}
    for number, record in enumerate(read_jsonl(path, ("query_id", "doc_id", "relevance")), start=1):
        try:
            grade = int(float(record["relevance"]))
        except (TypeError, ValueError, OverflowError):
            raise CollectionFormatError(path, f"record {number}: relevance {record['relevance']!r}") from None
        qrels.setdefault(str(record["query_id"]), {})[str(record["doc_id"])] = grade
    return qrels
