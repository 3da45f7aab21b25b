"""What a collection file holds, from its first lines (by content; a name decides only between look-alikes).

Layouts recognised, as the tools that write them lay them out:

* qrels ``qid iter docid grade`` with ``iter`` ``0`` or ``Q0`` (trec_eval, Anserini/Pyserini, ir_datasets
  exports, MS MARCO), CISI/CACM ``qid docid 0 0.0``, Cranfield ``qid docid code``; space or tab separated;
* runs ``qid Q0 docid rank score [tag]`` (trec_eval, Anserini, ir_datasets) and MS MARCO ``qid docid rank``;
* topics ``qid<TAB>text`` (Anserini, ir_datasets, MS MARCO ``queries.*.tsv``) and SGML ``<top>`` blocks;
* documents ``docid<TAB>text`` (MS MARCO ``collection.tsv``), ``docid<TAB>url<TAB>title<TAB>body``
  (MS MARCO documents) with their lookup ``docid<TAB>offset<TAB>offset`` (``msmarco-docs-lookup.tsv``), TREC SGML ``<DOC>`` blocks, SMART ``.I`` records, and JSON lines (Pyserini
  ``{"id", "contents"}``, ir_datasets ``{"doc_id", ...}`` and ``{"query_id", "text"}``, BEIR ``{"_id", ...}``);
* the Glasgow LISA files (``LISA0.001`` ..., ``LISA.QUE``, ``LISARJ.NUM``, ``LISA.REL``);
* OpenMatch's re-ranking JSON lines (``{query, doc, label, query_id, doc_id, retrieval_score}``);
* rank_llm candidates (a JSON list of ``{query, hits}``) and MS MARCO's ``top1000.*.tsv``
  (``qid<TAB>pid<TAB>query<TAB>passage``);
* archives of a collection (``.zip``, ``.tar``, ``.tar.gz``, ``.tgz``, ``.tar.bz2``, ``.tar.xz``).

Files may be compressed (``.gz``, ``.bz2``, ``.xz``; a truncated one is sniffed from what decompresses, so that its
reader names the damage) and start with a byte-order mark; UTF-16 without one is named as such, not read. A
tab-separated file named ``*lookup*`` is MS MARCO's lookup whatever its rows hold (its reader checks them).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from wikiformer_kit.eval.collections.archive import is_archive
from wikiformer_kit.eval.collections.msmarco_docs import LOOKUP_KIND, sniff_lookup
from wikiformer_kit.eval.collections.textfile import UTF16_HINT, compression_damage, encoding_of, looks_utf16, read_head

DOCUMENTATION = re.compile(r"^(README|LICEN[CS]E|COPYING|NOTICE|CHANGES)|\.(md|readme|rst|html?|pdf|done)$", re.I)
"""Files that describe a collection rather than belong to it: logged as not read, never an error."""

DOCUMENT_NAMES = re.compile(r"corpus|collection|docs|documents|passages", re.I)
QUERY_NAMES = re.compile(r"quer|topic|qry", re.I)
LAYOUTS = (
    "TREC qrels, runs and topics, TREC SGML <DOC>/<top> blocks, SMART .I records, MS MARCO TSV (collection, "
    "documents with their lookup, queries, top1000), JSON lines (Pyserini, ir_datasets, BEIR, OpenMatch), rank_llm "
    "candidates, LISA files, archives of these; plain or .gz/.bz2/.xz"
)
"""The layouts a collection folder is read in, as an error message lists them (the module docstring says more)."""
LOOKUP_NAME = re.compile(r"lookup", re.I)
"""A tab-separated file named so is MS MARCO's lookup whatever its rows hold (a damaged one is refused by its reader,
never read as documents)."""
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
_INTEGER = re.compile(r"-?\d+")


@dataclass(frozen=True)
class Sniffed:
    """What `sniff` found: a ``kind`` (None: not a collection file) and, for files not read, why (``unknown``: text
    in no layout the kit reads)."""

    kind: str | None
    reason: str = ""
    unknown: bool = False


def sniff(path: Path) -> Sniffed:
    """Guess what a collection file holds from its first 8 KB.

    Kinds: ``metadata`` (``collection.json``), ``documentation``, ``archive``, ``rankllm``, ``msmarco-top1000``, ``sgml-documents``, ``topics``, ``smart``, ``run``,
    ``qrels``, ``tsv-documents``, ``msmarco-doc-lookup``, ``jsonl-documents``, ``jsonl-queries``, ``jsonl-qrels``, ``openmatch``, ``lisa-documents``,
    ``lisa-queries``, ``lisa-qrels``; None with a reason for anything else.
    """
    if path.name.startswith("."):
        return Sniffed(None, "hidden file")
    if path.name == "collection.json":
        return Sniffed("metadata")
    if DOCUMENTATION.search(path.name):
        return Sniffed("documentation")
    if is_archive(path):
        return Sniffed("archive")
    raw = read_head(path)
    if not raw.strip():
        return Sniffed(None, compression_damage(path) or "empty file")
    encoding = encoding_of(raw)
    if encoding == "utf-8" and b"\0" in raw:
        if looks_utf16(raw):
            return Sniffed(None, f"UTF-16 text without a byte-order mark: {UTF16_HINT}")
        return Sniffed(None, "binary file (NUL bytes)")
    head = raw.decode(encoding, errors="replace").lstrip("\ufeff")
    if len(raw) == 8192 or compression_damage(path):  # the last line may be cut
        head = head[: head.rfind("\n") + 1] or head
    stripped = head.lstrip()
    if stripped.startswith("["):
        if re.match(r"\[\s*(\{\s*\"(query|hits)\"|\])", stripped):
            return Sniffed("rankllm")
        return Sniffed(None, "JSON, not rank_llm candidates", unknown=True)
    if stripped.startswith("{"):
        if path.suffix == ".json":  # one JSON object (a metrics or metadata file), not JSON lines
            return Sniffed("documentation")
        return _sniff_jsonl(path, head)
    if re.search(r"<DOC>", head, re.I) and re.search(r"<DOCNO>", head, re.I):
        return Sniffed("sgml-documents")
    if re.search(r"<top>", head, re.I):
        return Sniffed("topics")
    if re.match(r"\s*\.I\s", head):
        return Sniffed("smart")
    lisa = _sniff_lisa(head)
    if lisa:
        return Sniffed(lisa)
    lines = [line for line in head.splitlines() if line.strip()]
    return _sniff_lines(path, lines)


def _sniff_lines(path: Path, lines: list[str]) -> Sniffed:
    if LOOKUP_NAME.search(path.name) and "\t" in lines[0]:
        return Sniffed(LOOKUP_KIND)
    rows = [line.split() for line in lines[:200]]
    first = rows[0]
    width = len(first)
    same = [row for row in rows if len(row) == width]
    if len(same) == len(rows):
        if width in (5, 6) and all(_is_run_row(row) for row in rows):
            return Sniffed("run")
        if width == 4 and all(_is_qrels_row(row) for row in rows):
            return Sniffed("qrels")
        if width == 3 and all(all(_NUMBER.fullmatch(field) for field in row) for row in rows):
            return Sniffed("run") if _counts_up(rows) else Sniffed("qrels")
        if width == 3 and "\t" in lines[0] and sniff_lookup(rows):
            return Sniffed(LOOKUP_KIND)  # msmarco-docs-lookup.tsv: docid, offset in the TREC file, offset in the TSV
    if "\t" in lines[0]:
        columns = lines[0].rstrip("\r\n").split("\t")
        if DOCUMENT_NAMES.search(path.name):
            return Sniffed("tsv-documents")
        if QUERY_NAMES.search(path.name):
            return Sniffed("topics")
        if len(columns) >= 4 and re.match(r"https?://", columns[1]):  # tabs in a body make more than 4
            return Sniffed("tsv-documents")
        if len(columns) == 4 and all(_INTEGER.fullmatch(c) for c in columns[:2]):
            return Sniffed("msmarco-top1000")  # qid, pid, query, passage: candidates with their texts
        if len(columns) == 2:
            words = [len(line.partition("\t")[2].split()) for line in lines]
            return Sniffed("tsv-documents" if sum(words) / len(words) > 20 else "topics")
    return Sniffed(None, f"no known layout (first line {lines[0][:80].strip()!r})", unknown=True)


def _sniff_lisa(head: str) -> str | None:
    """The Glasgow LISA files (`eval.collections.lisa`): documents, ``LISA.QUE``, ``LISARJ.NUM``, ``LISA.REL``."""
    if re.match(r"\s*Document\s+\d+\s*\n", head):
        return "lisa-documents"
    if re.match(r"\s*Query\s+\d+\s*\n", head) and re.search(r"Relevant Refs", head, re.I):
        return "lisa-qrels"
    lines = [line for line in head.splitlines() if line.strip()]
    if re.fullmatch(r"\s*\d+\s*", lines[0]) and len(lines) > 1 and any(line.rstrip().endswith("#") for line in lines):
        return "lisa-queries"
    tokens = head.split()
    if (
        len(tokens) > 2
        and all(token.isdecimal() for token in tokens)
        and len({len(line.split()) for line in lines}) > 1
    ):
        position = 0
        while position + 1 < len(tokens):  # query, count, that many documents; the last may be cut
            position += 2 + int(tokens[position + 1])
        if position >= len(tokens) - 1:
            return "lisa-qrels"
    return None


def _is_run_row(row: list[str]) -> bool:
    return row[1] in ("Q0", "q0", "0") and bool(_INTEGER.fullmatch(row[3])) and bool(_NUMBER.fullmatch(row[4]))


def _is_qrels_row(row: list[str]) -> bool:
    # TREC "qid 0|Q0 docid grade", or CISI/CACM "qid docid 0 0.0"
    return bool(_NUMBER.fullmatch(row[3])) and (row[1] in ("0", "Q0") or bool(_NUMBER.fullmatch(row[1])))


def _counts_up(rows: list[list[str]]) -> bool:
    """MS MARCO runs (``qid docid rank``) number each query's rows 1, 2, 3, ...; Cranfield codes do not."""
    if len(rows) < 3:
        return False
    previous_qid, expected = None, 1
    for qid, _, rank in rows:
        expected = expected + 1 if qid == previous_qid else 1
        if rank != str(expected):
            return False
        previous_qid = qid
    return True


def _sniff_jsonl(path: Path, head: str) -> Sniffed:
    line = head.splitlines()[0]
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return Sniffed(None, "JSON, but not one object a line", unknown=True)
    if not isinstance(record, dict):
        return Sniffed(None, "JSON lines without objects", unknown=True)
    keys = set(record)
    if {"query_id", "query", "doc"} <= keys and keys & {"doc_id", "paper_id"}:
        return Sniffed("openmatch")
    if {"query_id", "doc_id", "relevance"} <= keys:
        return Sniffed("jsonl-qrels")
    if {"id", "contents"} <= keys or "doc_id" in keys:
        return Sniffed("jsonl-documents")
    if "query_id" in keys or {"qid", "query"} <= keys:
        return Sniffed("jsonl-queries")
    if {"_id", "text"} <= keys:
        if QUERY_NAMES.search(path.name):
            return Sniffed("jsonl-queries")
        return Sniffed("jsonl-documents" if DOCUMENT_NAMES.search(path.name) or "title" in keys else "jsonl-queries")
    return Sniffed(None, f"JSON lines with keys {sorted(keys)[:6]} (no known layout)", unknown=True)
