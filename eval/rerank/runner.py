"""Re-ranking a candidate run, query by query, resumably: each finished query is appended to the TREC run file
and recorded in ``<run>.done`` (whose first line records the model, max length and depth); a restarted run with
the same settings skips the queries recorded there."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from tqdm.auto import tqdm

from ..collections.collection import Collection, Run
from ..collections.trec import format_run_lines, ranked, read_trec_run
from .scorer import PairScorer

logger = logging.getLogger(__name__)


def _done_path(output: Path) -> Path:
    return output.with_name(output.name + ".done")


def _resume_state(output: Path, resume: bool, tag: str, settings: str) -> tuple[Run, set[str]]:
    done_path = _done_path(output)
    header = f"# {settings}\n"
    if not resume or not output.exists() or not done_path.exists():
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text("", encoding="utf-8")
        done_path.write_text(header, encoding="utf-8")
        return {}, set()
    lines = done_path.read_text(encoding="utf-8").splitlines()
    previous_settings = lines[0][2:] if lines and lines[0].startswith("# ") else None
    if previous_settings != settings:
        raise ValueError(
            f"{output} was started with different settings ({previous_settings}; now {settings}): "
            "use the same settings to resume, another output, or resume=False (--no-resume) to start afresh"
        )
    done = {line.strip() for line in lines[1:] if line.strip()}
    previous = read_trec_run(output)
    kept = {qid: ranking for qid, ranking in previous.items() if qid in done}
    if len(kept) != len(previous) or len(kept) != len(done):
        # rows of a query interrupted mid-write are dropped; the query is scored again
        with open(output, "w", encoding="utf-8") as out:
            for qid, ranking in kept.items():
                out.write(format_run_lines(qid, ranking, tag))
        done_path.write_text(header + "".join(f"{qid}\n" for qid in kept), encoding="utf-8")
    logger.info("%s: resuming, %d queries already done", output, len(kept))
    return kept, set(kept)


def _work(
    collection: Collection, candidates: Run, ids: Sequence[str], depth: int | None
) -> list[tuple[str, list[str]]]:
    """The queries that can be re-ranked with their top ``depth`` candidates; the others counted and logged."""
    no_text = [q for q in ids if q not in collection.queries]
    empty = [q for q in ids if q in collection.queries and not collection.queries[q].strip()]
    no_candidates = [q for q in ids if not candidates.get(q)]
    for problem, skipped in (
        ("have no query text", no_text),
        ("are empty", empty),
        ("have no candidates", no_candidates),
    ):
        if skipped:
            logger.warning(
                "%d of %d queries %s and are skipped (e.g. %s)", len(skipped), len(ids), problem, skipped[:3]
            )
    skip = set(no_text) | set(empty) | set(no_candidates)
    return [(qid, [docid for docid, _ in ranked(candidates[qid])[:depth]]) for qid in ids if qid not in skip]


def _rerank_query(collection: Collection, qid: str, docids: list[str], scorer, progress) -> tuple[dict, int]:
    """One query's re-ranked candidates, and how many were missing from the corpus (kept below, in order)."""
    known = [d for d in docids if d in collection.documents]
    unknown = [d for d in docids if d not in collection.documents]
    scores = scorer.score([collection.queries[qid]] * len(known), [collection.documents[d] for d in known], progress)
    ranking = dict(zip(known, scores, strict=True))
    floor = min(scores, default=0.0)
    for position, docid in enumerate(unknown, start=1):
        ranking[docid] = floor - position
    progress(len(unknown))
    return ranking, len(unknown)


def rerank_run(
    collection: Collection,
    candidates: Run,
    scorer,
    depth: int | None = None,
    query_ids: Sequence[str] | None = None,
    progress: bool = True,
) -> Run:
    """Re-rank in memory (no run file): what training's evaluation uses. See `rerank` for the arguments."""
    ids = list(query_ids if query_ids is not None else candidates)
    work = _work(collection, candidates, ids, depth)
    run: Run = {}
    missing = 0
    with tqdm(
        total=sum(len(d) for _, d in work), desc=f"re-rank {collection.name}", unit="pair", disable=not progress
    ) as bar:
        for qid, docids in work:
            run[qid], unknown = _rerank_query(collection, qid, docids, scorer, bar.update)
            missing += unknown
    if missing:
        logger.warning("%d candidate documents are not in the corpus; kept unscored below the scored ones", missing)
    return run


def rerank(
    collection: Collection,
    candidates: Run,
    scorer: PairScorer,
    output: str | Path,
    depth: int | None = None,
    query_ids: Sequence[str] | None = None,
    tag: str = "rerank",
    resume: bool = True,
) -> Run:
    """Re-rank the top ``depth`` candidates of every query and write the new run in TREC format.

    Bad input is counted and reported, never fatal: queries without a text or with an empty text are skipped (so
    they are missing from the run, and trec_eval leaves them out of the means); candidates missing from the
    corpus cannot be scored and are kept below the scored ones in their first-stage order.

    Args:
        collection: provides query and document texts.
        candidates: the first-stage run to re-rank.
        scorer: the `PairScorer`.
        output: the TREC run file to write (``<output>.done`` records finished queries).
        depth: candidates per query to re-rank (first-stage order); None for all.
        query_ids: queries to re-rank (default: every query of ``candidates``).
        tag: run name for the last TREC column.
        resume: continue a previous, interrupted call with the same output and settings (model, max length,
            depth; other settings raise a ValueError); False starts afresh.

    Returns:
        The re-ranked run (resumed queries included).
    """
    output = Path(output)
    settings = (
        f"model={getattr(scorer, 'model_path', type(scorer).__name__)} "
        f"max_length={getattr(scorer, 'max_length', None)} depth={depth}"
    )
    run, done = _resume_state(output, resume, tag, settings)
    ids = [q for q in (query_ids if query_ids is not None else candidates) if q not in done]
    work = _work(collection, candidates, ids, depth)
    missing_docs = 0
    total = sum(len(docs) for _, docs in work)
    with (
        tqdm(total=total, desc=f"re-rank {collection.name}", unit="pair") as bar,
        open(output, "a", encoding="utf-8") as out,
        open(_done_path(output), "a", encoding="utf-8") as done_log,
    ):
        for qid, docids in work:
            ranking, unknown = _rerank_query(collection, qid, docids, scorer, bar.update)
            missing_docs += unknown
            out.write(format_run_lines(qid, ranking, tag))
            out.flush()
            done_log.write(f"{qid}\n")
            done_log.flush()
            run[qid] = ranking
    if missing_docs:
        logger.warning(
            "%d candidate documents are not in the corpus; kept unscored below the scored ones", missing_docs
        )
    return run
