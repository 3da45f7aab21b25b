"""A folder, or a list of files, read as one collection: every file read or named, every ambiguity refused.

Each file is sniffed (`eval.collections.sniff`). A file that is not a collection file is named in a warning
(documentation files in one info line); none disappears silently. Where the files allow two readings, loading
stops with an error that lists the files and the ``--collection`` values that pick one reading:

* two qrels files, or two query files (topics and a queries TSV);
* document files in two formats (a SMART collection with a TREC-SGML copy beside it);
* document files of one format whose ids follow different schemes (``1033`` vs ``MED-1033``) or whose texts
  repeat under other ids (two copies of one corpus).

An archive beside other collection files is not read (a warning says so); a folder holding only one archive is
read from it.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import re
from collections import Counter
from pathlib import Path
from typing import NoReturn

from wikiformer_kit.eval.collections.archive import archive_stem, extract_archive
from wikiformer_kit.eval.collections.collection import Collection
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.jsonl import read_jsonl_documents, read_jsonl_qrels, read_jsonl_queries
from wikiformer_kit.eval.collections.lisa import NEWER_QRELS, read_lisa_documents, read_lisa_qrels, read_lisa_queries
from wikiformer_kit.eval.collections.msmarco_docs import LOOKUP_KIND, is_msmarco_documents, read_msmarco_documents
from wikiformer_kit.eval.collections.openmatch import read_openmatch_candidates
from wikiformer_kit.eval.collections.rankllm import read_rankllm_candidates
from wikiformer_kit.eval.collections.smart import (
    read_smart_documents,
    read_smart_qrels,
    read_smart_queries,
    read_smart_records,
)
from wikiformer_kit.eval.collections.sniff import LAYOUTS, QUERY_NAMES, sniff
from wikiformer_kit.eval.collections.textfile import content_lines
from wikiformer_kit.eval.collections.trec import read_trec_qrels, read_trec_run, read_trec_topics
from wikiformer_kit.eval.collections.trec_sgml import read_trec_sgml_documents

logger = logging.getLogger(__name__)

DOCUMENT_FORMATS = {
    "smart-documents": "smart",
    "sgml-documents": "trec-sgml",
    "tsv-documents": "trec",
    "jsonl-documents": "jsonl",
    "lisa-documents": "lisa",
}
"""Kinds of document files -> the format name that picks them in ``FORMAT:PATH``."""

DOCUMENT_READERS = {
    "smart": read_smart_documents,
    "sgml-documents": read_trec_sgml_documents,
    "jsonl-documents": read_jsonl_documents,
    "lisa-documents": read_lisa_documents,
}
"""What `sniff` calls document files -> their reader (other document files are TSV)."""
QUERY_READERS = {
    "topics": read_trec_topics,
    "jsonl-queries": read_jsonl_queries,
    "smart-queries": read_smart_queries,
    "lisa-queries": read_lisa_queries,
}
QRELS_READERS = {"qrels": None, "jsonl-qrels": read_jsonl_qrels, "lisa-qrels": read_lisa_qrels}
"""Kinds of qrels files -> their reader (TREC or SMART qrels: `_qrels_of` tells them apart)."""
REPEATED_SHARE = 0.5
"""Two document files are copies of one corpus when this share of the smaller one's texts is in the other."""


def load_folder(folder: Path, fmt: str | None = None) -> tuple[str, Collection]:
    """Read every file of ``folder`` (see the module docstring); returns the detected format and the collection."""
    entries = sorted(folder.iterdir())
    for sub in (p for p in entries if p.is_dir() and not p.name.startswith(".")):
        logger.warning("%s: not read (a subfolder; name it as --collection to read it)", sub)
    return load_files(folder.name, folder, [p for p in entries if p.is_file()], fmt, explicit=False)


def load_files(
    name: str, folder: Path, files: list[Path], fmt: str | None = None, explicit: bool = True
) -> tuple[str, Collection]:
    """Read the given files (in ``folder``, named in messages) as one collection; returns the detected format and
    the collection.

    Args:
        fmt: the ``FORMAT`` of ``FORMAT:PATH`` (picks the document files where there are two formats).
        explicit: the user named these files: a file that is not a collection file is an error, not a warning.

    Raises:
        CollectionFormatError: an ambiguous set of files (see the module docstring), no collection file, or a
            file that cannot be read.
    """
    kinds: dict[str, list[Path]] = {}
    documentation = []
    not_read: dict[str, str] = {}
    for path in files:
        found = sniff(path)
        if found.kind == "metadata":
            continue  # collection.json, read by eval.collections.resolve
        if found.kind == "documentation":
            documentation.append(path.name)
        elif found.kind is None:
            if explicit:
                layouts = f"; the layouts read: {LAYOUTS}" if found.unknown else ""
                raise CollectionFormatError(path, f"not a collection file: {found.reason}{layouts}")
            logger.warning("%s: not read: %s", path, found.reason)
            not_read[str(path)] = found.reason
        else:
            kinds.setdefault(found.kind, []).append(path)
    if documentation:
        logger.info("%s: not read (documentation): %s", folder, ", ".join(documentation))
    archives = kinds.pop("archive", [])
    if archives and not kinds:
        if len(archives) > 1:
            listed = ", ".join(f"--collection {a}" for a in archives)
            raise CollectionFormatError(folder, f"several archives {[a.name for a in archives]}; choose one: {listed}")
        detected, collection = load_folder(extract_archive(archives[0]), fmt)
        collection.name = archive_stem(archives[0]) if name == folder.name and not explicit else name
        return detected, collection
    for archive in archives:
        logger.warning("%s: not read (an archive beside other collection files; name it to read it instead)", archive)
    if not kinds:
        raise CollectionFormatError(folder, f"no collection file recognised; the layouts read: {LAYOUTS}")
    lookups = kinds.pop(LOOKUP_KIND, [])
    _split_smart(kinds)
    _prefer_newer_lisa_qrels(kinds, not_read)
    chosen, detected = _choose_document_format(folder, kinds, fmt)
    collection = Collection(name, not_read=not_read)
    labels: dict[str, dict[str, int]] = {}
    candidates = (read_rankllm_candidates, read_openmatch_candidates, read_msmarco_top1000)
    for kind, reader in zip(("rankllm", "openmatch", "msmarco-top1000"), candidates, strict=True):
        for path in kinds.get(kind, []):
            documents, queries, run, *found = reader(path)
            collection.documents.update(documents)
            collection.queries.update(queries)
            collection.runs[_run_name(path, collection.runs)] = run
            for query_id, graded in (found[0] if found else {}).items():  # OpenMatch's labels
                labels.setdefault(query_id, {}).update(graded)
    for path in kinds.get("run", []):
        collection.runs[_run_name(path, collection.runs)] = read_trec_run(path)
    document_files = kinds.get(next((k for k, f in DOCUMENT_FORMATS.items() if f == chosen), ""), [])
    candidates_only = _msmarco_documents(folder, document_files, lookups)
    if candidates_only:
        per_file = _read_candidates_documents(folder, document_files, lookups, collection)
    else:
        per_file = {path: _read_documents(path) for path in document_files}
    _check_copies(folder, per_file, kinds, chosen)
    for documents in per_file.values():
        collection.documents.update(documents)
    queries = _one_file(folder, kinds, QUERY_READERS, "query", detected)
    for qid, text in (QUERY_READERS[queries[0]](queries[1]) if queries else {}).items():
        collection.queries.setdefault(qid, text)
    qrels = _one_file(folder, kinds, QRELS_READERS, "qrels", detected)
    # OpenMatch's positive labels, where no qrels file is beside them
    collection.qrels = (_qrels_of(*qrels, kinds) if qrels else {}) or labels
    if per_file and collection.qrels and not (candidates_only and collection.runs):
        _check_judged_coverage(per_file, collection)
    return detected, collection


def _msmarco_documents(folder: Path, document_files: list[Path], lookups: list[Path]) -> bool:
    """Whether the documents are MS MARCO's corpus, read for the candidates only (`eval.collections.msmarco_docs`);
    a lookup without such a corpus beside it is named as not read."""
    tsv = [p for p in document_files if sniff(p).kind == "tsv-documents"]
    if len(lookups) > 1:
        raise CollectionFormatError(
            folder, f"several lookup files {[p.name for p in lookups]}; keep the one of {[p.name for p in tsv]}"
        )
    if lookups and len(tsv) != 1:
        for lookup in lookups:
            logger.warning("%s: not read (a lookup needs one msmarco-docs.tsv beside it, found %d)", lookup, len(tsv))
        lookups.clear()
    return len(tsv) == 1 and len(document_files) == 1 and is_msmarco_documents(tsv[0], lookups)


def _read_candidates_documents(
    folder: Path, document_files: list[Path], lookups: list[Path], collection: Collection
) -> dict[Path, dict[str, str]]:
    """MS MARCO's corpus read for the candidates of the collection's runs only (every document without a run)."""
    wanted = {docid for run in collection.runs.values() for ranking in run.values() for docid in ranking} or None
    path = document_files[0]
    documents = read_msmarco_documents(path, wanted, lookups[0] if lookups else None, collection.titles)
    if wanted is not None:
        logger.info(
            "%s: read the %d candidate documents of runs %s (%d candidates not in it)",
            path,
            len(documents),
            sorted(collection.runs),
            len(wanted) - len(documents),
        )
    return {path: documents}


def _split_smart(kinds: dict[str, list[Path]]) -> None:
    smart = kinds.pop("smart", [])
    if not smart:
        return
    named = [p for p in smart if QUERY_NAMES.search(p.name)]
    queries = named or ([min(smart, key=lambda p: len(read_smart_records(p)))] if len(smart) > 1 else [])
    if queries:
        kinds["smart-queries"] = queries
    documents = [p for p in smart if p not in queries]
    if documents:
        kinds["smart-documents"] = documents


def _prefer_newer_lisa_qrels(kinds: dict[str, list[Path]], not_read: dict[str, str]) -> None:
    """LISA ships its judgments twice: ``LISARJ.NUM`` and the older ``LISA.REL``; the newer one is read."""
    files = kinds.get("lisa-qrels", [])
    newer = [p for p in files if p.name.upper().startswith(NEWER_QRELS)]
    if newer and len(files) > 1:
        for path in files:
            if path not in newer:
                logger.warning("%s: not read (the older LISA judgments; %s is read)", path, newer[0].name)
                not_read[str(path)] = f"the older LISA judgments; {newer[0].name} is read"
        kinds["lisa-qrels"] = newer


def _choose_document_format(folder: Path, kinds: dict[str, list[Path]], fmt: str | None) -> tuple[str | None, str]:
    """The document format to read, and the format the folder is detected as."""
    by_format = {DOCUMENT_FORMATS[kind]: files for kind, files in kinds.items() if kind in DOCUMENT_FORMATS}
    if fmt is not None and by_format:
        if fmt not in by_format:
            raise CollectionFormatError(folder, f"asked for format {fmt!r} but the files look like {_one(by_format)!r}")
        for other, files in by_format.items():
            for path in files if other != fmt else ():
                logger.warning("%s: not read (documents in format %r; --collection asked for %r)", path, other, fmt)
        return fmt, fmt
    if len(by_format) > 1:
        listing = "; ".join(f"{f}: {[p.name for p in files]}" for f, files in by_format.items())
        offers = [(f, f"--collection {f}:{folder}") for f in by_format]
        _refuse_copies(folder, f"documents in {len(by_format)} formats ({listing})", kinds, by_format, offers, "one")
    if by_format:
        detected = next(iter(by_format))
        if fmt is None or fmt == detected:
            return detected, detected
    detected = "rankllm" if kinds.get("rankllm") or kinds.get("msmarco-top1000") else "trec"
    detected = "openmatch" if kinds.get("openmatch") and detected == "trec" else detected
    if fmt is not None and fmt != detected:
        raise CollectionFormatError(folder, f"asked for format {fmt!r} but the files look like {detected!r}")
    return None, detected


def _one(by_format: dict) -> str:
    return next(iter(by_format)) if len(by_format) == 1 else " and ".join(by_format)


def _read_documents(path: Path) -> dict[str, str]:
    return DOCUMENT_READERS.get(sniff(path).kind, read_tsv_documents)(path)


def read_tsv_documents(path: str | Path) -> dict[str, str]:
    """Documents of a TSV file: ``docid<TAB>text``, or MS MARCO's ``docid<TAB>url<TAB>title<TAB>body`` (the
    title and body joined; the URL left out).

    Raises:
        CollectionFormatError: a line without a tab, naming the line.
    """
    documents = {}
    for number, line in content_lines(path):
        columns = line.rstrip("\r\n").split("\t")
        if len(columns) < 2:
            raise CollectionFormatError(path, "expected 'docid<TAB>text'", number)
        if len(columns) >= 4 and re.match(r"https?://", columns[1]):  # a body's own tabs make more than 4
            columns = [columns[0], *columns[2:]]
        documents[columns[0]] = " ".join(" ".join(columns[1:]).split())
    return documents


def read_msmarco_top1000(path: str | Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, float]]]:
    """MS MARCO's ``top1000.*.tsv``: ``qid<TAB>pid<TAB>query<TAB>passage`` per line, the BM25 top 1000 of each
    query in no particular order.

    Returns:
        ``(documents, queries, run)``; every candidate scores 0.0 (the file has no ranking; trec_eval then orders
        ties by document id).

    Raises:
        CollectionFormatError: a line without four tab-separated fields, naming the line.
    """
    documents: dict[str, str] = {}
    queries: dict[str, str] = {}
    run: dict[str, dict[str, float]] = {}
    for number, line in content_lines(path):
        fields = line.rstrip("\r\n").split("\t")
        if len(fields) != 4:
            raise CollectionFormatError(path, "expected 'qid<TAB>pid<TAB>query<TAB>passage'", number)
        qid, pid, query, passage = fields
        queries.setdefault(qid, " ".join(query.split()))
        documents.setdefault(pid, " ".join(passage.split()))
        run.setdefault(qid, {})[pid] = 0.0
    return documents, queries, run


def _id_scheme(docid: str) -> str:
    """An id's shape: digits folded (``MED-12`` -> ``MED-9``, ``1033`` -> ``9``)."""
    return re.sub(r"\d+", "9", docid)


def _text_keys(documents: dict[str, str]) -> dict[str, str]:
    return {
        hashlib.blake2b(" ".join(t.lower().split()).encode(), digest_size=8).hexdigest(): d
        for d, t in documents.items()
        if t.strip()
    }


def _check_copies(folder: Path, per_file: dict[Path, dict[str, str]], kinds: dict[str, list[Path]], fmt) -> None:
    """Refuse document files of one format that look like two copies of a corpus (see the module docstring)."""
    problem = _copies_problem(per_file) if len(per_file) > 1 else ""
    if problem:
        others = [p for kind, files in kinds.items() if kind not in DOCUMENT_FORMATS for p in files]
        offers = [(path.name, f"--collection {fmt}:{','.join(str(p) for p in [path, *others])}") for path in per_file]
        _refuse_copies(folder, problem, kinds, {path.name: [path] for path in per_file}, offers, "the files")


def _copies_problem(per_file: dict[Path, dict[str, str]]) -> str:
    """Why document files look like two copies of a corpus (ids in other schemes, texts repeated under other ids),
    or ``""``."""
    schemes = {
        path: Counter(_id_scheme(d) for d in docs).most_common(1)[0][0] for path, docs in per_file.items() if docs
    }
    if len(set(schemes.values())) > 1:
        return "document ids in different schemes (" + ", ".join(f"{p.name}: {s!r}" for p, s in schemes.items()) + ")"
    keys = {path: _text_keys(docs) for path, docs in per_file.items()}
    for first, second in itertools.combinations(keys, 2):
        shared = [k for k in keys[first] if k in keys[second] and keys[first][k] != keys[second][k]]
        if len(shared) / (min(len(keys[first]), len(keys[second])) or 1) >= REPEATED_SHARE:
            example = shared[0]
            return (
                f"{len(shared)} texts of {first.name} repeat in {second.name} under other ids "
                f"(e.g. {keys[first][example]!r} = {keys[second][example]!r})"
            )
    return ""


def _refuse_copies(
    folder: Path,
    problem: str,
    kinds: dict[str, list[Path]],
    choices: dict[str, list[Path]],
    offers: list[tuple[str, str]],
    which: str,
) -> NoReturn:
    """Refuse what looks like two copies of a corpus, offering the ``(choice, --collection value)`` of ``offers``
    whose choice holds judged documents."""
    matching = _matching_choices(kinds, choices)
    offered = " or ".join(spec for name, spec in offers if name in matching)
    raise CollectionFormatError(
        folder,
        f"{problem}: two copies of a corpus? "
        + (f"choose {which}: {offered}" if offered else "")
        + _unmatched(choices, matching),
    )


def _judged_documents(kinds: dict[str, list[Path]]) -> set[str] | None:
    """The document ids the folder's one qrels file judges (read as `_qrels_of` reads it); ``None`` without
    exactly one qrels file."""
    files = [(kind, path) for kind in QRELS_READERS for path in kinds.get(kind, [])]
    if len(files) != 1:
        return None
    return {docid for judged in _qrels_of(*files[0], kinds).values() for docid in judged}


def _matching_choices(kinds: dict[str, list[Path]], choices: dict[str, list[Path]]) -> set[str]:
    """The document choices (name -> their files) that a suggestion may offer: those holding judged documents
    (a choice holding none would score 0 on every measure, and is refused once loaded); all of them when the
    folder has no single qrels file to check against."""
    judged = _judged_documents(kinds)
    if judged is None:
        return set(choices)
    return {name for name, files in choices.items() if any(judged & _read_documents(path).keys() for path in files)}


def _unmatched(choices: dict[str, list[Path]], matching: set[str]) -> str:
    left_out = [name for name in choices if name not in matching]
    if not left_out:
        return ""
    names = " and ".join(left_out)
    if len(left_out) == len(choices):
        return f"none holds the documents the qrels judge ({names}); check that the qrels belong to this corpus"
    return f" ({names}: not offered, the qrels judge none of its documents)"


def _one_file(
    folder: Path, kinds: dict[str, list[Path]], readers: dict, what: str, fmt: str
) -> tuple[str, Path] | None:
    """The kind and path of the folder's one file read by ``readers`` (query or qrels files), or None; two are
    refused with the choices."""
    files = [(kind, path) for kind in readers for path in kinds.get(kind, [])]
    if len(files) > 1:
        paths = [path for _, path in files]
        raise CollectionFormatError(
            folder, f"several {what} files {[p.name for p in paths]}; {_choices(kinds, paths, fmt)}"
        )
    return files[0] if files else None


def _qrels_of(kind: str, path: Path, kinds: dict[str, list[Path]]):
    """The qrels of ``path``: JSONL, LISA, SMART (beside SMART files, or three columns) or TREC."""
    if kind != "qrels":
        return QRELS_READERS[kind](path)
    smart = kinds.get("smart-documents") or kinds.get("smart-queries")
    first = next((line.split() for _, line in content_lines(path, errors="replace")), [])
    return read_smart_qrels(path) if smart or len(first) == 3 else read_trec_qrels(path)


def _choices(kinds: dict[str, list[Path]], alternatives: list[Path], fmt: str) -> str:
    """``choose one: --collection FMT:A,B,X or ...``: each alternative with every other file of the folder."""
    others = [p for files in kinds.values() for p in files if p not in alternatives]
    specs = [f"--collection {fmt}:{','.join(str(p) for p in [*others, choice])}" for choice in alternatives]
    return "choose one: " + " or ".join(specs)


def _run_name(path: Path, taken: dict) -> str:
    return path.stem if path.stem not in taken else path.name


def _check_judged_coverage(per_file: dict[Path, dict[str, str]], collection: Collection) -> None:
    """Warn when the qrels judge few or none of the documents (a sample of a corpus, or another copy of it); a run
    of a collection whose qrels judge none of its documents is refused when scored (`eval.metrics`)."""
    judged = {docid for docs in collection.qrels.values() for docid in docs}
    found = sum(docid in collection.documents for docid in judged)
    if found < len(judged) / 2:
        logger.warning(
            "%s: only %d of the %d judged documents are in the document files %s: are these qrels for this corpus?",
            collection.name,
            found,
            len(judged),
            [p.name for p in per_file],
        )
