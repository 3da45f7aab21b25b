"""trec_eval numbers through ir_measures' pytrec_eval backend, with per-query values and id checks.

trec_eval conventions followed (and reported as counted warnings rather than hidden):

* queries in the run without judgments are ignored;
* judged queries missing from the run are left out of the means (trec_eval's default); with
  ``complete=True`` they count as 0 (trec_eval ``-c``);
* retrieved documents without a judgment are non-relevant; grades below the relevance level are non-relevant
  for binary measures; negative grades give no gain;
* documents are ordered by score, ties broken by document id (descending); the rank column is ignored;
* a document listed twice for a query is an error in trec_eval; the run readers keep its first row and warn.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from statistics import fmean

import ir_measures

from wikiformer_kit.eval.collections.collection import Qrels, Run
from wikiformer_kit.eval.metrics.measures import DEFAULT_MEASURES, parse_measure

logger = logging.getLogger(__name__)


@dataclass
class Evaluation:
    """Per-query values (measure name -> query id -> value, the queries averaged over) of one run, the relevance
    level its binary measures used and the counted warnings raised while evaluating (also logged)."""

    per_query: dict[str, dict[str, float]]
    relevance_level: int
    notes: list[str] = field(default_factory=list)

    @property
    def query_ids(self) -> list[str]:
        """The query ids averaged over (sorted)."""
        return sorted(next(iter(self.per_query.values()), {}))

    def means(self) -> dict[str, float]:
        """measure name -> mean over the evaluated queries."""
        return {name: fmean(values.values()) if values else 0.0 for name, values in self.per_query.items()}

    def to_dict(self) -> dict:
        """A JSON-ready dict: means, per-query values, relevance level, query count and notes."""
        return {
            "means": self.means(),
            "per_query": self.per_query,
            "relevance_level": self.relevance_level,
            "num_queries": len(self.query_ids),
            "notes": self.notes,
        }


def check_ids(run: Run, qrels: Qrels) -> list[str]:
    """Compare the query and document ids of a run with the qrels.

    Returns:
        Counted messages for run queries without judgments, judged queries missing from the run, and judged
        queries for which no retrieved document is judged.

    Raises:
        ValueError: the run and the qrels share no query id (with examples of both, and a hint when the ids only
            differ by leading zeros).
    """
    run_ids = {qid for qid, ranking in run.items() if ranking}
    common = run_ids & qrels.keys()
    if not common:
        hint = ""
        if {q.lstrip("0") for q in run_ids} & {q.lstrip("0") for q in qrels}:
            hint = " (the ids differ only by leading zeros)"
        raise ValueError(
            f"the run ({len(run_ids)} queries, e.g. {sorted(run_ids)[:3]}) and the qrels ({len(qrels)} queries, "
            f"e.g. {sorted(qrels)[:3]}) have no query id in common{hint}"
        )
    notes = []
    if run_ids - common:
        notes.append(f"{len(run_ids - common)} of {len(run_ids)} run queries have no judgments; ignored")
    if qrels.keys() - common:
        notes.append(
            f"{len(qrels.keys() - common)} of {len(qrels)} judged queries are not in the run "
            f"(e.g. {sorted(qrels.keys() - common)[:3]})"
        )
    unjudged = [qid for qid in common if not run[qid].keys() & qrels[qid].keys()]
    if unjudged:
        notes.append(
            f"{len(unjudged)} of {len(common)} queries retrieve no judged document"
            + (" (document ids mismatched?)" if len(unjudged) == len(common) else "")
        )
    return notes


class RunMismatchError(ValueError):
    """A run whose document ids match nothing of the collection: its measures would be zeros, not a result."""


def _examples(ids, count: int = 3) -> str:
    return ", ".join(repr(i) for i in sorted(ids)[:count])


def check_run_documents(run: Run, qrels: Qrels, documents: Collection[str] | None, source: str) -> list[str]:
    """Check the document ids a user's run retrieves for judged queries against the collection's ``documents``
    (``None`` or empty: a collection of qrels only) before it is scored, naming ``source`` (its file or name).

    Returns:
        A counted warning when some retrieved document ids are not in the collection (they count as
        non-relevant), else nothing.

    Raises:
        RunMismatchError: none of the retrieved document ids is in the collection, or none of the judged queries
            retrieves a judged document while the ids cannot match (the qrels judge no document of the
            collection, or the collection has no documents to check against).
    """
    queries = [qid for qid, ranking in run.items() if ranking and qid in qrels]
    retrieved = {docid for qid in queries for docid in run[qid]}
    if not retrieved:
        return []
    notes = []
    documents = set(documents or ())
    if documents:
        unknown = retrieved - documents
        if unknown == retrieved:
            raise RunMismatchError(
                f"{source}: none of its {len(retrieved):,} retrieved document ids is in the collection's "
                f"{len(documents):,} documents (run: {_examples(retrieved)}; collection: {_examples(documents)}); "
                "was it made on another collection, or another copy of it with other ids?"
            )
        if unknown:
            notes.append(
                f"{source}: {len(unknown):,} of {len(retrieved):,} retrieved document ids "
                f"({len(unknown) / len(retrieved):.1%}) are not in the collection (e.g. {_examples(unknown)}); "
                "they count as non-relevant"
            )
    if not any(run[qid].keys() & qrels[qid].keys() for qid in queries):
        judged = {docid for qid in queries for docid in qrels[qid]}
        if not documents or not judged & documents:
            where = "the qrels judge none of the collection's documents" if documents else "the ids do not match"
            raise RunMismatchError(
                f"{source}: none of its {len(queries):,} judged queries retrieves a judged document: {where} "
                f"(run: {_examples(retrieved)}; qrels: {_examples(judged)})"
            )
    return notes


def evaluate_run(
    run: Run,
    qrels: Qrels,
    measures: Sequence[str] = DEFAULT_MEASURES,
    relevance_level: int = 1,
    complete: bool = False,
    *,
    source: str | None = None,
    documents: Collection[str] | None = None,
) -> Evaluation:
    """Evaluate a run with trec_eval's definitions (pytrec_eval backend), per query.

    Args:
        measures: measure names in ir_measures syntax (see `eval.metrics.measures`).
        relevance_level: the smallest relevant grade for binary measures (TREC DL: 2).
        complete: average over every judged query, scoring those absent from the run as 0 (trec_eval ``-c``).
        source: a user's run file: its document ids are checked against the collection's ``documents``
            (`check_run_documents`) and the messages name it.

    Raises:
        ValueError: unknown measures, or a run and qrels without a common query id.
        RunMismatchError: (``source`` given) a run whose document ids match nothing of the collection.
    """
    specs = [parse_measure(name, relevance_level) for name in measures]
    try:
        notes = check_ids(run, qrels)
    except ValueError as error:
        if source is None:
            raise
        raise RunMismatchError(f"{source}: {error}") from None
    if source is not None:
        notes = [f"{source}: {note}" for note in notes] + check_run_documents(run, qrels, documents, source)
    for note in notes:
        logger.warning("%s", note)
    run = {qid: ranking for qid, ranking in run.items() if ranking}
    values: dict[str, dict[str, float]] = {spec.name: {} for spec in specs}
    by_measure = {spec.measure: [s for s in specs if s.measure == spec.measure] for spec in specs}
    for metric in ir_measures.pytrec_eval.iter_calc(list(by_measure), qrels, run):
        # ir_measures adds every judged query missing from the run with value 0 (trec_eval -c); trec_eval's
        # default leaves them out, so they are added back only when ``complete`` asks for it
        if metric.query_id not in run:
            continue
        for spec in by_measure[metric.measure]:
            value = float(metric.value)
            if spec.rr_cutoff is not None and value * spec.rr_cutoff < 1 - 1e-9:
                value = 0.0
            values[spec.name][metric.query_id] = value
    if complete:
        for per_query in values.values():
            for qid in qrels:
                per_query.setdefault(qid, 0.0)
    return Evaluation(values, relevance_level, notes)


def display_name(name: str) -> str:
    """``RR@10`` -> ``MRR@10`` (the paper's label); other names unchanged."""
    return re.sub(r"^RR\b", "MRR", name)
