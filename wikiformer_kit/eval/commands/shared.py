"""The steps several subcommands share: the collection, run files, the candidates, the scorer and its run."""

from __future__ import annotations

import dataclasses
import logging
import sys
from pathlib import Path

from wikiformer_kit.cli import InputError
from wikiformer_kit.cli.errors import one_line
from wikiformer_kit.eval.collections import Collection, Run, read_trec_run
from wikiformer_kit.eval.collections.relevance import is_graded
from wikiformer_kit.eval.collections.trec import ranked
from wikiformer_kit.eval.commands.groups import CollectionOptions, RerankingOptions, RetrievalOptions, ScoringOptions
from wikiformer_kit.eval.metrics import check_run_documents
from wikiformer_kit.eval.splits import load_collection_part

logger = logging.getLogger("eval")


def load(options: CollectionOptions) -> Collection:
    """The collection of ``--collection``; graded qrels make the relevance level and its reason printed."""
    collection = load_collection_part(options.collection, options.relevance_level)
    if is_graded(collection.qrels):
        print(
            f"{collection.name}: binary measures count grades >= {collection.relevance_level} as relevant "
            f"({collection.relevance_source}; --relevance-level changes it)",
            file=sys.stderr,
        )
    return collection


def query_ids(collection: Collection, max_queries: int | None) -> list[str]:
    """The queries ranked: the judged ones (else all), the first ``max_queries`` of them where given."""
    collection.require_queries()  # never an empty run: a collection without queries is refused, saying why
    ids = collection.judged_query_ids() or list(collection.queries)
    return ids[:max_queries] if max_queries else ids


def read_run(path: str) -> Run:
    """A TREC run file given on the command line; an error naming it when it ranks nothing (an empty file)."""
    run = read_trec_run(path)
    if not run:
        raise InputError(
            f"{path}: the run ranks no document (an empty file?); give a TREC run: qid Q0 docid rank score"
        )
    return run


def first_stage_run(options: RetrievalOptions, collection: Collection, method: str, queries: list[str]) -> Run:
    """The top ``--k`` of ``method`` (``paper``: BM25 with the paper's parameters) for ``queries``."""
    from wikiformer_kit.eval.first_stage import BM25Options, first_stage_run

    paper = options.paper_bm25 or method == "paper"
    method = "bm25" if method == "paper" else method
    defaults = BM25Options.paper() if paper else BM25Options()
    bm25 = BM25Options(
        k1=options.k1 if options.k1 is not None else defaults.k1,
        b=options.b if options.b is not None else defaults.b,
        stemmer=None if options.no_stemming else defaults.stemmer,
        stopwords=None if options.stopwords == "none" else options.stopwords,
    )
    return first_stage_run(collection, method, options.k, queries, bm25_options=bm25, dense_model=options.dense_model)


def candidates(options: RerankingOptions, collection: Collection, queries: list[str]) -> tuple[str, Run]:
    """The name and run of the candidates: ``--candidates`` (a run file or a run shipped with the collection), else
    ``--first-stage``; by default the collection's first run, or BM25 when it has none."""
    given = options.candidates
    if given:
        if Path(given).is_file():
            name, run = Path(given).stem, read_run(given)
        elif given in collection.runs:
            name, run = given, collection.runs[given]
        else:
            raise ValueError(
                f"--candidates {given!r} is neither a file nor a run of {collection.name} "
                f"{sorted(collection.runs)}: give a TREC run file or one of those names"
            )
        known = _known_queries(run, collection, queries, given)
        return name, _checked(collection, {qid: dict(ranked(r)[: options.k]) for qid, r in known.items()}, given)
    method = options.first_stage or ("given" if collection.runs else "bm25")
    name = next(iter(collection.runs)) if method == "given" else method
    logger.info("candidates: %s (top %d)", name, options.k)
    return name, _checked(collection, first_stage_run(options, collection, method, queries), name)


def _known_queries(run: Run, collection: Collection, query_ids: list[str], source: str) -> Run:
    """The rankings of ``run`` for ``query_ids``. Its queries that the collection does not have are counted in a
    warning naming ``source``; a run with none of the collection's queries, or none of those ranked, is refused."""
    unknown = [qid for qid in run if qid not in collection.queries and qid not in collection.qrels]
    if len(unknown) == len(run):
        raise InputError(
            f"{source}: none of its {len(run):,} queries ({_some(unknown)}) is a query of {collection.name} "
            f"({_some(list(collection.queries))}); was the run made on another collection?"
        )
    if unknown:
        left_out = (source, len(unknown), len(run), collection.name, _some(unknown))
        logger.warning("%s: %d of its %d queries are not queries of %s and are left out (e.g. %s)", *left_out)
    wanted = set(query_ids)
    kept = {qid: ranking for qid, ranking in run.items() if qid in wanted}
    if not kept:
        raise InputError(
            f"{source}: none of its {len(run) - len(unknown):,} queries of {collection.name} is among the "
            f"{len(query_ids):,} queries ranked ({_some(query_ids)}: the judged ones, cut by --max-queries or a "
            "#part); give a run of those queries"
        )
    return kept


def _some(ids: list[str], shown: int = 2) -> str:
    return ", ".join(ids[:shown]) + (", ..." if len(ids) > shown else "")


def _checked(collection: Collection, run: Run, source: str) -> Run:
    """The candidates, their document ids checked against the collection before any scoring (a warning when some
    are unknown; refused when they can match no judgment: see `eval.metrics.check_run_documents`)."""
    if collection.qrels:
        for note in check_run_documents(run, collection.qrels, set(collection.documents), source):
            logger.warning("%s", note)
    return run


def load_scorer(options: ScoringOptions):
    """The `PairScorer` of ``options.model`` (checked before anything loaded: ``eval.cli._check_before_loading``)."""
    from wikiformer_kit.eval.rerank import PairScorer

    settings = {field.name: getattr(options, field.name) for field in dataclasses.fields(ScoringOptions)}
    try:
        return PairScorer(options.model, **settings)
    except OSError as error:  # transformers' and the Hub client's: not found, no network, no weights
        raise InputError(f"--model {options.model}: cannot load it: {one_line(error)}") from error


def run_tag(options: RerankingOptions) -> str:
    """The run name: ``--tag``, else the model's folder name."""
    return options.tag or Path(options.model.rstrip("/")).name or "rerank"


def rerank_run(options, collection, first, queries, scorer, long_documents, on_new_settings="raise") -> Run:
    """The model's run (``options``: `RerankingOptions`) over the ``first`` stage's candidates of ``queries``,
    resumable from ``OUT/<tag>.run`` unless ``--no-resume`` (``on_new_settings``: `eval.rerank.rerank`'s)."""
    from wikiformer_kit.eval.rerank import rerank

    tag, resume = run_tag(options), not options.no_resume
    path = Path(options.output_dir) / f"{tag}.run"
    settings = {"depth": options.depth, "tag": tag, "resume": resume, "on_new_settings": on_new_settings}
    return rerank(collection, first, scorer, path, query_ids=queries, long_documents=long_documents, **settings)


def print_means(label: str, means: dict[str, float]) -> None:
    """One line of a system's mean figures."""
    print(f"{label}: " + ", ".join(f"{name} {value:.4f}" for name, value in means.items()))
