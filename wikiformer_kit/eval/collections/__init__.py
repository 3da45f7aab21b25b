"""Test collections: loaders for TREC, rank_llm, BEIR/MTEB (disk or Hub), SMART, TREC SGML, JSON-lines and MS MARCO
files (plain, compressed or in an archive; MS MARCO's document corpus read for its candidates only), folder
sniffing, and the `Collection` they all produce."""

from __future__ import annotations

from wikiformer_kit.eval.collections.beir import load_beir_folder, load_hf_collection
from wikiformer_kit.eval.collections.collection import Collection, Qrels, Run
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.folder import load_files, load_folder, read_msmarco_top1000, read_tsv_documents
from wikiformer_kit.eval.collections.jsonl import read_jsonl_documents, read_jsonl_qrels, read_jsonl_queries
from wikiformer_kit.eval.collections.msmarco_docs import read_msmarco_documents
from wikiformer_kit.eval.collections.rankllm import read_rankllm_candidates
from wikiformer_kit.eval.collections.relevance import default_relevance_level
from wikiformer_kit.eval.collections.resolve import FORMATS, load_collection
from wikiformer_kit.eval.collections.smart import (
    CRANFIELD_GAINS,
    read_smart_documents,
    read_smart_qrels,
    read_smart_queries,
)
from wikiformer_kit.eval.collections.sniff import sniff
from wikiformer_kit.eval.collections.trec import read_trec_qrels, read_trec_run, read_trec_topics, write_trec_run
from wikiformer_kit.eval.collections.trec_sgml import read_trec_sgml_documents

__all__ = [
    "CRANFIELD_GAINS",
    "FORMATS",
    "Collection",
    "CollectionFormatError",
    "Qrels",
    "Run",
    "default_relevance_level",
    "load_beir_folder",
    "load_collection",
    "load_files",
    "load_folder",
    "load_hf_collection",
    "read_jsonl_documents",
    "read_jsonl_qrels",
    "read_jsonl_queries",
    "read_msmarco_documents",
    "read_msmarco_top1000",
    "read_rankllm_candidates",
    "read_smart_documents",
    "read_smart_qrels",
    "read_smart_queries",
    "read_trec_qrels",
    "read_trec_run",
    "read_trec_sgml_documents",
    "read_trec_topics",
    "read_tsv_documents",
    "sniff",
    "write_trec_run",
]
