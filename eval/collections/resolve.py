"""Naming a collection on the command line: ``--collection C``.

``C`` is either

* ``FOLDER``: a folder whose format is detected from the files in it (see `detect_files`), or
* ``FORMAT:PATH``: ``FORMAT`` is one of `FORMATS`. ``hf:`` takes a Hub dataset id or a local dataset folder,
  ``hf:`` and ``beir:`` accept a qrels split as ``@split`` (default ``test``); for the other formats the prefix
  states what the folder must be detected as (a clear error otherwise).

A folder may hold ``collection.json`` with ``{"name": ..., "relevance_level": ...}`` (TREC DL: 2); without it
the name is the folder name and the relevance level is 1.

Detection, by content rather than by name, for every file of the folder (``README*``, ``*.md`` and hidden
files are ignored): ``corpus.jsonl`` means BEIR; ``*.parquet`` files or a README with ``configs:`` mean a
Hugging Face dataset folder; a JSON list is rank_llm candidates; ``<DOC>`` blocks are TREC SGML documents;
``<top>`` blocks or ``qid<TAB>text`` lines are topics (a TSV whose name contains corpus/collection/docs is a
document file ``docid<TAB>text``); ``.I`` records are SMART documents, or SMART queries when the name contains
``qry``/``quer`` (else the smaller file); 6-column ``Q0`` lines are TREC runs (named by file stem); 3- or
4-column numeric lines are qrels (exactly one qrels file per folder).
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from .beir import load_beir_folder, load_hf_collection
from .collection import Collection
from .errors import CollectionFormatError
from .rankllm import read_rankllm_candidates
from .smart import read_smart_documents, read_smart_qrels, read_smart_queries, read_smart_records
from .trec import read_trec_qrels, read_trec_run, read_trec_topics
from .trec_sgml import read_trec_sgml_documents

logger = logging.getLogger(__name__)

FORMATS = ("trec", "rankllm", "beir", "hf", "smart", "trec-sgml")


def load_collection(spec: str, relevance_level: int | None = None) -> Collection:
    """Load a collection named as on the command line (see the module docstring).

    Args:
        spec: ``FOLDER`` or ``FORMAT:PATH`` (``hf:`` and ``beir:`` with an optional ``@split``).
        relevance_level: overrides the folder's ``collection.json`` (and the default 1).

    Returns:
        The `Collection`; its problems (unjudged queries, missing documents, ...) are logged as warnings.
    """
    fmt, _, rest = spec.partition(":")
    if fmt in FORMATS and rest:
        path, _, split = rest.partition("@")
        split = split or "test"
    else:
        fmt, path, split = None, spec, "test"
    folder = Path(path)
    if fmt == "hf":
        collection = load_hf_collection(path, split=split)
    elif fmt == "beir" or (fmt is None and (folder / "corpus.jsonl").exists()):
        collection = load_beir_folder(folder, split=split)
    elif not folder.is_dir():
        raise FileNotFoundError(f"collection {spec!r}: {folder} is not a folder (formats: {', '.join(FORMATS)})")
    elif _is_hf_folder(folder):
        collection = load_hf_collection(str(folder), split=split)
    else:
        detected, collection = _load_detected_folder(folder)
        if fmt is not None and fmt != detected:
            raise CollectionFormatError(folder, f"asked for format {fmt!r} but the files look like {detected!r}")
    _apply_metadata(collection, folder if folder.is_dir() else None, relevance_level)
    logger.info("%s", collection.summary())
    collection.log_problems()
    return collection


def _is_hf_folder(folder: Path) -> bool:
    readme = folder / "README.md"
    has_configs = readme.exists() and re.search(r"^configs:", readme.read_text(encoding="utf-8"), re.M)
    return bool(has_configs) or any(folder.rglob("*.parquet"))


def _apply_metadata(collection: Collection, folder: Path | None, relevance_level: int | None) -> None:
    metadata_path = folder / "collection.json" if folder else None
    if metadata_path and metadata_path.exists():
        metadata = json.loads(metadata_path.read_text(encoding="utf-8"))
        collection.name = metadata.get("name", collection.name)
        collection.relevance_level = int(metadata.get("relevance_level", collection.relevance_level))
    if relevance_level is not None:
        collection.relevance_level = relevance_level


def sniff(path: Path) -> str | None:
    """Guess what a collection file holds from its first 4 KB; None for files to ignore."""
    if path.name.startswith(".") or path.name.startswith("README") or path.suffix in (".md", ".done"):
        return None
    if path.name == "collection.json":
        return None
    with open(path, encoding="utf-8", errors="replace") as handle:
        head = handle.read(4096)
    if path.suffix == ".json" and head.lstrip().startswith("["):
        return "rankllm"
    if "<DOC>" in head:
        return "sgml-documents"
    if re.search(r"<top>", head, re.I):
        return "topics"
    if re.match(r"\s*\.I\s", head):
        return "smart"
    first = next((line for line in head.splitlines() if line.strip()), "")
    fields = first.split()
    if len(fields) == 6 and fields[1] == "Q0":
        return "run"
    number = re.compile(r"-?\d+(\.\d+)?")
    if len(fields) == 4 and number.fullmatch(fields[1]) and number.fullmatch(fields[3]):
        return "qrels"  # TREC "qid iter docid grade", or CISI/CACM "qid docid 0 0.0"
    if len(fields) == 3 and all(number.fullmatch(f) for f in fields):
        return "qrels"  # Cranfield "qid docid code"
    if "\t" in first:
        return "tsv-documents" if re.search(r"corpus|collection|docs", path.name, re.I) else "topics"
    return None


def detect_files(folder: Path) -> dict[str, list[Path]]:
    """Group the files of a folder by `sniff` kind."""
    kinds: dict[str, list[Path]] = {}
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        kind = sniff(path)
        if kind:
            kinds.setdefault(kind, []).append(path)
        else:
            logger.debug("%s: not a collection file, ignored", path)
    return kinds


def _read_tsv_documents(path: Path) -> dict[str, str]:
    documents = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        docid, tab, text = line.partition("\t")
        if not tab:
            raise CollectionFormatError(path, "expected 'docid<TAB>text'", number)
        documents[docid] = text
    return documents


def _load_detected_folder(folder: Path) -> tuple[str, Collection]:
    kinds = detect_files(folder)
    if not kinds:
        raise CollectionFormatError(folder, "no collection file recognised (see eval/collections/resolve.py)")
    collection = Collection(folder.name)
    fmt = "trec"
    for path in kinds.get("rankllm", []):
        fmt = "rankllm"
        documents, queries, run = read_rankllm_candidates(path)
        collection.documents.update(documents)
        collection.queries.update(queries)
        collection.runs[path.stem] = run
    for path in kinds.get("sgml-documents", []):
        fmt = "trec-sgml"
        collection.documents.update(read_trec_sgml_documents(path))
    for path in kinds.get("tsv-documents", []):
        collection.documents.update(_read_tsv_documents(path))
    smart_files = kinds.get("smart", [])
    if smart_files:
        fmt = "smart"
        named = [p for p in smart_files if re.search(r"qry|quer", p.name, re.I)]
        query_files = named or [min(smart_files, key=lambda p: len(read_smart_records(p)))] * (len(smart_files) > 1)
        for path in smart_files:
            if path in query_files:
                collection.queries.update(read_smart_queries(path))
            else:
                collection.documents.update(read_smart_documents(path))
    for path in kinds.get("topics", []):
        for qid, text in read_trec_topics(path).items():
            collection.queries.setdefault(qid, text)
    qrels_files = kinds.get("qrels", [])
    if len(qrels_files) > 1:
        raise CollectionFormatError(folder, f"several qrels files {[p.name for p in qrels_files]}; keep one")
    if qrels_files:
        reader = read_smart_qrels if fmt == "smart" else read_trec_qrels
        collection.qrels = reader(qrels_files[0])
    for path in kinds.get("run", []):
        collection.runs[path.stem] = read_trec_run(path)
    return fmt, collection
