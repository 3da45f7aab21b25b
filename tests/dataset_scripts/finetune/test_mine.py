"""The miner on a hand-made collection: positives, excluded documents, the rank window, determinism, resume."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from wikiformer_kit.dataset_scripts.finetune.__main__ import main
from wikiformer_kit.dataset_scripts.finetune.build import build_groups
from wikiformer_kit.dataset_scripts.finetune.options import MiningOptions
from wikiformer_kit.dataset_scripts.finetune.sources import load_source
from wikiformer_kit.eval.collections import load_collection, read_trec_run
from wikiformer_kit.eval.collections.trec import ranked
from wikiformer_kit.eval.first_stage import BM25Options, BM25Retriever

from .conftest import QRELS, QUERIES


def _rows(folder):
    files = sorted((folder / "data").glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def _mine(collection, out, **options):
    return build_groups(load_source(str(collection)), out, MiningOptions(**options))


def _ranks(run, qid):
    return {did: rank for rank, (did, _) in enumerate(ranked(run[qid]), 1)}


def test_positives_and_no_judged_relevant_negative(handmade, tmp_path):
    public = _mine(handmade, tmp_path / "out", depth=40, num_negatives=40)
    rows = _rows(tmp_path / "out")
    level2 = {(q, d) for q, judged in QRELS.items() for d, g in judged.items() if g >= 2}
    assert {(r["query_id"], r["positive_id"]) for r in rows} == level2  # one group per positive, q4 has none
    collection = load_collection(str(handmade))
    for row in rows:
        judged = QRELS[row["query_id"]]
        assert not [d for d in row["negative_ids"] if judged.get(d, 0) > 0]  # never relevant in any grade
        assert row["query"] == QUERIES[row["query_id"]]
        assert row["positive"] == collection.documents[row["positive_id"]]
        assert row["negatives"] == [collection.documents[d] for d in row["negative_ids"]]
        assert len(set(row["negative_ids"])) == len(row["negative_ids"])
    judged_zero = {d for judged in QRELS.values() for d, g in judged.items() if g == 0}
    assert judged_zero & {d for r in rows for d in r["negative_ids"]}  # judged non-relevant: may be a negative
    counts = public["statistics"]["counts"]
    assert counts["query with no document graded relevant"] == 1  # q4
    assert counts["groups"] == len(rows) == len(level2)
    assert public["statistics"]["negatives per group"]["count"] == len(rows)


@pytest.mark.parametrize(("depth", "min_rank", "max_rank"), [(40, 10, 20), (15, 1, None), (30, 5, 30)])
def test_given_run_window_is_respected(handmade, tmp_path, depth, min_rank, max_rank):
    options = {"depth": depth, "min_rank": min_rank, "max_rank": max_rank, "num_negatives": 40}
    _mine(handmade, tmp_path / "out", first_stage=str(handmade / "given.run"), **options)
    run = read_trec_run(handmade / "given.run")
    last = max_rank or depth
    for row in _rows(tmp_path / "out"):
        ranks = _ranks(run, row["query_id"])
        assert all(min_rank <= ranks[d] <= last for d in row["negative_ids"])
        # every candidate of the window that is not judged relevant is there (num_negatives is large)
        judged = QRELS[row["query_id"]]
        window = {d for d, r in ranks.items() if min_rank <= r <= last and judged.get(d, 0) == 0}
        assert set(row["negative_ids"]) == window
        assert row["negative_ids"] == sorted(row["negative_ids"], key=ranks.get)  # kept in rank order


def test_bm25_window_and_sampling(handmade, tmp_path):
    _mine(handmade, tmp_path / "out", depth=25, min_rank=3, max_rank=20, num_negatives=5)
    collection = load_collection(str(handmade))
    run = BM25Retriever(collection.documents, BM25Options()).retrieve(collection.queries, 25)
    rows = _rows(tmp_path / "out")
    assert rows
    for row in rows:
        ranks = _ranks(run, row["query_id"])
        assert len(row["negative_ids"]) == 5
        assert all(3 <= ranks[d] <= 20 for d in row["negative_ids"])
    top = tmp_path / "top"
    _mine(handmade, top, depth=25, min_rank=3, max_rank=20, num_negatives=5, sampling="top")
    for row in _rows(top):
        ranks = _ranks(run, row["query_id"])
        judged = QRELS[row["query_id"]]
        best = [d for d, _ in ranked(run[row["query_id"]]) if 3 <= ranks[d] <= 20 and judged.get(d, 0) == 0][:5]
        assert row["negative_ids"] == best


def test_same_groups_on_a_rerun_and_other_seeds_differ(handmade, tmp_path):
    _mine(handmade, tmp_path / "a", num_negatives=4, depth=40)
    _mine(handmade, tmp_path / "b", num_negatives=4, depth=40)
    assert _rows(tmp_path / "a") == _rows(tmp_path / "b")
    _mine(handmade, tmp_path / "c", num_negatives=4, depth=40, seed=1)
    assert _rows(tmp_path / "a") != _rows(tmp_path / "c")


def test_resume_writes_only_missing_shards_and_refuses_other_options(handmade, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["--collection", str(handmade), "--output-dir", str(out), "--shard-queries", "2", "--num-negatives", "3"]
    assert main(argv) == 0
    shards = sorted((out / "data").glob("*.parquet"))
    assert len(shards) == 3 and len(list((out / ".work").glob("shard-*.json"))) == 3
    before = _rows(out)
    mtimes = {p: p.stat().st_mtime_ns for p in shards}
    # a run killed after its first shard: the second and third shards' files are gone
    for path in shards[1:]:
        path.unlink()
    for path in sorted((out / ".work").glob("shard-*.json"))[1:]:
        path.unlink()
    assert main(argv) == 0
    assert _rows(out) == before
    assert shards[0].stat().st_mtime_ns == mtimes[shards[0]]  # the finished shard was not written again
    assert json.loads((out / "mining_stats.json").read_text())["statistics"]["counts"]["groups"] == len(before)
    capsys.readouterr()
    assert main([*argv[:-1], "5"]) == 2
    assert "other options" in capsys.readouterr().err
    assert main([*argv[:-1], "5", "--overwrite"]) == 0
    assert all(len(r["negatives"]) <= 5 for r in _rows(out))


def test_a_changed_collection_file_is_never_resumed(handmade, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["--collection", str(handmade), "--output-dir", str(out), "--shard-queries", "2"]
    assert main(argv) == 0
    assert main(argv) == 0  # unchanged: resumed
    with (handmade / "qrels.txt").open("a") as qrels:
        qrels.write("q6 0 d18 2\n")
    capsys.readouterr()
    assert main(argv) == 2
    assert "other inputs (input replaced (size or time): qrels.txt)" in capsys.readouterr().err
    assert main([*argv, "--overwrite"]) == 0


def test_cli_snake_case_aliases_bad_window_and_empty_result(handmade, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["--collection", str(handmade), "--output_dir", str(out), "--min_rank", "2", "--max_rank", "9"]) == 0
    assert (out / "README.md").exists()
    bad = ["--collection", str(handmade), "--output-dir", str(tmp_path / "bad"), "--depth", "40", "--min-rank", "50"]
    assert main(bad) == 2
    assert "rank window" in capsys.readouterr().err
    assert main(["--collection", str(handmade), "--output-dir", str(out), "--absolute-margin", "1"]) == 2
    assert "--filter-model" in capsys.readouterr().err
    only_q4 = tmp_path / "q4"
    shutil.copytree(handmade, only_q4)
    (only_q4 / "qrels.txt").write_text("q4 0 d11 1\nq4 0 d12 0\n")
    assert main(["--collection", str(only_q4), "--output-dir", str(tmp_path / "none")]) == 1
    assert "no group came out" in capsys.readouterr().err


def test_query_part_and_card(handmade, tmp_path):
    from wikiformer_kit.eval.splits import fine_tuning_part

    public = _mine(handmade, tmp_path / "out", depth=40)
    train = build_groups(load_source(f"{handmade}#train"), tmp_path / "train", MiningOptions(depth=40))
    rows = _rows(tmp_path / "train") if (tmp_path / "train" / "data").exists() else []
    assert all(fine_tuning_part(r["query_id"]) == "train" for r in rows)
    assert train["part"] == "train" and train["source"] == "handmade"
    assert public["statistics"]["counts"]["groups"] >= len(rows)
    card = (tmp_path / "train" / "README.md").read_text()
    assert "`#train` part" in card and "| groups |" in card


def test_output_loads_as_a_training_task(handmade, tmp_path):
    from wikiformer_kit.training.data import load_task

    _mine(handmade, tmp_path / "out", depth=40)
    task = load_task(str(tmp_path / "out"), "finetune", 30, 480)
    query, positive, negatives = task.group(0)
    assert len(task) == len(_rows(tmp_path / "out")) and query and positive and negatives
