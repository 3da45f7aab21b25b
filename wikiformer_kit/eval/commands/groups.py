"""The option groups several subcommands share, as dataclasses the subcommands' options inherit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from wikiformer_kit.cli.options import option

FIRST_STAGE_HELP = (
    "bm25, paper (BM25 with the paper's k1=3.8, b=0.87), dense, or given (the first run shipped with the collection)"
)


@dataclass(kw_only=True)
class CollectionOptions:
    """The collection a subcommand ranks or evaluates on."""

    collection: str = option(
        required=True,
        help="FOLDER (files sniffed), an archive (.tar.gz, .zip), FORMAT:PATH (trec, rankllm, beir, hf, smart, "
        "trec-sgml, jsonl, lisa; PATH a folder or comma-separated files), a Hub dataset (hf:ID) or an ir_datasets id "
        "(irds:ID, e.g. irds:cranfield); #dev or #test after it keeps one part of the queries, #train or #heldout one "
        "part of the fine-tuning split (eval/splits.py)",
    )
    relevance_level: int | None = option(
        help="smallest relevant grade for binary measures (default: collection.json, else 2 for TREC DL-style "
        "grades 0-3, else 1)"
    )
    max_queries: int | None = option(help="use only the first N judged queries (quick runs on CPU)")


@dataclass(kw_only=True)
class RetrievalOptions:
    """How the first stage retrieves candidates (the method's option is the subcommand's own)."""

    k: int = option(100, help="candidates per query")
    k1: float | None = option(help="BM25 k1 (default 1.5)")
    b: float | None = option(help="BM25 b (default 0.75)")
    paper_bm25: bool = option(False, help="the paper's BM25 parameters k1=3.8, b=0.87")
    no_stemming: bool = option(False, help="BM25 without the Snowball English stemmer")
    stopwords: str = option("en", help="'en', 'none', or a file with one stopword per line")
    dense_model: str | None = option(help="sentence-transformers bi-encoder (default: embedded all-MiniLM-L6-v2)")


@dataclass(kw_only=True)
class ScoringOptions:
    """How a checkpoint scores pairs: the settings of `eval.rerank.PairScorer`, by their names."""

    max_length: int | None = option(help="pair length in tokens (default: the checkpoint's, else 512)")
    batch_size: int = option(
        32, help="pairs per forward pass (CrossEncoder.predict's default); batches are filled across queries"
    )
    device: str | None = option(help="torch device (default: cuda if available)")
    # eval.rerank.scorer.DTYPE_CHOICES, without importing torch
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = option(
        "auto", help="weight dtype (default auto: the checkpoint's stored dtype; float16 is refused on a CPU)"
    )


@dataclass(kw_only=True)
class LongDocumentOptions:
    """How documents longer than the model are scored."""

    # eval.rerank.long_documents.LONG_DOCUMENT_MODES
    long_documents: Literal["firstp", "maxp", "sump"] = option(
        "firstp",
        help="documents longer than the model: firstp (the first tokens, the pair cut at --max-length), maxp (the "
        "best of overlapping passages) or sump (their sum); MaxP and SumP repeat the title before each passage",
    )
    passage_window: int = option(256, help="MaxP/SumP: passage length in tokens")
    passage_stride: int = option(128, help="MaxP/SumP: tokens between passage starts")

    def long_document_setting(self):
        """The `LongDocuments` setting of these options (checked: a bad window or stride is refused)."""
        from wikiformer_kit.eval.rerank.long_documents import LongDocuments

        if self.long_documents == "firstp":
            return LongDocuments()
        return LongDocuments(self.long_documents, self.passage_window, self.passage_stride)


@dataclass(kw_only=True)
class RerankingOptions(ScoringOptions, RetrievalOptions, CollectionOptions):
    """What the subcommands that re-rank a collection's candidates with a checkpoint share."""

    model: str = option(required=True, help="checkpoint folder or Hub id (Wikiformer, CrossEncoder, BERT)")
    candidates: str | None = option(help="a TREC run file, or the name of a run shipped with the collection")
    first_stage: str | None = option(help=FIRST_STAGE_HELP)
    depth: int | None = option(help="re-rank only the top N candidates (default: all --k)")
    tag: str | None = option(help="run name (default: the model folder name)")
    no_resume: bool = option(False, help="start afresh instead of resuming OUT/<tag>.run")
    output_dir: str = option(required=True, help="the runs and metrics.json are written here")
