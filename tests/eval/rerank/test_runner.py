from __future__ import annotations

import dataclasses
import logging

import pytest

from tests.eval.conftest import DL20_MINI
from wikiformer_kit.eval.collections import Collection, load_collection, read_trec_run
from wikiformer_kit.eval.collections.trec import ranked
from wikiformer_kit.eval.rerank import PairScorer, rerank


class CountingScorer:
    """Wraps a PairScorer and records how many pairs each call scored, and each model batch's size."""

    def __init__(self, scorer, interrupt_at_batch: int | None = None):
        self.scorer, self.calls, self.batches, self.interrupt_at_batch = scorer, [], [], interrupt_at_batch
        self.model_path, self.max_length, self.batch_size = scorer.model_path, scorer.max_length, scorer.batch_size

    def score(self, queries, documents, progress=None):
        self.calls.append(len(queries))

        def batch_done(size):
            self.batches.append(size)
            if len(self.batches) == self.interrupt_at_batch:
                raise KeyboardInterrupt  # as Ctrl-C (or a lost machine) in the middle of a window
            progress(size)

        return self.scorer.score(queries, documents, batch_done)


@pytest.fixture(scope="module")
def dl20():
    return load_collection(str(DL20_MINI))


@pytest.fixture(scope="module")
def scorer(tiny_bert_ranker):
    return PairScorer(str(tiny_bert_ranker), max_length=64, batch_size=8, device="cpu")


def test_rerank_rescores_the_top_depth_and_keeps_the_first_stages_tail_below(dl20, scorer, tmp_path):
    ids = list(dl20.queries)[:3]
    candidates = dl20.runs["candidates"]
    run = rerank(dl20, candidates, scorer, tmp_path / "r.run", depth=4, query_ids=ids, tag="tiny")
    assert list(run) == ids
    for qid in ids:
        # the standard re-ranking protocol: the run is as deep as the first stage, the re-ranked 4 on top and the
        # rest below in first-stage order, so that R@100 and AP compare with the first stage's
        first_stage = [d for d, _ in ranked(candidates[qid])]
        order = sorted(run[qid], key=run[qid].get, reverse=True)
        assert len(run[qid]) == len(candidates[qid]) > 4
        assert set(order[:4]) == set(first_stage[:4]) and order[4:] == first_stage[4:]
    assert read_trec_run(tmp_path / "r.run") == run
    done = (tmp_path / "r.run.done").read_text().splitlines()
    assert done[0].startswith("# model=") and done[0].endswith("max_length=64 depth=4")
    assert done[1].startswith("# model ") and len(done[1].split()[-1]) == 16  # the model's files
    assert [line.split()[0] for line in done[2:]] == ids  # each with the fingerprint of what it was scored from
    assert all(len(line.split()[1]) == 16 for line in done[2:])


def test_resume_skips_finished_queries_and_redoes_interrupted_ones(dl20, scorer, tmp_path):
    ids = list(dl20.queries)[:4]
    output = tmp_path / "r.run"
    full = rerank(dl20, dl20.runs["candidates"], scorer, tmp_path / "full.run", depth=3, query_ids=ids)
    rerank(dl20, dl20.runs["candidates"], scorer, output, depth=3, query_ids=ids[:2])
    with open(output, "a") as out:  # an interrupted third query: rows written, not recorded as done
        out.write(f"{ids[2]} Q0 x 1 1.0 rerank\n")
    counting = CountingScorer(scorer)
    resumed = rerank(dl20, dl20.runs["candidates"], counting, output, depth=3, query_ids=ids)
    assert counting.calls == [6]  # only queries 3 and 4 scored again (one window)
    assert resumed.keys() == full.keys()
    for qid, ranking in full.items():
        assert resumed[qid] == pytest.approx(ranking, abs=1e-5)
    assert read_trec_run(output).keys() == set(ids)
    assert "x" not in read_trec_run(output)[ids[2]]
    with pytest.raises(ValueError, match=r"started with different settings .*depth=3; now .*depth=5"):
        rerank(dl20, dl20.runs["candidates"], scorer, output, depth=5, query_ids=ids)
    fresh = CountingScorer(scorer)
    rerank(dl20, dl20.runs["candidates"], fresh, output, depth=3, query_ids=ids, resume=False)
    assert fresh.calls == [12]


def test_bad_queries_and_missing_documents_are_counted(scorer, tmp_path, caplog):
    collection = Collection(
        "bad",
        documents={"d1": "wing", "d2": "slipstream"},
        queries={"q1": "wing", "q2": "  ", "q4": "no candidates"},
    )
    candidates = {"q1": {"d1": 3.0, "gone": 2.0, "d2": 1.0, "lost": 0.5}, "q2": {"d1": 1.0}, "q3": {"d1": 1.0}}
    with caplog.at_level(logging.WARNING):
        run = rerank(collection, candidates, scorer, tmp_path / "r.run", query_ids=["q1", "q2", "q3", "q4"])
    assert list(run) == ["q1"]
    ranking = sorted(run["q1"], key=run["q1"].get, reverse=True)
    assert set(ranking[:2]) == {"d1", "d2"} and ranking[2:] == ["gone", "lost"]
    for message in (
        "1 of 4 queries have no query text",
        "1 of 4 queries are empty",
        "1 of 4 queries have no candidates",
        "2 candidate documents are not in the corpus",
    ):
        assert message in caplog.text


def test_batches_are_filled_across_queries_with_the_scores_of_query_by_query_batching(dl20, scorer, tmp_path):
    candidates = dl20.runs["candidates"]
    per_query, across = CountingScorer(scorer), CountingScorer(scorer)
    alone = rerank(dl20, candidates, per_query, tmp_path / "alone.run", depth=7, window=1)
    together = rerank(dl20, candidates, across, tmp_path / "together.run", depth=7)
    assert len(dl20.queries) == 10
    assert per_query.calls == [7] * 10 and per_query.batches == [7] * 10  # batch size 8: 7 of 8 slots used
    assert across.calls == [70] and across.batches == [8] * 8 + [6]  # default window 16 x 8 pairs
    assert list(together) == list(alone)
    for qid, ranking in alone.items():
        assert together[qid] == pytest.approx(ranking, abs=1e-5)
        assert sorted(together[qid], key=together[qid].get) == sorted(ranking, key=ranking.get)
    assert read_trec_run(tmp_path / "together.run").keys() == alone.keys()
    with pytest.raises(ValueError, match="window must be at least 1 pair"):
        rerank(dl20, candidates, scorer, tmp_path / "bad.run", window=0)
    assert not (tmp_path / "bad.run").exists()  # refused before any file is written


def test_an_interruption_mid_batch_across_two_queries_resumes_to_the_identical_run(dl20, scorer, tmp_path):
    candidates = dl20.runs["candidates"]
    settings = {"depth": 3, "tag": "tiny", "window": 8}  # batches of 8 over queries of 3 pairs: 9, 9, 9, 3 a window
    rerank(dl20, candidates, scorer, tmp_path / "whole.run", **settings)
    output = tmp_path / "r.run"
    # window 1 scores 9 pairs in batches of 8 + 1; the first batch of window 2 (8 pairs of 3 queries) holds pairs
    # of two queries at least, and the run stops there
    interrupted = CountingScorer(scorer, interrupt_at_batch=3)
    with pytest.raises(KeyboardInterrupt):
        rerank(dl20, candidates, interrupted, output, **settings)
    first_window = list(dl20.queries)[:3]
    assert interrupted.batches == [8, 1, 8] and interrupted.calls == [9, 9]
    assert [line.split()[0] for line in (tmp_path / "r.run.done").read_text().splitlines()[2:]] == first_window
    assert read_trec_run(output).keys() == set(first_window)
    resumed = CountingScorer(scorer)
    rerank(dl20, candidates, resumed, output, **settings)
    assert resumed.calls == [9, 9, 3]  # windows 2-4 only: the same windows as the uninterrupted run
    assert output.read_bytes() == (tmp_path / "whole.run").read_bytes()
    assert (tmp_path / "r.run.done").read_bytes() == (tmp_path / "whole.run.done").read_bytes()


def test_a_run_in_another_dtype_is_not_resumed_into_a_float32_one(dl20, scorer, tiny_bert_ranker, tmp_path):
    ids = list(dl20.queries)[:2]
    output = tmp_path / "r.run"
    rerank(dl20, dl20.runs["candidates"], scorer, output, depth=2, query_ids=ids[:1])
    bf16 = PairScorer(str(tiny_bert_ranker), max_length=64, batch_size=8, device="cpu", dtype="bfloat16")
    with pytest.raises(ValueError, match=r"different settings .*depth=2; now .*depth=2 dtype=bfloat16\)"):
        rerank(dl20, dl20.runs["candidates"], bf16, output, depth=2, query_ids=ids)


def test_a_resume_scores_again_the_queries_whose_candidates_or_texts_changed(dl20, scorer, tmp_path, caplog):
    """A folder started with 5 candidates a query (``--k 5``) and resumed with 10 keeps nothing of the k=5 scores."""
    ids = list(dl20.queries)[:3]
    full = dl20.runs["candidates"]
    top5 = {qid: dict(ranked(full[qid])[:5]) for qid in ids}
    output = tmp_path / "r.run"
    rerank(dl20, top5, scorer, output, depth=None, query_ids=ids[:2])
    counting = CountingScorer(scorer)
    resumed = rerank(dl20, full, counting, output, depth=None, query_ids=ids)
    assert sum(counting.calls) == sum(len(full[qid]) for qid in ids)  # every query scored again, on its new list
    fresh = rerank(dl20, full, scorer, tmp_path / "fresh.run", depth=None, query_ids=ids)
    for qid in ids:
        assert resumed[qid] == pytest.approx(fresh[qid], abs=1e-5)
    assert "2 of the 2 queries finished earlier were scored from other candidates or texts" in caplog.text
    same = CountingScorer(scorer)
    rerank(dl20, full, same, output, depth=None, query_ids=ids)
    assert same.calls == []  # unchanged inputs: nothing scored again
    changed = dataclasses.replace(dl20, queries={**dl20.queries, ids[0]: dl20.queries[ids[0]] + " again"})
    text = CountingScorer(scorer)
    rerank(changed, full, text, output, depth=None, query_ids=ids)
    assert sum(text.calls) == len(full[ids[0]])  # only the query whose text changed
