"""WikiformerTrainer: the loss (eq. 3-7) on a fresh head, learning on real groups, overfitting, schedule, logs."""

from __future__ import annotations

import math

import pytest
import torch

from wikiformer_kit.train import load_model
from wikiformer_kit.training.arguments import ModelArguments, WikiformerTrainingArguments
from wikiformer_kit.training.collator import GroupCollator
from wikiformer_kit.training.data import GroupDataset, load_task
from wikiformer_kit.training.losses import group_scores, pairwise_hinge, softmax_cross_entropy, softmax_margin
from wikiformer_kit.training.trainer import WikiformerTrainer


def make_trainer(model_dir, data_path, tokenizer, output_dir, group_size=3, max_rows=None, **overrides):
    task = load_task(str(data_path), "srr", 16, 64, max_rows=max_rows)
    values = dict(
        output_dir=str(output_dir),
        use_cpu=True,
        report_to="none",
        per_device_train_batch_size=4,
        learning_rate=1e-3,
        logging_steps=1,
        seed=3,
        save_strategy="no",
        disable_tqdm=True,
        max_steps=1,
    )
    values.update(overrides)
    args = WikiformerTrainingArguments(**values)
    model = load_model(ModelArguments(model_name_or_path=str(model_dir)), with_mlm=args.mlm_weight > 0)
    collator = GroupCollator(
        tokenizer, [task], group_size, mlm_probability=args.mlm_probability if args.mlm_weight else 0.0
    )
    return WikiformerTrainer(
        model=model,
        args=args,
        train_dataset=GroupDataset([task], group_size, args.seed),
        data_collator=collator,
        processing_class=tokenizer,
        task_names=[task.name],
    )


def first_batch(trainer):
    return trainer._prepare_inputs(next(iter(trainer.get_train_dataloader())))


def test_initial_loss_is_ln_group_size(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path):
    trainer = make_trainer(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, group_size=3)
    assert torch.count_nonzero(trainer.model.classifier.weight) == 0  # fresh head: zero-initialised
    batch = first_batch(trainer)
    assert batch["group_mask"].all()  # every fixture group has >= 2 negatives
    loss = trainer.compute_loss(trainer.model, batch)
    assert abs(loss.item() - math.log(3)) < 1e-2


def test_masked_slots_do_not_count():
    logits = torch.tensor([[0.0], [0.0], [0.0], [0.0], [0.0]])
    mask = torch.tensor([[True, True, False], [True, True, True]])
    scores = group_scores(logits, mask)
    assert scores[0, 2] == float("-inf")
    assert torch.allclose(softmax_cross_entropy(scores), torch.tensor([math.log(2), math.log(3)]))


def test_softmax_cross_entropy_matches_torch():
    scores = torch.randn(6, 5)
    expected = torch.nn.functional.cross_entropy(scores, torch.zeros(6, dtype=torch.long), reduction="none")
    assert torch.allclose(softmax_cross_entropy(scores), expected, atol=1e-6)


def test_pairwise_hinge_margin_one():
    scores = torch.tensor([[2.0, 0.5, 1.8, float("-inf")]])
    mask = torch.tensor([[True, True, True, False]])
    assert torch.allclose(pairwise_hinge(scores, mask), torch.tensor([(0.0 + 0.8) / 2]))


def test_softmax_margin_is_the_originals_loss_on_two_scores():
    # s+ = 2.0, s- = 0.5: softmax (0.8176, 0.1824); max(0, 1 - 0.8176 + 0.1824) = 0.3649 = 2 sigmoid(0.5 - 2.0)
    scores = torch.tensor([[2.0, 0.5], [0.5, 2.0]])
    mask = torch.ones(2, 2, dtype=torch.bool)
    loss = softmax_margin(scores, mask)
    assert torch.allclose(loss, torch.tensor([0.3649, 1.6351]), atol=1e-4)
    assert torch.allclose(loss, 2 * torch.sigmoid(scores[:, 1] - scores[:, 0]))
    # the original code: MarginRankingLoss(margin=1) on the softmax of the pair
    probabilities = torch.softmax(scores, dim=1)
    reference = torch.nn.MarginRankingLoss(margin=1.0, reduction="none")
    assert torch.allclose(loss, reference(probabilities[:, 0], probabilities[:, 1], torch.ones(2)))
    # never zero, unlike the hinge: a pair already 5 apart still has a gradient
    assert softmax_margin(torch.tensor([[5.0, 0.0]]), mask[:1]).item() == pytest.approx(2 / (1 + math.exp(5)), abs=1e-6)
    assert pairwise_hinge(torch.tensor([[5.0, 0.0]]), mask[:1]).item() == 0.0
    # an empty slot (-inf) has probability 0 and is not a negative
    padded = softmax_margin(torch.tensor([[2.0, 0.5, float("-inf")]]), torch.tensor([[True, True, False]]))
    assert torch.allclose(padded, loss[:1], atol=1e-6)


def test_loss_falls_on_real_srr_groups(tiny_encoder_dir, built_tasks, minilm_tokenizer, tmp_path):
    # 32 groups seen about five times each: a random 32-wide BERT cannot generalise in 40 steps, but must fit them
    trainer = make_trainer(
        tiny_encoder_dir,
        built_tasks / "wikiformer-srr",
        minilm_tokenizer,
        tmp_path,
        group_size=3,
        max_rows=32,
        max_steps=40,
        learning_rate=3e-3,
    )
    trainer.train()
    losses = [log["loss"] for log in trainer.state.log_history if "loss" in log]
    assert len(losses) == 40
    assert sum(losses[-10:]) / 10 < sum(losses[:10]) / 10 - 0.2, losses
    assert any("loss_srr" in log and "accuracy_srr" in log for log in trainer.state.log_history)


def test_tiny_set_is_overfit(tiny_encoder_dir, built_tasks, minilm_tokenizer, tmp_path):
    trainer = make_trainer(
        tiny_encoder_dir,
        built_tasks / "wikiformer-srr",
        minilm_tokenizer,
        tmp_path,
        group_size=3,
        max_rows=4,
        max_steps=50,
        learning_rate=3e-3,
    )
    trainer.train()
    last = [log for log in trainer.state.log_history if "loss" in log][-5:]
    assert all(log["loss"] < 0.1 for log in last), last
    assert all(log["group_accuracy"] == 1.0 for log in last)


@pytest.mark.parametrize("loss", ["hinge", "softmax_ce", "softmax_margin"])
def test_hinge_and_mlm_options_train(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, loss):
    trainer = make_trainer(
        tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, loss=loss, mlm_weight=1.0, max_steps=2
    )
    assert type(trainer.model).__name__ == "WikiformerForPreTraining"
    batch = first_batch(trainer)
    assert (batch["mlm_labels"] != -100).any()
    ranking_only = make_trainer(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, loss=loss)
    ranking_loss = ranking_only.compute_loss(ranking_only.model, first_batch(ranking_only)).item()
    joint = trainer.compute_loss(trainer.model, batch).item()
    assert joint > ranking_loss + 1.0  # the MLM term (about ln(vocabulary) at the start) is added
    trainer.train()


def test_ranking_weight_replaces_the_task_count(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path):
    default = make_trainer(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, loss="softmax_margin")
    weighted = make_trainer(
        tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path, loss="softmax_margin", ranking_weight=0.25
    )
    one = default.compute_loss(default.model, first_batch(default)).item()  # one task: T = 1
    assert weighted.compute_loss(weighted.model, first_batch(weighted)).item() == pytest.approx(one / 4)
    with pytest.raises(ValueError, match="ranking_weight"):
        WikiformerTrainingArguments(output_dir=str(tmp_path), use_cpu=True, ranking_weight=-1.0)
    with pytest.raises(ValueError, match="--loss"):
        WikiformerTrainingArguments(output_dir=str(tmp_path), use_cpu=True, loss="margin")


def test_paper_learning_rate_schedule(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path):
    trainer = make_trainer(
        tiny_encoder_dir,
        srr_groups_path,
        minilm_tokenizer,
        tmp_path,
        max_steps=20,
        learning_rate=1e-5,
        warmup_steps=0.1,
        lr_drop_step=10,
        lr_drop_factor=0.5,
    )
    trainer.create_optimizer_and_scheduler(num_training_steps=20)
    rates = []
    for _ in range(20):
        rates.append(trainer.lr_scheduler.get_last_lr()[0])
        trainer.optimizer.step()
        trainer.lr_scheduler.step()
    assert rates[0] < rates[1] < 1e-5  # two warm-up steps (10% of 20)
    assert rates[2:10] == pytest.approx([1e-5] * 8)
    assert rates[10:] == pytest.approx([5e-6] * 10)


def test_four_tasks_mix_and_log_per_task(tiny_encoder_dir, built_tasks, minilm_tokenizer, tmp_path):
    from wikiformer_kit.training.arguments import DataArguments
    from wikiformer_kit.training.data import load_tasks

    tasks = load_tasks(
        DataArguments(
            train_datasets=[str(built_tasks / f"wikiformer-{name}") for name in ("srr", "rwi", "ati", "ltm")],
            query_max_lengths=[16, 16, 16, 32],
            doc_max_lengths=[48, 48, 48, 32],
        )
    )
    assert [task.name for task in tasks] == ["srr", "rwi", "ati", "ltm"]
    assert tasks[1].candidates_are_queries and not tasks[0].candidates_are_queries
    args = WikiformerTrainingArguments(
        output_dir=str(tmp_path),
        use_cpu=True,
        report_to="none",
        max_steps=3,
        per_device_train_batch_size=8,
        logging_steps=3,
        save_strategy="no",
        disable_tqdm=True,
    )
    model = load_model(ModelArguments(model_name_or_path=str(tiny_encoder_dir)), with_mlm=False)
    trainer = WikiformerTrainer(
        model=model,
        args=args,
        train_dataset=GroupDataset(tasks, 4, args.seed),
        data_collator=GroupCollator(minilm_tokenizer, tasks, 4),
        processing_class=minilm_tokenizer,
        task_names=[task.name for task in tasks],
    )
    batch = first_batch(trainer)
    assert set(batch["task_ids"].tolist()) == {0, 1, 2, 3}  # 8 slots drawn uniformly from 4 tasks (seed 42)
    # a fresh head scores every candidate alike: loss = T / B * sum_g ln(candidates in g)
    expected = 4 * torch.log(batch["group_mask"].sum(dim=1).double()).mean().item()
    assert abs(trainer.compute_loss(trainer.model, batch).item() - expected) < 1e-4
    trainer.train()
    log = next(log for log in trainer.state.log_history if "loss" in log)
    assert {f"loss_{name}" for name in ("srr", "rwi", "ati", "ltm")} <= set(log)


@pytest.mark.parametrize("mlm_weight", [0.0, 1.0])
def test_pair_chunks_give_the_same_loss_and_gradients(
    tiny_encoder_dir, built_tasks, minilm_tokenizer, tmp_path, mlm_weight
):
    trainer = make_trainer(
        tiny_encoder_dir,
        built_tasks / "wikiformer-srr",
        minilm_tokenizer,
        tmp_path,
        group_size=4,
        mlm_weight=mlm_weight,
    )
    torch.nn.init.normal_(trainer.model.classifier.weight, std=0.5)  # a head that separates the pairs
    batch = first_batch(trainer)
    lengths = batch["attention_mask"].sum(dim=1)
    assert lengths.min() < lengths.max()  # there is padding to skip
    results = []
    for chunks in (1, 3):
        trainer.args.pair_chunks = chunks
        trainer.model.zero_grad()
        loss = trainer.compute_loss(trainer.model, dict(batch))
        loss.backward()
        results.append((loss.item(), trainer.model.bert.embeddings.word_embeddings.weight.grad.clone()))
    (loss_one, grad_one), (loss_chunked, grad_chunked) = results
    assert loss_chunked == pytest.approx(loss_one, abs=1e-5)
    assert torch.allclose(grad_chunked, grad_one, atol=1e-6)


@pytest.mark.parametrize("kept_the_best", [False, True])
def test_the_trainers_card_lists_a_selection_figure_as_no_result(
    kept_the_best, tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path
):
    from huggingface_hub import ModelCard

    from tests.conftest import SAMPLES
    from wikiformer_kit.training.evaluation import load_eval_set

    trainer = make_trainer(tiny_encoder_dir, srr_groups_path, minilm_tokenizer, tmp_path)
    trainer.eval_dataset = load_eval_set(str(SAMPLES / "eval" / "dl20-mini"), depth=5, max_queries=2)
    trainer.args.load_best_model_at_end = kept_the_best
    trainer.state.log_history = [{"eval_ndcg@10": 0.25, "eval_mrr@10": 0.5, "step": 1}]
    trainer.state.best_global_step = 1
    trainer.create_model_card()
    card = ModelCard.load(tmp_path / "README.md")
    results = [result.metric_name for result in card.data.eval_results or []]
    # a checkpoint kept for its figure on these queries: the figure chose it, so it is not a result of it
    assert results == ([] if kept_the_best else ["nDCG@10", "MRR(rel=2)@10"])
    assert ("selection figures" in card.content.lower()) == kept_the_best
