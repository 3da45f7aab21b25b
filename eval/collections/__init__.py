"""Test collections: loaders for TREC, rank_llm, BEIR/MTEB (disk or Hub), SMART and TREC SGML files, and the
`Collection` they all produce."""

from __future__ import annotations

from .beir import load_beir_folder, load_hf_collection
from .collection import Collection, Qrels, Run
from .errors import CollectionFormatError
from .rankllm import read_rankllm_candidates
from .resolve import FORMATS, load_collection
from .smart import CRANFIELD_GAINS, read_smart_documents, read_smart_qrels, read_smart_queries
from .trec import read_trec_qrels, read_trec_run, read_trec_topics, write_trec_run
from .trec_sgml import read_trec_sgml_documents

__all__ = [
    "CRANFIELD_GAINS",
    "FORMATS",
    "Collection",
    "CollectionFormatError",
    "Qrels",
    "Run",
    "load_beir_folder",
    "load_collection",
    "load_hf_collection",
    "read_rankllm_candidates",
    "read_smart_documents",
    "read_smart_qrels",
    "read_smart_queries",
    "read_trec_qrels",
    "read_trec_run",
    "read_trec_sgml_documents",
    "read_trec_topics",
    "write_trec_run",
]
