"""The Trainer for groups: the paper's loss, its learning-rate schedule, per-task logs, re-ranking eval, model card.

How a batch mixes tasks, and the loss: a batch holds B groups whose tasks were drawn independently with the
normalised weights w_t. The batch loss is ``T / B * sum_g CE_g`` with T the number of tasks and CE_g the softmax
cross-entropy of group g (eq. 3-6). Its expectation is ``sum_t T * w_t * L_t``: with the default uniform weights,
exactly eq. 7 (``L_SRR + L_RWI + L_ATI + L_LTM``); other weights re-weight the sum. Being a plain sum over groups,
the loss is identical under gradient accumulation and DDP for the same global batch.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import torch
from transformers import Trainer, TrainerCallback

from .data import GroupDataset
from .evaluation import RerankEvalSet, rerank_metrics
from .losses import group_scores, pairwise_hinge, softmax_cross_entropy


class WikiformerTrainer(Trainer):
    """A :class:`~transformers.Trainer` for groups: the paper's loss, per-task logs, zero-shot re-ranking eval.

    Pass ``train_dataset=GroupDataset``, ``data_collator=GroupCollator`` and, for evaluation, ``eval_dataset`` as a
    :class:`RerankEvalSet`. Logged per task ``t`` (means since the last log): ``loss_t`` and ``accuracy_t`` (the
    positive scored highest in its group), and ``group_accuracy`` over all tasks.

    Args:
        task_names: the task names, indexed like the collator's ``task_ids``.
        args: :class:`WikiformerTrainingArguments`.
        eval_max_length: pair length at evaluation.
        card_context: for the model card: ``base_model``, ``training_datasets`` (``[(source, description)]``) and
            ``recipe`` (``{setting: value}``).
        kwargs: passed on to :class:`~transformers.Trainer`.
    """

    loss_is_scaled_for_ga = False  # the loss is a per-batch mean: the Trainer divides it by the accumulation steps

    def __init__(
        self, *args, task_names: list[str], eval_max_length: int = 512, card_context: dict | None = None, **kwargs
    ):
        super().__init__(*args, **kwargs)
        self.task_names, self.eval_max_length = list(task_names), eval_max_length
        self.card_context = card_context or {}
        self._task_sums = torch.zeros(3, len(self.task_names), dtype=torch.float64)  # loss, correct, groups

    def _get_train_sampler(self, train_dataset=None):
        dataset = train_dataset if train_dataset is not None else self.train_dataset
        return dataset.sampler() if isinstance(dataset, GroupDataset) else super()._get_train_sampler(train_dataset)

    def create_scheduler(self, num_training_steps: int, optimizer=None):
        """Linear warm-up, then constant, then times ``lr_drop_factor`` from ``lr_drop_step`` on (the paper's)."""
        if self.lr_scheduler is None and self.args.lr_drop_step > 0:
            warmup = self.args.get_warmup_steps(num_training_steps)
            drop_step, factor = self.args.lr_drop_step, self.args.lr_drop_factor

            def scale(step: int) -> float:
                return (step + 1) / (warmup + 1) if step < warmup else (factor if step >= drop_step else 1.0)

            self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer or self.optimizer, scale)
            self._created_lr_scheduler = True
            return self.lr_scheduler
        return super().create_scheduler(num_training_steps, optimizer)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        """``T / B * sum_g loss_g`` over the batch's B groups (T tasks), plus ``mlm_weight`` times the MLM loss."""
        group_mask, task_ids = inputs.pop("group_mask"), inputs.pop("task_ids")
        if self.args.pair_chunks > 1 and inputs["input_ids"].shape[0] >= 2 * self.args.pair_chunks:
            logits, mlm_loss = self.chunked_forward(model, inputs)
            outputs = SimpleNamespace(logits=logits, mlm_loss=mlm_loss)
        else:
            outputs = model(**inputs)
        scores = group_scores(outputs.logits, group_mask)
        if self.args.loss == "hinge":
            per_group = pairwise_hinge(scores, group_mask, self.args.hinge_margin)
        else:
            per_group = softmax_cross_entropy(scores)
        loss = per_group.mean() * len(self.task_names)
        if self.args.mlm_weight and getattr(outputs, "mlm_loss", None) is not None:
            loss = loss + self.args.mlm_weight * outputs.mlm_loss
        if model.training:
            with torch.no_grad():
                # a tie with a negative is not a success (a fresh zero head ties everything)
                correct = (scores[:, 0] > scores[:, 1:].max(dim=1).values).double().cpu()
                ids = task_ids.cpu()
                self._task_sums[0].index_add_(0, ids, per_group.detach().double().cpu())
                self._task_sums[1].index_add_(0, ids, correct)
                self._task_sums[2].index_add_(0, ids, torch.ones_like(correct))
        return (loss, outputs) if return_outputs else loss

    def chunked_forward(self, model, inputs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Score the pairs in ``pair_chunks`` forward passes of similar lengths, each cut to its longest pair.

        Pairs are right-padded to the batch's longest pair; sorting them by length and trimming each chunk skips most
        padding (about 40% of the tokens at the paper's 512 with Wikipedia sections). Returns the logits in the
        original pair order and the MLM loss averaged over all predicted tokens (None without MLM).
        """
        lengths = inputs["attention_mask"].sum(dim=1)
        logits = torch.empty(lengths.shape[0], 1, device=lengths.device)
        mlm_sum, mlm_count = 0.0, 0
        for index in lengths.argsort().chunk(self.args.pair_chunks):
            width = int(lengths[index].max())
            outputs = model(**{key: value[index, :width] for key, value in inputs.items()})
            logits = logits.to(outputs.logits.dtype).index_copy(0, index, outputs.logits)
            if getattr(outputs, "mlm_loss", None) is not None:
                count = int((inputs["mlm_labels"][index] != -100).sum())
                mlm_sum, mlm_count = mlm_sum + outputs.mlm_loss * count, mlm_count + count
        return logits, (mlm_sum / mlm_count if mlm_count else None)

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        """Add the per-task losses and accuracies (summed over DDP ranks) to the training logs."""
        if "loss" in logs:
            sums = self._task_sums.to(self.args.device)
            if self.args.world_size > 1:
                sums = self.accelerator.reduce(sums, reduction="sum")
            sums = sums.cpu()
            for index, name in enumerate(self.task_names):
                if sums[2, index] > 0:
                    logs[f"loss_{name}"] = round(float(sums[0, index] / sums[2, index]), 4)
                    logs[f"accuracy_{name}"] = round(float(sums[1, index] / sums[2, index]), 4)
            if sums[2].sum() > 0:
                logs["group_accuracy"] = round(float(sums[1].sum() / sums[2].sum()), 4)
            self._task_sums.zero_()
        super().log(logs, start_time)

    def evaluate(self, eval_dataset=None, ignore_keys=None, metric_key_prefix: str = "eval") -> dict[str, float]:
        """Zero-shot re-ranking of the :class:`RerankEvalSet`: ``{prefix}_ndcg@10`` and ``{prefix}_mrr@10``.

        Every DDP rank scores the whole (small) set, so all ranks agree on the best checkpoint.
        """
        eval_set = eval_dataset if eval_dataset is not None else self.eval_dataset
        if not isinstance(eval_set, RerankEvalSet):
            return super().evaluate(eval_dataset, ignore_keys, metric_key_prefix)
        model = self.accelerator.unwrap_model(self.model)
        with self.autocast_smart_context_manager():
            values, _ = rerank_metrics(
                model, self.processing_class, eval_set, self.args.per_device_eval_batch_size, self.eval_max_length
            )
        metrics = {f"{metric_key_prefix}_{key}": value for key, value in values.items()}
        self.log(metrics)
        self.control = self.callback_handler.on_evaluate(self.args, self.state, self.control, metrics)
        return metrics

    def create_model_card(self, *args, **kwargs) -> None:
        """Write ``README.md`` in ``output_dir`` from the kit's ``model_card.md`` (called by ``push_to_hub``).

        The card carries the training recipe and the zero-shot evaluation of the kept checkpoint (the best one with
        ``load_best_model_at_end``, else the last) in model-index. Outside the kit (no ``model_card`` module) the
        Trainer's own card is written, which drops nDCG/MRR from model-index.
        """
        try:
            from model_card import CardInputs, Evaluation, write_model_card
        except ImportError:
            return super().create_model_card(*args, **kwargs)
        if not self.is_world_process_zero():
            return None
        context = dict(self.card_context)
        evaluations = [log for log in self.state.log_history if "eval_ndcg@10" in log]
        kept = [log for log in evaluations if log["step"] == self.state.best_global_step] or evaluations[-1:]
        evaluation = None
        if kept and isinstance(self.eval_dataset, RerankEvalSet):
            level = self.eval_dataset.relevance_level
            measures = {
                "nDCG@10": kept[0]["eval_ndcg@10"],
                "RR@10" if level <= 1 else f"RR(rel={level})@10": kept[0]["eval_mrr@10"],
            }
            evaluation = Evaluation(
                self.eval_dataset.name,
                self.eval_dataset.name,
                {"this model": measures},
                "this model",
                level if level > 1 else None,
                note=f"zero-shot re-ranking during training, at step {kept[0]['step']}",
            )
        write_model_card(
            self.args.output_dir,
            CardInputs(
                repo_id=self.args.hub_model_id or Path(self.args.output_dir).name,
                base_model=context.get("base_model", ""),
                training_datasets=context.get("training_datasets", []),
                recipe=context.get("recipe", {}),
                max_length=self.model.config.max_position_embeddings,
                evaluation=evaluation,
            ),
        )
        return None


class DelayedCheckpointCallback(TrainerCallback):
    """Suppresses evaluation and checkpoints before ``save_start_step`` (paper: every 5k steps after 50k).

    Args:
        start_step: the first optimizer step at which ``save_steps``/``eval_steps`` take effect.
    """

    def __init__(self, start_step: int):
        self.start_step = start_step

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step < self.start_step and state.global_step < state.max_steps:
            control.should_save = control.should_evaluate = False
        return control
