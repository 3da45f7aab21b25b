"""The original builder's own file layouts, for tools written against them (``--export csv|json|xml``).

``csv`` (the original's default, MatchZoo): ``documents.csv`` (``id_right,text_right``) and
``<split>/queries.csv`` (``id_left,text_left``); ``json`` (``-j``): ``documents.json`` and
``<split>/queries.json`` (``{id: text}``); ``xml`` (``-x``, Terrier): ``documents.xml`` (``<DOC><DOCNO>``) and
``<split>.queries.xml`` (``<top><num><title>``); each with ``<split>/qrels`` (TREC, tab-separated, as the original
writes it). Written under ``<output>/original/``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from xml.sax.saxutils import escape

from wikiformer_kit.dataset_scripts.wikir.assemble import SPLITS, Collection

FORMATS = ("csv", "json", "xml")


def export(collection: Collection, folder: Path, fmt: str) -> list[Path]:
    """Write the collection in one of the original's layouts under ``folder``; returns the files written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose from {', '.join(FORMATS)}")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    if fmt == "csv":
        written.append(_csv(folder / "documents.csv", ("id_right", "text_right"), collection.documents.items()))
        for split in SPLITS:
            rows = ((q, collection.queries[q]) for q in collection.splits[split])
            written.append(_csv(folder / split / "queries.csv", ("id_left", "text_left"), rows))
    elif fmt == "json":
        written.append(_json(folder / "documents.json", collection.documents))
        for split in SPLITS:
            queries = {q: collection.queries[q] for q in collection.splits[split]}
            written.append(_json(folder / split / "queries.json", queries))
    else:
        documents = collection.documents.items()
        docs = (f"<DOC>\n<DOCNO>{d}</DOCNO>\n<TEXT>\n{escape(t)}\n</TEXT></DOC>\n" for d, t in documents)
        written.append(_text(folder / "documents.xml", docs))
        for split in SPLITS:
            queries = ((q, escape(collection.queries[q])) for q in collection.splits[split])
            topics = (f"<top>\n<num>{q}</num><title>\n{text}\n</title>\n</top>\n" for q, text in queries)
            written.append(_text(folder / f"{split}.queries.xml", topics))
    for split in SPLITS:
        lines = (f"{q}\t0\t{d}\t{g}\n" for q in collection.splits[split] for d, g in collection.qrels[q].items())
        written.append(_text(folder / split / "qrels", lines))
    return written


def _text(path: Path, lines) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _csv(path: Path, header: tuple[str, str], rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _json(path: Path, data: dict[str, str]) -> Path:
    return _text(path, [json.dumps(data, ensure_ascii=False)])
