"""Fusion with the first stage: the formulas against hand-computed values, tuning on a dev set, bad input."""

from __future__ import annotations

import json
import math

import pytest

from wikiformer_kit.eval.cli import main
from wikiformer_kit.eval.rerank import check_first_stage_scores, fuse_run, tune_fusion
from wikiformer_kit.eval.rerank.fusion import store_fusion
from wikiformer_kit.eval.rerank.fusion_cv import query_folds
from wikiformer_kit.modeling_wikiformer import fuse_scores

from ..conftest import DL20_MINI

MODEL = [2.0, 0.0, -2.0]
BM25 = [10.0, 30.0, 20.0]


def test_zscore_by_hand():
    # model: mean 0, population std sqrt(8/3) -> z = [1.2247, 0, -1.2247]; bm25: mean 20, std sqrt(200/3) -> [-1.2247, 1.2247, 0]
    z = math.sqrt(1.5)
    assert fuse_scores(MODEL, BM25, "zscore", 0.7) == pytest.approx([0.7 * z - 0.3 * z, 0.3 * z, -0.7 * z])


def test_minmax_by_hand():
    # model -> [1, 0.5, 0]; bm25 -> [0, 1, 0.5]
    assert fuse_scores(MODEL, BM25, "minmax", 0.5) == pytest.approx([0.5, 0.75, 0.25])


def test_rrf_by_hand():
    # model ranks 1, 2, 3; bm25 ranks 3, 1, 2
    expected = [0.6 / 61 + 0.4 / 63, 0.6 / 62 + 0.4 / 61, 0.6 / 63 + 0.4 / 62]
    assert fuse_scores(MODEL, BM25, "rrf", 0.6) == pytest.approx(expected)


def test_alpha_ends_and_constant_scores():
    assert fuse_scores(MODEL, BM25, "zscore", 1.0)[0] == pytest.approx(math.sqrt(1.5))
    assert fuse_scores(MODEL, [5.0, 5.0, 5.0], "minmax", 0.0) == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("alpha", [-0.1, 1.5, float("nan")])
def test_alpha_outside_0_1_is_refused(alpha):
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\]"):
        fuse_scores(MODEL, BM25, "zscore", alpha)


def test_bad_first_stage_scores_are_refused():
    with pytest.raises(ValueError, match="finite"):
        fuse_scores(MODEL, [1.0, float("nan"), 2.0])
    with pytest.raises(ValueError, match="ranks but no scores"):
        check_first_stage_scores({"q1": {"a": -1.0, "b": -2.0, "c": -3.0}, "q2": {"a": 1.0, "b": 1.0}}, "given")
    check_first_stage_scores({"q1": {"a": 12.5, "b": 11.0}}, "bm25")


def test_fuse_run_and_tune_needs_two_judged_queries():
    model = {"q": {"a": 2.0, "b": 0.0, "c": -2.0}}
    first = {"q": {"a": 10.0, "b": 30.0, "c": 20.0}}
    assert fuse_run(model, first, "minmax", 0.5) == {"q": pytest.approx({"a": 0.5, "b": 0.75, "c": 0.25})}
    with pytest.raises(ValueError, match="at least 2 judged dev queries"):
        tune_fusion(model, first, {"q": {"b": 1}}, "RR@10", ["minmax"], [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match="no judgments"):
        tune_fusion(model, first, {}, "RR@10")


# Three documents per query; the first stage scores them 4.5, 3, 1.5 (min-max 1, 0.5, 0). Each kind of query gives
# (first stage, alpha 0.5, alpha 1) reciprocal ranks of:
#   A (15 queries, d1 relevant): 0.5, 1, 1   -- alpha 0.5 and the model alone both help, every time
#   B (2 queries, d0 relevant):  1, 1, 0.5   -- the model alone hurts
#   C (3 queries, d2 relevant):  1/3, 0.5, 1 -- the model alone wins big on a few queries
#   D (d0 relevant):             1, 0.5, 1/3 -- any fusion hurts
# Alpha 1 has the best mean on the dev queries (0.95 vs 0.925) only through the C queries.
KINDS = {
    "A": ("d1", {"d0": 0.0, "d1": 1.0, "d2": 0.5}),
    "B": ("d0", {"d0": 0.4, "d1": 0.0, "d2": 1.0}),
    "C": ("d2", {"d0": 0.1, "d1": 0.0, "d2": 1.0}),
    "D": ("d0", {"d0": 0.0, "d1": 1.0, "d2": 0.5}),
}


def _constructed_dev(counts: dict[str, int]) -> tuple[dict, dict, dict]:
    model, first, qrels = {}, {}, {}
    for kind, count in counts.items():
        relevant, scores = KINDS[kind]
        for i in range(count):
            qid = f"{kind}{i}"
            model[qid] = dict(scores)
            first[qid] = {"d0": 4.5, "d1": 3.0, "d2": 1.5}
            qrels[qid] = {relevant: 1}
    return model, first, qrels


def test_cross_validation_does_not_take_the_alpha_that_overfits():
    model, first, qrels = _constructed_dev({"A": 15, "B": 2, "C": 3})
    choice = tune_fusion(model, first, qrels, "RR@10", ["minmax"], [0.0, 0.5, 1.0])
    assert choice.grid["minmax"] == pytest.approx({0.0: 0.525, 0.5: 0.925, 1.0: 0.95})  # the dev mean prefers 1
    assert (choice.method, choice.alpha) == ("minmax", 0.5)  # the consistent gain, not the few-query one
    assert choice.beats_first_stage and choice.cv.folds == 5 and choice.cv.queries == 20
    assert choice.cv.best == ("minmax", 1.0) and choice.cv.best_gap < choice.cv.best_gap_spread
    assert choice.cv.gain > 0 and choice.cv.gain_interval[0] > 0
    low, high = choice.cv.estimate_interval
    assert low <= choice.cv.estimate <= high and choice.cv.first_stage == pytest.approx(0.525)
    again = tune_fusion(
        {q: model[q] for q in reversed(model)}, first, qrels, "RR@10", ["minmax"], [1.0, 0.5]
    )  # query order and a grid without 0 change nothing: folds follow the ids, the first stage is always tried
    assert (again.alpha, again.cv.estimate) == (choice.alpha, choice.cv.estimate)


def test_first_stage_alone_when_no_fusion_wins_beyond_the_folds_noise():
    model, first, qrels = _constructed_dev({"B": 8, "C": 2, "D": 4})  # the first stage is right on B and D
    choice = tune_fusion(model, first, qrels, "RR@10", ["minmax", "zscore"], [0.0, 0.5, 1.0])
    assert (choice.method, choice.alpha) == ("minmax", 0.0) and not choice.beats_first_stage
    assert "does not beat the first stage" in choice.summary()
    evidence = choice.evidence("dev-set")
    assert evidence["beats_first_stage"] is False and evidence["dev_queries"] == 14 and evidence["folds"] == 5


def test_folds_are_deterministic_and_balanced():
    ids = [f"q{i}" for i in range(23)]
    folds = query_folds(ids, 5)
    assert folds == query_folds(list(reversed(ids)), 5) and sorted(map(len, folds)) == [4, 4, 4, 5, 5, 5][1:]
    assert sorted(q for fold in folds for q in fold) == sorted(ids) and len(query_folds(ids[:3], 5)) == 3


def test_cli_fusion_tuning_and_stored_default(tiny_wikiformer, tmp_path, capsys):
    import shutil

    model = tmp_path / "model"
    shutil.copytree(tiny_wikiformer, model)
    common = ["--collection", str(DL20_MINI), "--candidates", "bm25", "--k", "5", "--max-queries", "3"]
    out = tmp_path / "tune"
    assert (
        main(
            [
                "tune-fusion",
                "--model",
                str(model),
                *common,
                "--alphas",
                "0",
                "0.5",
                "1",
                "--save",
                "--output-dir",
                str(out),
            ]
        )
        == 0
    )
    record = json.loads((out / "fusion.json").read_text())
    stored = json.loads((model / "config.json").read_text())
    assert (stored["fusion_method"], stored["fusion_alpha"]) == (record["method"], record["alpha"])
    assert stored["fusion_cv"] == record["cross_validation"] and stored["fusion_cv"]["dev_queries"] == 3
    assert record["value"] >= record["first_stage_value"] - 1e-9  # alpha 0 is the first stage itself
    rerank_out = tmp_path / "rerank"
    assert main(["rerank", "--model", str(model), *common, "--output-dir", str(rerank_out)]) == 0
    metrics = json.loads((rerank_out / "metrics.json").read_text())
    assert len(metrics) == 3 and metrics["model+bm25"]["fusion"]["method"] in (
        "zscore",
        "minmax",
        "rrf",
    )  # raw, first stage, fused by default
    assert (
        main(["rerank", "--model", str(model), *common, "--fusion", "none", "--output-dir", str(tmp_path / "raw")]) == 0
    )
    assert len(json.loads((tmp_path / "raw" / "metrics.json").read_text())) == 2
    assert (
        main(
            [
                "rerank",
                "--model",
                str(model),
                *common,
                "--fusion",
                "rrf",
                "--alpha",
                "1.5",
                "--output-dir",
                str(tmp_path / "x"),
            ]
        )
        == 2
    )
    assert "alpha must be in [0, 1]" in capsys.readouterr().err


def test_cli_stores_alpha_0_and_says_so_when_the_first_stage_alone_is_best(tiny_wikiformer, tmp_path, capsys):
    import shutil

    from wikiformer_kit.eval.collections import load_collection

    model = tmp_path / "model"
    shutil.copytree(tiny_wikiformer, model)
    collection = load_collection(str(DL20_MINI))
    ideal = tmp_path / "ideal.run"  # the judgments themselves as the first stage: no fusion can beat it
    lines = [
        f"{qid} Q0 {doc} {rank} {grade + 1 / rank:.4f} ideal"
        for qid, judged in collection.qrels.items()
        for rank, (doc, grade) in enumerate(sorted(judged.items(), key=lambda item: -item[1])[:8], 1)
        if doc in collection.documents
    ]
    ideal.write_text("\n".join(lines) + "\n")
    args = ["tune-fusion", "--model", str(model), "--collection", str(DL20_MINI), "--candidates", str(ideal)]
    assert main([*args, "--k", "8", "--save", "--output-dir", str(tmp_path / "tune")]) == 0
    printed = capsys.readouterr().out
    assert "does not beat the first stage on these dev queries beyond the folds' noise" in printed
    stored = json.loads((model / "config.json").read_text())
    assert stored["fusion_alpha"] == 0.0 and stored["fusion_cv"]["beats_first_stage"] is False
    assert (
        stored["fusion_cv"]["dev_queries"] == len({line.split()[0] for line in lines})
        and stored["fusion_cv"]["folds"] == 5
    )
    low, high = stored["fusion_cv"]["interval"]
    assert low <= stored["fusion_cv"]["estimate"] <= high and stored["fusion_dev_collection"] == "dl20-mini"


def test_cli_refuses_rank_only_first_stage_and_unjudged_dev(tiny_wikiformer, tmp_path, capsys):
    run = tmp_path / "ranks.run"
    lines = [
        f"{qid} Q0 {doc} {rank} {-rank} given" for qid, docs in _dl20_top(3).items() for rank, doc in enumerate(docs, 1)
    ]
    run.write_text("\n".join(lines) + "\n")
    args = ["rerank", "--model", str(tiny_wikiformer), "--collection", str(DL20_MINI), "--candidates", str(run)]
    assert main([*args, "--fusion", "zscore", "--max-queries", "3", "--output-dir", str(tmp_path / "o")]) == 2
    assert "ranks but no scores" in capsys.readouterr().err
    unjudged = tmp_path / "unjudged"
    unjudged.mkdir()
    (unjudged / "candidates.json").write_text((DL20_MINI / "candidates.json").read_text())
    tune = [
        "tune-fusion",
        "--model",
        str(tiny_wikiformer),
        "--collection",
        str(unjudged),
        "--output-dir",
        str(tmp_path / "t"),
    ]
    assert main(tune) == 2
    assert "no judgments" in capsys.readouterr().err


def test_store_fusion_checks(tmp_path):
    with pytest.raises(FileNotFoundError):
        store_fusion(tmp_path, "zscore", 0.5, "dev")
    with pytest.raises(ValueError, match="unknown fusion"):
        store_fusion(tmp_path, "mean", 0.5, "dev")


def _dl20_top(n: int) -> dict[str, list[str]]:
    from wikiformer_kit.eval.collections import load_collection
    from wikiformer_kit.eval.collections.trec import ranked

    collection = load_collection(str(DL20_MINI))
    run = collection.default_run()
    return {qid: [d for d, _ in ranked(run[qid])[:5]] for qid in collection.judged_query_ids()[:n]}
