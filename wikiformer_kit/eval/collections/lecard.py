"""LeCaRD and CAIL-LCR (CAIL 2022 类案检索) in their distributed layout → `Collection`.

Both ship the same files (https://github.com/myx666/LeCaRD, https://github.com/china-ai-law-challenge/CAIL2022
``lajs/``), at the root of a folder or under LeCaRD's ``data/``:

* ``query.json``: one JSON object a line, ``{"ridx": 1325, "q": "<the case's facts>", "crime": [...], "path": ...}``
  (``ridx`` the query id, positive or negative);
* ``candidates/<ridx>/<id>.json`` (after unzipping LeCaRD's ``candidates1.zip`` and ``candidates2.zip`` the folders
  may sit one level deeper): each query's 100 candidate cases, ``{"ajName": <case name>, "ajjbqk": <basic facts>,
  "pjjg": <judgment>, "qw": <full text>, ...}``;
* ``label_top30_dict.json`` (training data; LeCaRD's ``data/label/``): ``{ridx: {id: grade 0-3}}``, in the order the
  nDCG of LeCaRD's script reads (`eval.metrics.lecard`);
* optionally ``combined_top100.json`` (LeCaRD's ``data/prediction/``): ``{ridx: [id, ...]}``, the candidates in the
  pooling's order.

A candidate's document is its basic facts (``ajjbqk``), the field LeCaRD's BERT baseline pairs with the query's facts,
titled with the case name (``ajName``); its id is the file's name. Each query's candidates are the collection's run
``candidates`` (in ``combined_top100.json``'s order where it is there, else in file-name order: a list of candidates,
not a ranking), so that re-ranking scores each query's own 100 and no other. A candidate file that is not a JSON
object with a text is skipped and counted, named in a warning.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from wikiformer_kit.eval.collections.collection import Collection
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.textfile import content_lines, read_json

logger = logging.getLogger(__name__)

QUERY_FILE = "query.json"
LABEL_FILE = "label_top30_dict.json"
ORDER_FILE = "combined_top100.json"
TEXT_FIELD = "ajjbqk"
TITLE_FIELD = "ajName"


def _found(folder: Path, name: str) -> Path | None:
    """``name`` at the root of ``folder`` or below it (LeCaRD's ``data/query/``, ``data/label/``), else None."""
    direct = folder / name
    if direct.is_file():
        return direct
    return next(iter(sorted(folder.rglob(name))), None)


def is_lecard_folder(folder: Path) -> bool:
    """Whether ``folder`` holds LeCaRD's layout: ``query.json`` and ``candidates/`` at its root (CAIL's ``input/``)
    or in LeCaRD's ``data/`` (looked up there only, so that sniffing a large folder stays cheap)."""
    roots = (folder, folder / "data")
    has_queries = any((root / QUERY_FILE).is_file() or (root / "query" / QUERY_FILE).is_file() for root in roots)
    return has_queries and any((root / "candidates").is_dir() for root in roots)


def read_lecard_queries(path: Path) -> dict[str, str]:
    """``ridx`` -> the query's facts (``q``) of a ``query.json``.

    Raises:
        CollectionFormatError: a line that is not a JSON object with ``ridx`` and ``q`` (file and line named).
    """
    queries = {}
    for number, line in content_lines(path):
        try:
            record = json.loads(line)
            queries[str(record["ridx"])] = str(record["q"])
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise CollectionFormatError(
                path, f"not a LeCaRD query (a JSON object with ridx and q): {type(error).__name__} {error}", number
            ) from None
    return queries


def _candidate_folders(folder: Path, query_ids: set[str]) -> dict[str, Path]:
    """Each query's candidate folder: a folder named by its ``ridx`` under a ``candidates`` folder."""
    found = {}
    for candidates in sorted(path for path in folder.rglob("candidates") if path.is_dir()):
        for sub in sorted(candidates.rglob("*")):
            if sub.is_dir() and sub.name in query_ids and sub.name not in found:
                found[sub.name] = sub
    return found


def load_lecard_folder(folder: str | Path) -> Collection:
    """The collection of a LeCaRD or CAIL-LCR folder (see the module docstring).

    Raises:
        CollectionFormatError: no ``query.json``, a bad query line, a label file that is not ``{ridx: {id: grade}}``.
    """
    folder = Path(folder)
    query_file = _found(folder, QUERY_FILE)
    if query_file is None:
        raise CollectionFormatError(folder, f"no {QUERY_FILE}: not a LeCaRD or CAIL-LCR folder")
    collection = Collection(folder.name, queries=read_lecard_queries(query_file))
    label_file = _found(folder, LABEL_FILE)
    if label_file is not None:
        collection.qrels = _read_labels(label_file)
    order_file = _found(folder, ORDER_FILE)
    order = read_json(order_file) if order_file is not None else {}
    skipped = 0
    run = {}
    for query_id, candidates in _candidate_folders(folder, set(collection.queries)).items():
        files = {path.stem: path for path in sorted(candidates.glob("*.json"))}
        listed = [str(doc) for doc in order.get(query_id, []) if str(doc) in files]
        ranked = listed + sorted(set(files) - set(listed), key=list(files).index)
        run[query_id] = {}
        for rank, doc_id in enumerate(ranked):
            if doc_id not in collection.documents and not _read_candidate(files[doc_id], doc_id, collection):
                skipped += 1
                continue
            run[query_id][doc_id] = float(len(ranked) - rank)
    if skipped:
        logger.warning("%s: %d candidate files skipped (not a JSON object with %r)", folder, skipped, TEXT_FIELD)
    missing = [query_id for query_id in collection.queries if query_id not in run]
    if missing:
        logger.warning("%s: %d queries have no candidates folder (e.g. %s)", folder, len(missing), missing[0])
    collection.runs = {"candidates": run} if run else {}
    return collection


def _read_candidate(path: Path, doc_id: str, collection: Collection) -> bool:
    """Add one candidate case to ``collection``; False (logged) when the file is not a case with a text."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        text = record[TEXT_FIELD]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as error:
        logger.warning("%s: skipped (%s: %s)", path, type(error).__name__, error)
        return False
    title = str(record.get(TITLE_FIELD) or "").strip()
    collection.documents[doc_id] = f"{title} {str(text).strip()}".strip() if title else str(text).strip()
    if title:
        collection.titles[doc_id] = title
    return True


def _read_labels(path: Path) -> dict[str, dict[str, int]]:
    labels = read_json(path)
    try:
        return {str(query): {str(doc): int(grade) for doc, grade in graded.items()} for query, graded in labels.items()}
    except (AttributeError, TypeError, ValueError) as error:
        raise CollectionFormatError(path, f"not LeCaRD's labels {{ridx: {{id: grade}}}} ({error})") from None
