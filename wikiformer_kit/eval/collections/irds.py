"""Collections by their ir_datasets id: ``--collection irds:<id>`` (``irds:cranfield``, ``irds:vaswani``,
``irds:msmarco-passage/trec-dl-2020/judged``, ``irds:beir/nfcorpus/test``; the catalogue: https://ir-datasets.com).

`ir_datasets <https://github.com/allenai/ir_datasets>`_ (an optional package, imported only here) downloads a
dataset's files once into ``IR_DATASETS_HOME`` (default ``~/.ir_datasets``) and reads them; a dataset whose files
cannot be downloaded (TREC disks, ClueWeb) names the file it wants and where to put it.

What the `Collection` holds:

* queries and qrels as the dataset gives them (texts with white space collapsed); Cranfield's qrels are the
  collection's relevance codes (1 = complete answer, -1 = of no interest), mapped to TREC-style gains with
  `CRANFIELD_GAINS` as the SMART reader does, so ``irds:cranfield`` and the original files give the same figures;
* the dataset's ``scoreddocs`` as the run ``scoreddocs`` when their scores rank the candidates. MS MARCO's official
  top-1000 lists (``msmarco-passage/trec-dl-2019``, ``.../trec-dl-2020``, ``.../dev/small``) carry no scores: they
  are no ranking, so no run is kept and the kit's BM25 ranks their candidates (``python -m eval rerank`` and
  training's evaluation do so for a collection without a run);
* the documents: all of them for a dataset without ``scoreddocs``; for one with ``scoreddocs`` only the candidates'
  documents, read through the dataset's ``docs_store`` (MS MARCO passage has 8.8M passages; TREC DL 2020's judged
  queries have 54,000 candidates). BM25 then ranks that pool, with its statistics from the pool.
"""

from __future__ import annotations

import logging

from wikiformer_kit.eval.collections.collection import Collection, Qrels, Run
from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.smart import CRANFIELD_GAINS

logger = logging.getLogger(__name__)

PREFIX = "irds"
RUN_NAME = "scoreddocs"
"""The name of the run made of a dataset's ``scoreddocs``."""
GAINS = {"cranfield": CRANFIELD_GAINS}
"""Datasets (first part of the id) whose qrels hold relevance codes rather than gains -> code -> gain."""


def load_irds_collection(dataset_id: str, name: str | None = None) -> Collection:
    """Load the ir_datasets dataset ``dataset_id`` (``msmarco-passage/trec-dl-2020/judged``) as a `Collection` (see
    the module docstring), named ``name``, else the id with ``/`` as ``-``.

    Raises:
        CollectionFormatError: ir_datasets is not installed, the id is unknown, the dataset has no documents or no
            queries, or its files could not be downloaded or read (the message says what to do).
    """
    spec = f"{PREFIX}:{dataset_id}"
    dataset = _dataset(dataset_id, spec)
    missing = [part for part in ("docs", "queries") if not getattr(dataset, f"has_{part}")()]
    if missing:
        raise CollectionFormatError(
            spec, f"this ir_datasets dataset has no {' and no '.join(missing)}; choose one with documents and queries"
        )
    try:
        queries = {query.query_id: _text(query) for query in dataset.queries_iter()}
        qrels = _qrels(dataset, dataset_id) if dataset.has_qrels() else {}
        scored = _scoreddocs(dataset) if dataset.has_scoreddocs() else None
        documents = _documents(dataset, spec, scored)
    except CollectionFormatError:
        raise
    except Exception as error:  # ir_datasets' own: failed downloads (RuntimeError), damaged archives, missing files
        raise CollectionFormatError(spec, _download_advice(dataset_id, error)) from error
    runs = {}
    if scored is not None and _ranks(scored):
        runs[RUN_NAME] = scored
    elif scored is not None:
        logger.warning(
            "%s: its scoreddocs have no scores (one score for every candidate), so they are no ranking: its %s "
            "candidates' documents are the collection, and a first stage (BM25 by default) ranks them",
            spec, f"{len(documents):,}",
        )  # fmt: skip
    return Collection(name or dataset_id.replace("/", "-"), documents, queries, qrels, runs)


def _dataset(dataset_id: str, spec: str):
    try:
        import ir_datasets
    except ImportError:
        raise CollectionFormatError(
            spec, "reading a collection by its ir_datasets id needs the ir_datasets package: pip install ir_datasets"
        ) from None
    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise CollectionFormatError(
            spec, "unknown ir_datasets id: see https://ir-datasets.com for the ids (e.g. irds:cranfield)"
        ) from None


def _text(record) -> str:
    """A document's or query's text (ir_datasets' ``default_text``: e.g. title and body), white space collapsed.

    A body that begins with its title (Cranfield's do) is the text, as the SMART reader has it: the title is not
    doubled, so the pairs scored are those of the original files.
    """
    title, body = (" ".join(str(getattr(record, field, "")).split()) for field in ("title", "text"))
    if title and body.startswith(title):
        return body
    text = record.default_text() if hasattr(record, "default_text") else getattr(record, "text", "")
    return " ".join(str(text).split())


def _qrels(dataset, dataset_id: str) -> Qrels:
    gains = GAINS.get(dataset_id.split("/")[0])
    qrels: Qrels = {}
    for qrel in dataset.qrels_iter():
        grade = int(qrel.relevance)
        if gains is not None:
            if grade not in gains:
                raise CollectionFormatError(
                    f"{PREFIX}:{dataset_id}",
                    f"query {qrel.query_id}: relevance code {grade} is not one of {sorted(gains)}",
                )
            grade = gains[grade]
        qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = grade
    return qrels


def _scoreddocs(dataset) -> Run:
    run: Run = {}
    for scored in dataset.scoreddocs_iter():
        run.setdefault(scored.query_id, {})[scored.doc_id] = float(scored.score)
    return run


def _ranks(run: Run) -> bool:
    """Whether the scores order any query's candidates (MS MARCO's top-1000 lists give 0 to every one)."""
    return any(len(set(ranking.values())) > 1 for ranking in run.values())


def _documents(dataset, spec: str, scored: Run | None) -> dict[str, str]:
    if scored is None:
        return {doc.doc_id: _text(doc) for doc in dataset.docs_iter()}
    pool = {doc_id for ranking in scored.values() for doc_id in ranking}
    documents = {doc_id: _text(doc) for doc_id, doc in dataset.docs_store().get_many(pool).items()}
    if len(documents) < len(pool):
        absent = sorted(pool - set(documents))
        logger.warning(
            "%s: %d of %d candidates of its scoreddocs are not among its documents (e.g. %s)",
            spec, len(absent), len(pool), absent[:3],
        )  # fmt: skip
    logger.info("%s: read the %s documents its scoreddocs name (not the whole corpus)", spec, f"{len(documents):,}")
    return documents


def _download_advice(dataset_id: str, error: BaseException) -> str:
    reason = " ".join(str(error).split())[:200] or type(error).__name__
    if isinstance(error, FileNotFoundError) and error.args:
        reason = f"no file {error.args[0]}"
    top = dataset_id.split("/")[0]
    return (
        f"ir_datasets could not download or read this dataset's files ({reason}): check the network, or place a copy of "
        f"the files where ir_datasets looks for them (IR_DATASETS_HOME, default ~/.ir_datasets; see "
        f"https://ir-datasets.com/{top}.html for where they come from)"
    )
