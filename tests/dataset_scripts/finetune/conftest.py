"""A hand-made labelled collection for the miner's tests: 40 documents, 6 queries, graded judgments, a run."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

WORDS = (
    "wing flow shock boundary layer heat transfer pressure drag lift supersonic subsonic nozzle cone plate "
    "turbulent laminar vortex jet mach number cylinder panel flutter buckling shell stress load"
).split()
QUERIES = {
    "q1": "shock wave boundary layer",
    "q2": "heat transfer laminar plate",
    "q3": "supersonic nozzle flow",
    "q4": "panel flutter mach number",
    "q5": "buckling of cylinder shell",
    "q6": "vortex lift wing",
}
# grades: 2 = relevant at level 2, 1 = partly relevant (never a negative, never a positive at level 2), 0 = judged
# not relevant (may be a negative)
QRELS = {
    "q1": {"d01": 2, "d02": 1, "d03": 0, "d04": 2},
    "q2": {"d05": 2, "d06": 1, "d07": 0},
    "q3": {"d08": 2, "d09": 2, "d10": 1},
    "q4": {"d11": 1, "d12": 0},  # nothing graded 2: no group at level 2
    "q5": {"d13": 2, "d14": 1},
    "q6": {"d15": 2, "d16": 0, "d17": 1},
}


def _document(rng: random.Random, topic: str | None) -> str:
    words = [rng.choice(WORDS) for _ in range(30)]
    return " ".join(words + (topic.split() * 2 if topic else []))


def write_collection(folder: Path, with_run: bool = True) -> Path:
    """A TREC folder (``collection.tsv``, ``queries.tsv``, ``qrels.txt``, ``collection.json`` with level 2 and,
    with ``with_run``, ``bm25.run``): judged documents share words with their query, so BM25 ranks them high."""
    rng = random.Random(7)
    folder.mkdir(parents=True, exist_ok=True)
    topic_of = {did: QUERIES[qid] for qid, judged in QRELS.items() for did in judged}
    documents = {f"d{i:02d}": _document(rng, topic_of.get(f"d{i:02d}")) for i in range(1, 41)}
    (folder / "collection.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in documents.items()), encoding="utf-8")
    (folder / "queries.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()), encoding="utf-8")
    lines = [f"{q} 0 {d} {g}\n" for q, judged in QRELS.items() for d, g in judged.items()]
    (folder / "qrels.txt").write_text("".join(lines), encoding="utf-8")
    (folder / "collection.json").write_text('{"name": "handmade", "relevance_level": 2}', encoding="utf-8")
    if with_run:
        # every query ranks all 40 documents in a fixed shuffled order: ranks known exactly
        run_lines = []
        for qid in QUERIES:
            order = sorted(documents, key=lambda d, q=qid: random.Random(f"{q}{d}").random())
            run_lines += [f"{qid} Q0 {d} {r} {100 - r}.0 given\n" for r, d in enumerate(order, 1)]
        (folder / "given.run").write_text("".join(run_lines), encoding="utf-8")
    return folder


@pytest.fixture
def handmade(tmp_path) -> Path:
    """The hand-made collection folder (with its run ``given``)."""
    return write_collection(tmp_path / "handmade")
