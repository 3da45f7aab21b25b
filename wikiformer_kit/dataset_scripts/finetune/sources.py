"""The inputs a mining run reads: a labelled collection (any layout ``python -m eval`` reads, MS MARCO's
``collection.tsv`` + ``queries.train.tsv`` + ``qrels.train.tsv`` among them) or MS MARCO's triples TSV
(``query<TAB>positive passage<TAB>negative passage``, as ``triples.train.small.tsv`` is distributed)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wikiformer_kit.eval.collections import Collection
from wikiformer_kit.eval.collections.sniff import sniff
from wikiformer_kit.eval.collections.textfile import read_head
from wikiformer_kit.eval.splits import load_collection_part, split_spec

TRIPLES_PREFIX = "triples:"


@dataclass
class Source:
    """What ``--collection`` named.

    Args:
        spec: the value as given.
        name: a short public name (the collection's, or the triples file's name).
        collection: the loaded collection (None for a triples file).
        part: the query part (``train``, ``dev``, ...) or None for all queries.
        triples: the triples TSV (None for a collection).
    """

    spec: str
    name: str
    collection: Collection | None = None
    part: str | None = None
    triples: Path | None = None


def is_triples_file(path: Path) -> bool:
    """A file of three tab-separated texts a line (not a qrels or run file, which sniff as such): every line of its
    head, or, for a file named ``triples*``, its first line (a bad line further on is a counted skip)."""
    if not path.is_file() or sniff(path).kind in ("qrels", "run", "archive", "rankllm"):
        return False
    head = read_head(path).decode("utf-8", errors="replace").lstrip("\ufeff")
    lines = [line for line in head.splitlines()[:-1] or head.splitlines() if line.strip()][:50]
    if lines and path.name.lower().startswith("triples"):
        return len(lines[0].split("\t")) == 3
    return bool(lines) and all(len(line.split("\t")) == 3 for line in lines)


def load_source(spec: str, relevance_level: int | None = None) -> Source:
    """Open ``--collection``: ``triples:FILE`` or a triples file is read as MS MARCO triples; anything else is a
    collection (``FOLDER``, an archive, ``FORMAT:PATH``, each with an optional ``#part``; see `eval.splits`).

    Raises:
        FileNotFoundError: no such triples file (collections raise as `eval.collections.load_collection` does).
    """
    if spec.startswith(TRIPLES_PREFIX):
        path = Path(spec.removeprefix(TRIPLES_PREFIX))
        if not path.is_file():
            raise FileNotFoundError(f"{spec}: no such triples file")
        return Source(spec, path.name, triples=path)
    if "#" not in spec and is_triples_file(Path(spec)):
        return Source(spec, Path(spec).name, triples=Path(spec))
    _, part = split_spec(spec)
    collection = load_collection_part(spec, relevance_level)
    name = collection.name.removesuffix(f"-{part}") if part else collection.name
    return Source(spec, name, collection=collection, part=part)
