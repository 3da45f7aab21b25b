"""Re-ranking a candidate run resumably, in windows of consecutive queries whose pairs fill the model's batches
across queries: each finished window's queries are appended to the TREC run file and recorded in ``<run>.done``
(whose first line records the model, max length, depth, a non-float32 dtype and MaxP or SumP with its passages; its
second, the model's files (`model_identity`); each query's line, a fingerprint of what it was scored from: its text,
its candidates with their first-stage scores and their texts); a restarted run with the same settings skips the
queries recorded there with the same inputs, and scores again those whose inputs changed (another ``--k``, first
stage or collection), and all of them when the model's files changed (a checkpoint saved again in the same
folder)."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

from tqdm.auto import tqdm

from wikiformer_kit.eval.collections.collection import Collection, Run
from wikiformer_kit.eval.collections.trec import format_run_lines, ranked, read_trec_run
from wikiformer_kit.eval.rerank.long_documents import LongDocuments, PassageScorer
from wikiformer_kit.eval.rerank.scorer import PairScorer

logger = logging.getLogger(__name__)

DEFAULT_WINDOW_BATCHES = 16
"""Scorer batches in a default window (see `rerank`): enough for batches filled across queries and pairs of similar
lengths together, little to score again after an interruption."""


def _done_path(output: Path) -> Path:
    return output.with_name(output.name + ".done")


def query_fingerprint(collection: Collection, candidates: Run, qid: str) -> str:
    """What a query's re-ranked ranking is made from, as 16 hex digits: its text, its candidates in first-stage
    order with their scores, and their texts."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(collection.queries.get(qid, "").encode("utf-8", "surrogatepass"))
    for docid, score in ranked(candidates.get(qid, {})):
        text = collection.documents.get(docid)
        digest.update(f"\0{docid}\0{score!r}\0".encode("utf-8", "surrogatepass"))
        digest.update(b"\1" if text is None else text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def model_identity(model_path: str) -> str:
    """What a resumed run's model must still be, as 16 hex digits: the names, sizes and modification times of the
    files of its folder, or of the Hub cache's snapshot of a Hub id; the name itself where neither is there (a
    model in memory)."""
    path = Path(model_path).expanduser()
    if not path.is_dir():
        path = _hub_snapshot(model_path) or path
    if not path.is_dir():
        return model_path
    digest = hashlib.blake2b(digest_size=8)
    for file in sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")):
        stat = file.stat()
        digest.update(f"{file.name}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _hub_snapshot(model_id: str) -> Path | None:
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(model_id, "config.json")
    except Exception:  # not a Hub id: no snapshot
        return None
    return Path(cached).parent if isinstance(cached, str) else None


def _changes(previous: str, now: str) -> str:
    """``depth 3 -> 5, dtype float32 -> bfloat16``: the settings that differ between two settings lines."""
    before, after = (dict((item.split("=", 1) + [""])[:2] for item in line.split()) for line in (previous, now))
    keys = [*before, *(key for key in after if key not in before)]
    return ", ".join(
        f"{key} {before.get(key, '(none)')} -> {after.get(key, '(none)')}"
        for key in keys
        if before.get(key) != after.get(key)
    )


def _start(output: Path, header: str) -> tuple[Run, set[str]]:
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("", encoding="utf-8")
    _done_path(output).write_text(header, encoding="utf-8")
    return {}, set()


def _resume_state(
    output: Path, resume: bool, tag: str, settings: str, fingerprint, identity: str, on_new_settings: str = "raise"
) -> tuple[Run, set[str]]:
    done_path = _done_path(output)
    header = f"# {settings}\n# model {identity}\n"
    if not resume or not output.exists() or not done_path.exists():
        return _start(output, header)
    lines = done_path.read_text(encoding="utf-8").splitlines()
    previous_settings = lines[0][2:] if lines and lines[0].startswith("# ") else None
    if previous_settings != settings:
        if on_new_settings == "restart":
            logger.warning(
                "%s: started with other settings (%s); scoring all its queries again",
                output,
                _changes(previous_settings or "", settings),
            )
            return _start(output, header)
        raise ValueError(
            f"{output} was started with different settings ({previous_settings}; now {settings}): "
            "use the same settings to resume, another output, or resume=False (--no-resume) to start afresh"
        )
    previous_identity = next((line[len("# model ") :] for line in lines[1:2] if line.startswith("# model ")), None)
    if previous_identity is not None and previous_identity != identity:
        logger.warning(
            "%s: the model's files changed since this run was started (%s saved again?); scoring all its queries again",
            output,
            settings.split()[0].removeprefix("model="),
        )
        return _start(output, header)
    recorded = dict((line.split() + [""])[:2] for line in lines[1:] if line.strip() and not line.startswith("#"))
    current = {qid: fingerprint(qid) for qid in recorded}
    done = {qid for qid, made_from in recorded.items() if made_from == current[qid]}
    if len(done) < len(recorded):
        logger.warning(
            "%s: %d of the %d queries finished earlier were scored from other candidates or texts (another --k, "
            "first stage or collection): they are scored again",
            output,
            len(recorded) - len(done),
            len(recorded),
        )
    previous = read_trec_run(output)
    kept = {qid: ranking for qid, ranking in previous.items() if qid in done}
    if len(kept) != len(previous) or len(kept) != len(recorded):
        # rows of a query interrupted mid-write, or made from other inputs, are dropped; the query is scored again
        with open(output, "w", encoding="utf-8") as out:
            for qid, ranking in kept.items():
                out.write(format_run_lines(qid, ranking, tag))
    # the header again: a run started before the model's files were recorded records them from now on
    done_path.write_text(header + "".join(f"{qid} {current[qid]}\n" for qid in kept), encoding="utf-8")
    logger.info("%s: resuming, %d queries already done", output, len(kept))
    return kept, set(kept)


def _work(
    collection: Collection, candidates: Run, ids: Sequence[str], depth: int | None
) -> list[tuple[str, list[str], list[str]]]:
    """The queries that can be re-ranked with their top ``depth`` candidates and the candidates below that depth
    (kept under the re-ranked ones in first-stage order); the others counted and logged."""
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
    orders = {qid: [docid for docid, _ in ranked(candidates[qid])] for qid in ids if qid not in skip}
    return [(qid, order[:depth], order[depth:] if depth is not None else []) for qid, order in orders.items()]


def _windows(
    collection: Collection, work: list[tuple[str, list[str], list[str]]], window: int
) -> Iterator[list[tuple[str, list[str], list[str]]]]:
    """Consecutive whole queries as ``(query id, documents in the corpus, documents left unscored)`` (the
    re-ranked depth's documents missing from the corpus, then the candidates below that depth), gathered
    until they hold at least ``window`` pairs to score (the last may hold fewer). A query is never split, so a
    window's queries are finished together and a resumed run, which starts at the first unfinished query, forms the
    same windows as an uninterrupted one."""
    current: list[tuple[str, list[str], list[str]]] = []
    pairs = 0
    for qid, docids, tail in work:
        known, unknown = [], []
        for docid in docids:
            (known if docid in collection.documents else unknown).append(docid)
        current.append((qid, known, unknown + tail))
        pairs += len(known)
        if pairs >= window:
            yield current
            current, pairs = [], 0
    if current:
        yield current


def _window_size(scorer, window: int | None) -> int:
    if window is None:
        return DEFAULT_WINDOW_BATCHES * getattr(scorer, "batch_size", 32)
    if window < 1:
        raise ValueError(f"window must be at least 1 pair (1 scores query by query), got {window}")
    return window


def _reranked_windows(
    collection: Collection, candidates: Run, ids: Sequence[str], depth: int | None, scorer, window: int, progress=True
) -> Iterator[list[tuple[str, dict]]]:
    """Each window's queries, re-ranked: ``(query id, ranking)`` in query order (see `_work`); the candidates missing
    from the corpus are counted in a warning at the end.

    A window's pairs go to the scorer in one call, so its model batches are filled across queries and its pairs are
    sorted by length together (`modeling_wikiformer.score_pairs`); missing documents, then the candidates below
    the re-ranked depth (the standard re-ranking protocol: the run stays as deep as the first stage), are kept
    below the scored ones, in their first-stage order."""
    work = _work(collection, candidates, ids, depth)
    tails = {qid: len(tail) for qid, _, tail in work}
    missing = 0
    total = sum(len(docs) for _, docs, _ in work)
    with tqdm(total=total, desc=f"re-rank {collection.name}", unit="pair", disable=not progress) as bar:
        for queries in _windows(collection, work, window):
            scores = scorer.score(
                [collection.queries[qid] for qid, known, _ in queries for _ in known],
                [_document(collection, d, scorer) for _, known, _ in queries for d in known],
                bar.update,
            )
            done, start = [], 0
            for qid, known, unknown in queries:
                done.append((qid, _below(dict(zip(known, scores[start : start + len(known)], strict=True)), unknown)))
                start += len(known)
                bar.update(len(unknown) - tails[qid])
                missing += len(unknown) - tails[qid]
            yield done
    if missing:
        logger.warning("%d candidate documents are not in the corpus; kept unscored below the scored ones", missing)


def _below(ranking: dict[str, float], docids: Sequence[str]) -> dict[str, float]:
    """``ranking`` with ``docids`` added under its lowest score, in their order."""
    floor = min(ranking.values(), default=0.0)
    return ranking | {docid: floor - position for position, docid in enumerate(docids, start=1)}


def _document(collection: Collection, docid: str, scorer):
    """A document as the scorer takes it: its text, or ``(title, body)`` for a passage scorer where the collection
    knows the title (the text then starts with it)."""
    text = collection.documents[docid]
    title = collection.titles.get(docid, "") if getattr(scorer, "takes_titles", False) else ""
    if title and text.startswith(title):
        return title, text[len(title) :].strip()
    return text


def with_long_documents(scorer, long_documents: LongDocuments | None):
    """``scorer`` scoring documents as ``long_documents`` says: itself for FirstP, else a `PassageScorer`."""
    if long_documents is None or long_documents.mode == "firstp":
        return scorer
    return PassageScorer(scorer, long_documents)


def reranked_head(run: Run, candidates: Run, depth: int | None) -> Run:
    """The re-ranked part of a run: each query's documents among its top ``depth`` first-stage candidates (the
    part that fusion may reorder; the whole run when ``depth`` is None)."""
    if depth is None:
        return run
    heads = {qid: {docid for docid, _ in ranked(candidates.get(qid, {}))[:depth]} for qid in run}
    return {qid: {d: s for d, s in ranking.items() if d in heads[qid]} for qid, ranking in run.items()}


def with_tail(run: Run, candidates: Run, depth: int | None) -> Run:
    """``run`` with each query's first-stage candidates below ``depth`` appended under its lowest score, in
    first-stage order (the standard re-ranking protocol)."""
    if depth is None:
        return run
    return {
        qid: _below(ranking, [docid for docid, _ in ranked(candidates.get(qid, {}))[depth:] if docid not in ranking])
        for qid, ranking in run.items()
    }


def rerank_run(
    collection: Collection,
    candidates: Run,
    scorer,
    depth: int | None = None,
    query_ids: Sequence[str] | None = None,
    progress: bool = True,
    window: int | None = None,
    long_documents: LongDocuments | None = None,
) -> Run:
    """Re-rank in memory (no run file): what training's evaluation uses. See `rerank` for the arguments."""
    scorer = with_long_documents(scorer, long_documents)
    window = _window_size(scorer, window)
    ids = list(query_ids if query_ids is not None else candidates)
    windows = _reranked_windows(collection, candidates, ids, depth, scorer, window, progress)
    return {qid: ranking for finished in windows for qid, ranking in finished}


def rerank(
    collection: Collection,
    candidates: Run,
    scorer: PairScorer,
    output: str | Path,
    depth: int | None = None,
    query_ids: Sequence[str] | None = None,
    tag: str = "rerank",
    resume: bool = True,
    window: int | None = None,
    long_documents: LongDocuments | None = None,
    on_new_settings: Literal["raise", "restart"] = "raise",
) -> Run:
    """Re-rank the top ``depth`` candidates of every query and write the run in TREC format, resumably.

    Bad input is counted and reported, never fatal: queries without a text or with an empty text are skipped
    (trec_eval then leaves them out of the means); candidates missing from the corpus are kept below the scored
    ones in first-stage order, as are the candidates below ``depth`` (so that deep measures such as R@100 and AP
    compare with the first stage's).

    Args:
        output: the TREC run file (``<output>.done`` records the settings and the finished queries).
        resume: continue an interrupted call with the same output and settings (model, max length, depth, dtype,
            long documents), keeping the finished queries whose inputs are the same (all are scored again, with a
            warning, when the model's files changed); other settings raise a ValueError, or with
            ``on_new_settings="restart"`` start again with a warning naming what changed.
        window: pairs scored together: whole queries gathered until they hold this many, their pairs cut into
            full batches across queries (default: 16 of the scorer's batches; 1 scores query by query).
        long_documents: FirstP (default), MaxP or SumP (`eval.rerank.long_documents`).

    Returns:
        The re-ranked run (resumed queries included).
    """
    output = Path(output)
    window = _window_size(scorer, window)
    settings = (
        f"model={getattr(scorer, 'model_path', type(scorer).__name__)} "
        f"max_length={getattr(scorer, 'max_length', None)} depth={depth}"
    )
    dtype = getattr(scorer, "dtype", "float32")
    if dtype != "float32":  # float32 runs keep the settings line of runs started before dtypes were chosen
        settings += f" dtype={dtype}"
    if long_documents is not None and long_documents.mode != "firstp":  # FirstP runs keep their settings line too
        settings += f" long_documents={long_documents.setting().replace(' ', ',')}"
    identity = model_identity(str(getattr(scorer, "model_path", type(scorer).__name__)))
    scorer = with_long_documents(scorer, long_documents)

    def fingerprint(qid: str) -> str:
        return query_fingerprint(collection, candidates, qid)

    run, done = _resume_state(output, resume, tag, settings, fingerprint, identity, on_new_settings)
    ids = [q for q in (query_ids if query_ids is not None else candidates) if q not in done]
    with open(output, "a", encoding="utf-8") as out, open(_done_path(output), "a", encoding="utf-8") as done_log:
        for finished in _reranked_windows(collection, candidates, ids, depth, scorer, window):
            # a window's queries are recorded together: a resumed run starts at a window boundary, so it forms
            # the same windows (and batches) as an uninterrupted run and writes the same scores
            out.write("".join(format_run_lines(qid, ranking, tag) for qid, ranking in finished))
            out.flush()
            done_log.write("".join(f"{qid} {fingerprint(qid)}\n" for qid, _ in finished))
            done_log.flush()
            run.update(finished)
    return run
