"""BEIR/MTEB layout: on disk (``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``) or as a Hugging Face
dataset (configs ``corpus``, ``queries`` and qrels) loaded with `datasets.load_dataset`."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path

from wikiformer_kit.eval.collections.collection import Collection, Qrels
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.local_dataset import load_dataset_at
from wikiformer_kit.eval.collections.textfile import content_lines, numbered_lines

logger = logging.getLogger(__name__)


def _document_text(title: str | None, text: str | None) -> str:
    return f"{title or ''} {text or ''}".strip()


def query_texts(rows: Iterable[tuple[object, object]], source: str | Path) -> dict[str, str]:
    """Query id -> text from ``(id, text)`` rows; a query whose text is null is skipped, counted in a warning naming
    ``source`` and the first ids (it has nothing to rank by)."""
    queries: dict[str, str] = {}
    null: list[str] = []
    for query_id, text in rows:
        if text is None:
            null.append(str(query_id))
        else:
            queries[str(query_id)] = str(text)
    if null:
        logger.warning("%s: %d queries with a null text skipped (e.g. %s)", source, len(null), null[:3])
    return queries


def read_jsonl(path: str | Path, required: tuple[str, ...]) -> list[dict]:
    """Read a JSON-lines file, checking that every record has the ``required`` keys.

    Raises:
        CollectionFormatError: a line that is not JSON or lacks a required key, naming the line.
    """
    records = []
    for number, line in content_lines(path):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise CollectionFormatError(path, f"not JSON ({error})", number) from None
        if not isinstance(record, dict):
            raise CollectionFormatError(path, f"expected a JSON object, got {type(record).__name__}", number)
        missing = [key for key in required if key not in record]
        if missing:
            raise CollectionFormatError(path, f"record lacks {missing}", number)
        records.append(record)
    return records


def read_beir_qrels_tsv(path: str | Path) -> Qrels:
    """Read a BEIR qrels TSV (header ``query-id corpus-id score``).

    Raises:
        CollectionFormatError: a row without three columns or with a non-integer score.
    """
    qrels: Qrels = {}
    header = None
    for number, line in numbered_lines(path):
        if header is None:
            header = line
            continue
        row = line.rstrip("\r\n").split("\t")
        if not line.strip():
            continue
        if len(row) != 3:
            raise CollectionFormatError(path, f"expected 'query-id<TAB>corpus-id<TAB>score', got {row}", number)
        try:
            qrels.setdefault(row[0], {})[row[1]] = int(float(row[2]))
        except (ValueError, OverflowError):
            raise CollectionFormatError(path, f"score {row[2]!r} is not a number", number) from None
    if header is None:
        raise CollectionFormatError(path, "empty qrels file")
    return qrels


def load_beir_folder(folder: str | Path, split: str = "test", name: str | None = None) -> Collection:
    """Load a BEIR folder: ``corpus.jsonl`` (``_id, title, text``), ``queries.jsonl`` (``_id, text``) and
    ``qrels/<split>.tsv``; the collection is named ``name``, else after the folder.

    Raises:
        CollectionFormatError: a missing file or a malformed record.
    """
    folder = Path(folder)
    qrels_path = folder / "qrels" / f"{split}.tsv"
    for needed in (folder / "corpus.jsonl", folder / "queries.jsonl", qrels_path):
        if not needed.exists():
            raise CollectionFormatError(needed, "missing file of the BEIR layout")
    documents = {
        str(r["_id"]): _document_text(r.get("title"), r["text"])
        for r in read_jsonl(folder / "corpus.jsonl", ("_id", "text"))
    }
    queries_path = folder / "queries.jsonl"
    queries = query_texts(((r["_id"], r["text"]) for r in read_jsonl(queries_path, ("_id", "text"))), queries_path)
    return Collection(name or folder.name, documents, queries, read_beir_qrels_tsv(qrels_path))


def _single_split(dataset, config: str, source: str):
    # load_dataset without split= returns a DatasetDict; the BEIR/MTEB corpus and queries have one split each
    if len(dataset) != 1:
        raise ValueError(f"{source} config {config!r} has splits {list(dataset)}; expected exactly one")
    return next(iter(dataset.values()))


def load_hf_collection(source: str, split: str = "test", name: str | None = None) -> Collection:
    """Load the BEIR/MTEB layout from the Hugging Face Hub or a local dataset folder via `datasets.load_dataset`.

    Configs read: ``corpus`` (``_id, title, text``), ``queries`` (``_id, text``) and the qrels
    (``query-id, corpus-id, score``) from the ``default`` config's ``split`` (MTEB layout); when ``source`` has
    no ``default`` config, from the companion dataset ``<source>-qrels`` (BEIR's layout on the Hub).

    ``source`` is a Hub dataset id (``mteb/scifact``) or a local folder with the same configs; the collection is
    named ``name``, else after the last part of ``source``.
    """
    from datasets import get_dataset_config_names

    corpus = _single_split(load_dataset_at(source, "corpus"), "corpus", source)
    queries = _single_split(load_dataset_at(source, "queries"), "queries", source)
    if "default" in get_dataset_config_names(source):
        qrels_rows = load_dataset_at(source, "default", split)
    else:
        qrels_rows = load_dataset_at(f"{source}-qrels", split=split)
    for dataset, columns, what in (
        (corpus, ("_id", "text"), "corpus"),
        (queries, ("_id", "text"), "queries"),
        (qrels_rows, ("query-id", "corpus-id", "score"), "qrels"),
    ):
        missing = [column for column in columns if column not in dataset.column_names]
        if missing:
            raise ValueError(f"{source} {what}: missing columns {missing} (has {dataset.column_names})")
    titles = corpus["title"] if "title" in corpus.column_names else [None] * len(corpus)
    documents = {str(i): _document_text(t, x) for i, t, x in zip(corpus["_id"], titles, corpus["text"], strict=True)}
    qrels: Qrels = {}
    for qid, docid, score in zip(qrels_rows["query-id"], qrels_rows["corpus-id"], qrels_rows["score"], strict=True):
        qrels.setdefault(str(qid), {})[str(docid)] = int(score)
    texts = query_texts(zip(queries["_id"], queries["text"], strict=True), f"{source} queries")
    return Collection(name or Path(source.rstrip("/")).name, documents, texts, qrels)
