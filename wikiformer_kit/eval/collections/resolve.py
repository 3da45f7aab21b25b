"""Naming a collection on the command line: ``--collection C``.

``C`` is either

* ``FOLDER``: a folder whose files are sniffed (see `eval.collections.sniff` for the layouts and
  `eval.collections.folder` for how a folder is read: every file read or named in a warning, ambiguities refused
  with the choices listed);
* an archive (``cran.tar.gz``, ``cisi.zip``): unpacked and read as a folder;
* a LeCaRD or CAIL-LCR folder (``query.json``, ``candidates/<ridx>/``, ``label_top30_dict.json``): read by
  `eval.collections.lecard`, each query's own candidates its run;
* ``irds:ID``: an `ir_datasets <https://ir-datasets.com>`_ id (``irds:cranfield``,
  ``irds:msmarco-passage/trec-dl-2020/judged``), read by `eval.collections.irds` (the package is optional);
* ``FORMAT:PATH``: ``FORMAT`` is one of `FORMATS`. ``hf:`` takes a Hub dataset id or a local dataset folder;
  ``hf:`` and ``beir:`` accept a qrels split as ``@split`` (default ``test``). For a folder the prefix picks the
  document files where there are two formats (``smart`` or ``trec-sgml``) and otherwise states what the folder
  must be detected as. ``PATH`` may also be a comma-separated list of files, read as one collection (how an
  ambiguous folder's error tells you to pick files).

A folder may hold ``collection.json`` with ``{"name": ..., "relevance_level": ...}`` (TREC DL: 2). Without a
stated level it follows from the qrels (`eval.collections.relevance`): 2 for TREC DL-style grades 0-3, else 1;
``Collection.relevance_source`` says which.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from wikiformer_kit.eval.collections.archive import archive_stem, extract_archive, is_archive
from wikiformer_kit.eval.collections.beir import load_beir_folder, load_hf_collection
from wikiformer_kit.eval.collections.collection import Collection
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.folder import load_files, load_folder
from wikiformer_kit.eval.collections.irds import PREFIX as IRDS_PREFIX
from wikiformer_kit.eval.collections.irds import load_irds_collection
from wikiformer_kit.eval.collections.lecard import is_lecard_folder, load_lecard_folder
from wikiformer_kit.eval.collections.relevance import default_relevance_level
from wikiformer_kit.eval.collections.textfile import read_json
from wikiformer_kit.home import find_kit_file

logger = logging.getLogger(__name__)

FORMATS = ("trec", "rankllm", "beir", "hf", "smart", "trec-sgml", "jsonl", "lisa", "lecard", "openmatch", IRDS_PREFIX)


def split_spec(spec: str) -> tuple[str | None, str, str]:
    """``(format, path, qrels split)`` of a ``--collection`` value: no format for a bare folder, file or archive; the
    split ``test`` unless ``FORMAT:PATH@split`` names one (an ``irds:`` id is kept whole)."""
    fmt, _, rest = spec.partition(":")
    if fmt == IRDS_PREFIX and rest:
        return fmt, rest, "test"
    if fmt in FORMATS and rest:
        path, _, split = rest.partition("@")
        return fmt, path, split or "test"
    return None, spec, "test"


def load_collection(spec: str, relevance_level: int | None = None) -> Collection:
    """Load a collection named as on the command line (``spec``: see the module docstring); ``relevance_level``
    overrides the folder's ``collection.json`` and the default from the qrels. Its problems (unjudged queries,
    missing documents, ...) are logged as warnings.

    Raises:
        CollectionFormatError: unreadable or ambiguous files (the message names them and the choices).
        FileNotFoundError: no such folder or file.
    """
    fmt, path, split = split_spec(spec)
    if fmt == IRDS_PREFIX:
        return _finished(load_irds_collection(path), None, relevance_level)
    if "," not in path and not Path(path).exists():
        path = str(find_kit_file(path) or path)  # the kit's own samples by the names its docs give, from any folder
    folder = Path(path)
    files = [Path(p) for p in path.split(",")] if "," in path else []
    if fmt == "hf":
        collection = load_hf_collection(path, split=split)
    elif files or folder.is_file() and not is_archive(folder):
        files = files or [folder]
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise FileNotFoundError(f"collection {spec!r}: no such file {missing}")
        folder = files[0].parent
        _, collection = load_files(folder.name, folder, files, fmt, explicit=True)
    elif folder.is_file():
        extracted = extract_archive(folder)
        _, collection = load_folder(extracted, fmt)
        collection.name, folder = archive_stem(folder), extracted
    elif fmt == "lecard" or (fmt is None and is_lecard_folder(folder)):
        collection = load_lecard_folder(folder)
    elif fmt == "beir" or (fmt is None and (folder / "corpus.jsonl").exists()):
        collection = load_beir_folder(folder, split=split)
    elif not folder.is_dir():
        raise FileNotFoundError(f"collection {spec!r}: {folder} is not a folder (formats: {', '.join(FORMATS)})")
    elif _is_hf_folder(folder):
        collection = load_hf_collection(str(folder), split=split)
    else:
        _, collection = load_folder(folder, fmt)
    return _finished(collection, folder if folder.is_dir() else None, relevance_level)


def _finished(collection: Collection, folder: Path | None, relevance_level: int | None) -> Collection:
    """The collection with its name and relevance level (from ``collection.json`` in ``folder`` when there is
    one), its summary logged and its problems warned about."""
    metadata_path = folder / "collection.json" if folder else None
    stated = None
    if metadata_path and metadata_path.exists():
        metadata = _read_metadata(metadata_path)
        collection.name = str(metadata.get("name", collection.name))
        if "relevance_level" in metadata:
            stated = metadata["relevance_level"], f"from {metadata_path}"
    if relevance_level is not None:
        stated = relevance_level, "from --relevance-level"
    collection.relevance_level, collection.relevance_source = stated or default_relevance_level(collection.qrels)
    logger.info("%s", collection.summary())
    collection.log_problems()
    return collection


def _is_hf_folder(folder: Path) -> bool:
    readme = folder / "README.md"
    has_configs = readme.exists() and re.search(r"^configs:", readme.read_text(encoding="utf-8"), re.M)
    return bool(has_configs) or any(folder.rglob("*.parquet"))


def _read_metadata(path: Path) -> dict:
    """``collection.json``: ``{"name": str, "relevance_level": int}``, both optional.

    Raises:
        CollectionFormatError: not a JSON object, or a relevance level that is not an integer.
    """
    metadata = read_json(path)
    if not isinstance(metadata, dict):
        raise CollectionFormatError(path, 'expected {"name": ..., "relevance_level": ...}')
    level = metadata.get("relevance_level", 1)
    if isinstance(level, bool) or not isinstance(level, int):
        raise CollectionFormatError(path, f"relevance_level {level!r} is not an integer")
    return metadata
