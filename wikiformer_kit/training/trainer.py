"""The Trainer for groups: the paper's loss, its learning-rate schedule, per-task logs, re-ranking eval, model card.

How a batch mixes tasks, and the loss: a batch holds B groups whose tasks were drawn independently with the
normalised weights w_t. The batch loss is ``T / B * sum_g CE_g`` with T the number of tasks and CE_g the softmax
cross-entropy of group g (eq. 3-6). Its expectation is ``sum_t T * w_t * L_t``: with the default uniform weights,
exactly eq. 7 (``L_SRR + L_RWI + L_ATI + L_LTM``); other weights re-weight the sum. ``--ranking_weight`` replaces
the factor T (HARP's code: 1, the mean over the batch's pairs beside MLM). Being a plain sum over groups, the loss is
identical under gradient accumulation and DDP for the same global batch.
"""

from __future__ import annotations

import contextlib
import math
from pathlib import Path
from types import SimpleNamespace

import torch
from transformers import Trainer, TrainerCallback
from transformers.trainer_utils import get_last_checkpoint

from wikiformer_kit.model_card import CardInputs, Evaluation, write_model_card
from wikiformer_kit.modeling_wikiformer import max_pair_length
from wikiformer_kit.training.data import GroupDataset
from wikiformer_kit.training.evaluation import NanoBEIREvalSet, RerankEvalSet, nanobeir_metrics, rerank_metrics
from wikiformer_kit.training.losses import group_scores, pairwise_hinge, softmax_cross_entropy, softmax_margin
from wikiformer_kit.training.progress import progress_callback

FP16_OVERFLOWS_IN_A_ROW = 20  # the loss scaler halves its scale at each: 2**-20 means the run is broken


class NonFiniteTrainingError(RuntimeError):
    """A non-finite loss or gradient norm stopped training (see ``--nonfinite_policy``)."""


class NonFiniteModelError(RuntimeError):
    """A model with non-finite weights was about to be saved, evaluated, pushed or given a model card."""


def nonfinite_parameters(model: torch.nn.Module) -> list[str]:
    """Names of the parameters that hold a NaN or an infinity (one device sync per call)."""
    names = [name for name, _ in model.named_parameters()]
    flags = torch.stack([~torch.isfinite(p.detach()).all() for _, p in model.named_parameters()]).cpu().tolist()
    return [name for name, bad in zip(names, flags, strict=True) if bad]


HEAD_PREFIX = ("bert.pooler.", "classifier.")
"""BERT's ranking head's parameters: the pooler (dense + tanh on ``[CLS]``) and the Linear(hidden, 1) after it (eq.
1-2); a BERT checkpoint trained without a pooler (all-MiniLM-L6-v2) starts both anew. The Wikiformer model of another
encoder names its own (``ranking_head_prefixes``: XLM-R's ``classifier.``, ModernBERT's ``head.`` and
``classifier.``, DeBERTa's ``pooler.`` and ``classifier.``)."""


def ranking_head_prefixes(model: torch.nn.Module) -> tuple[str, ...]:
    """The parameter-name prefixes of ``model``'s ranking head."""
    return getattr(model, "ranking_head_prefixes", None) or HEAD_PREFIX


class WikiformerTrainer(Trainer):
    """A :class:`~transformers.Trainer` for groups: the paper's loss, per-task logs, zero-shot re-ranking eval.

    Pass ``train_dataset=GroupDataset``, ``data_collator=GroupCollator`` and, for evaluation, ``eval_dataset`` as a
    :class:`RerankEvalSet`. Logged per task ``t`` (means since the last log): ``loss_t`` and ``accuracy_t`` (the
    positive scored highest in its group), and ``group_accuracy`` over all tasks. With standard output not a
    terminal, a plain progress line every ``progress_steps`` steps or ``progress_seconds`` seconds
    (:mod:`.progress`).

    Non-finite numbers: before each optimizer step the loss of every micro-batch and the gradient norm are checked
    (one device sync per optimizer step; under DDP the check is agreed by all ranks). A non-finite one stops
    training with :class:`NonFiniteTrainingError` (``--nonfinite_policy stop``) or drops the step
    (``skip``, logged as ``skipped_steps``). A model whose weights are not finite is never saved, evaluated,
    pushed or given a card (:class:`NonFiniteModelError`).

    ``task_names`` are indexed like the collator's ``task_ids``; ``card_context`` holds the model card's
    ``base_model``, ``training_datasets`` (``[(source, description)]``) and ``recipe`` (``{setting: value}``).
    """

    loss_is_scaled_for_ga = False  # the loss is a per-batch mean: the Trainer divides it by the accumulation steps

    def __init__(
        self, *args, task_names: list[str], eval_max_length: int = 512, card_context: dict | None = None, **kwargs
    ):
        super().__init__(*args, **kwargs)
        progress = progress_callback(self.args)  # plain lines where no terminal shows the bar
        if progress is not None:
            self.add_callback(progress)
        self.task_names, self.eval_max_length = list(task_names), eval_max_length
        self.card_context = card_context or {}
        # loss, correct, groups per task; kept on the training device so that a step never waits for the GPU
        self._task_sums = torch.zeros(3, len(self.task_names), dtype=torch.float64, device=self.args.device)
        self._step_nonfinite = torch.zeros((), device=self.args.device)  # non-finite micro-batch losses this step
        self._step_tasks: list[torch.Tensor] = []
        self.skipped_steps, self._skipped_in_a_row = 0, 0
        self._micro_batch_shares: tuple[float, float] | None = None  # this micro-batch's share of the batch
        self.check_selection_metric()

    def check_selection_metric(self) -> None:
        """Refuse, before training, a ``metric_for_best_model`` that the dev set's evaluation never logs (the
        Trainer would fail at the first evaluation, after the first ``eval_steps``)."""
        metric = self.args.metric_for_best_model
        names = getattr(self.eval_dataset, "metric_names", None)
        if not metric or names is None or metric.removeprefix("eval_") in names():
            return
        raise ValueError(
            f"metric_for_best_model {metric!r} is not logged by the evaluation of {self.eval_dataset.name}: choose "
            f"one of {', '.join(names())}"
        )

    def _get_train_sampler(self, train_dataset=None):
        dataset = train_dataset if train_dataset is not None else self.train_dataset
        return dataset.sampler() if isinstance(dataset, GroupDataset) else super()._get_train_sampler(train_dataset)

    def create_optimizer(self, model=None):
        """The Trainer's optimizer, with the ranking head (pooler and classifier) at ``head_lr_multiplier`` x the rate.

        A head that starts at zero and moves at an encoder's fine-tuning rate stays near zero for a short run: the
        ranking is learned but the scores are not (every sigmoid score near 0.5).
        """
        fresh = self.optimizer is None
        optimizer = super().create_optimizer(model)
        multiplier = self.args.head_lr_multiplier
        if fresh and multiplier != 1:
            model = self.accelerator.unwrap_model(model or self.model)
            prefixes = ranking_head_prefixes(model)
            head = {id(p) for name, p in model.named_parameters() if name.startswith(prefixes)}
            for group in list(optimizer.param_groups):
                moved = [p for p in group["params"] if id(p) in head]
                if moved:
                    group["params"] = [p for p in group["params"] if id(p) not in head]
                    settings = {key: value for key, value in group.items() if key != "params"}
                    optimizer.add_param_group({**settings, "params": moved, "lr": group["lr"] * multiplier})
        return optimizer

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
        """``T / B * sum_g loss_g`` over the batch's B groups (T tasks, or ``ranking_weight``), plus ``mlm_weight``
        times the MLM loss."""
        group_mask, task_ids = inputs.pop("group_mask"), inputs.pop("task_ids")
        ranking_share, mlm_share = self._micro_batch_shares or (1.0, 1.0)
        chunks = self.args.effective_pair_chunks
        if chunks > 1 and inputs["input_ids"].shape[0] >= 2 * chunks:
            logits, mlm_loss = self.chunked_forward(model, inputs, chunks)
            outputs = SimpleNamespace(logits=logits, mlm_loss=mlm_loss)
        else:
            outputs = model(**inputs)
        scores = group_scores(outputs.logits, group_mask)
        if self.args.loss == "hinge":
            per_group = pairwise_hinge(scores, group_mask, self.args.hinge_margin)
        elif self.args.loss == "softmax_margin":
            per_group = softmax_margin(scores, group_mask, self.args.hinge_margin)
        else:
            per_group = softmax_cross_entropy(scores)
        weight = self.args.ranking_weight
        loss = per_group.mean() * (len(self.task_names) if weight is None else weight) * ranking_share
        # a micro-batch without masked tokens has a NaN mean MLM loss and a zero share: it adds nothing
        if self.args.mlm_weight and getattr(outputs, "mlm_loss", None) is not None and mlm_share:
            loss = loss + self.args.mlm_weight * outputs.mlm_loss * mlm_share
        if model.training:
            with torch.no_grad():
                # a tie with a negative is not a success (a fresh zero head ties everything)
                correct = (scores[:, 0] > scores[:, 1:].max(dim=1).values).double()
                ids = task_ids.to(self._task_sums.device)
                self._task_sums[0].index_add_(0, ids, per_group.detach().double().to(ids.device))
                self._task_sums[1].index_add_(0, ids, correct.to(ids.device))
                self._task_sums[2].index_add_(0, ids, torch.ones_like(correct, device=ids.device))
                self._step_tasks.append(task_ids)
        return (loss, outputs) if return_outputs else loss

    def training_step(self, model, inputs, num_items_in_batch=None):
        """The Trainer's step; the micro-batch loss is also counted when not finite (checked before the update).

        A token-budget batch (``{"micro_batches": [...]}``, see :class:`GroupCollator`) runs a forward and backward
        pass per micro-batch, each loss weighted by its share of the batch's groups (and of its masked tokens for
        MLM): the gradient is the whole batch's, while only one micro-batch's activations are held at a time.
        """
        micro_batches = inputs.get("micro_batches") if isinstance(inputs, dict) else None
        if micro_batches is None:
            return self._counted_step(model, inputs, num_items_in_batch)
        groups = [len(batch["task_ids"]) for batch in micro_batches]
        masked = [int((batch["mlm_labels"] != -100).sum()) if "mlm_labels" in batch else 0 for batch in micro_batches]
        total = None
        for index, batch in enumerate(micro_batches):
            self._micro_batch_shares = (groups[index] / sum(groups), masked[index] / max(1, sum(masked)))
            last = index == len(micro_batches) - 1
            # under DDP only the last backward pass of the step exchanges gradients
            sync = contextlib.nullcontext() if last or self.args.world_size == 1 else self.accelerator.no_sync(model)
            try:
                with sync:
                    loss = self._counted_step(model, batch, num_items_in_batch)
            finally:
                self._micro_batch_shares = None
            total = loss if total is None else total + loss
        return total

    def _counted_step(self, model, inputs, num_items_in_batch=None):
        loss = super().training_step(model, inputs, num_items_in_batch)
        self._step_nonfinite = self._step_nonfinite.to(loss.device) + (~torch.isfinite(loss.detach())).float()
        return loss

    def _get_grad_norm(self, model, grad_norm=None):
        """The Trainer's gradient norm, then the non-finite check of this optimizer step (see the class docstring)."""
        grad_norm = super()._get_grad_norm(model, grad_norm=grad_norm)
        self._check_step(model, grad_norm)
        return grad_norm

    def _check_step(self, model, grad_norm) -> None:
        losses_bad = self._step_nonfinite
        if self.args.world_size > 1:
            losses_bad = self.accelerator.reduce(losses_bad.clone(), reduction="sum")  # every rank decides alike
        norm = torch.as_tensor(grad_norm if grad_norm is not None else 0.0, device=losses_bad.device).float()
        bad_loss, bad_norm = (torch.stack([losses_bad > 0, ~torch.isfinite(norm)])).cpu().tolist()
        tasks, self._step_tasks = self._step_tasks, []
        self._step_nonfinite = torch.zeros_like(self._step_nonfinite)
        if not bad_loss and not bad_norm:
            self._skipped_in_a_row = 0
            return
        scaler_overflow = bad_norm and not bad_loss and self.args.fp16
        what = "loss" if bad_loss else "gradient norm"
        if scaler_overflow:
            # the fp16 loss scaler skips this step and lowers its scale: normal unless it goes on
            limit, reason = FP16_OVERFLOWS_IN_A_ROW, "fp16 loss-scaler overflows"
        elif self.args.nonfinite_policy == "skip":
            limit, reason = self.args.max_nonfinite_steps, f"non-finite {what}"
        else:
            limit, reason = 1, f"non-finite {what}"
        self.skipped_steps += 1
        self._skipped_in_a_row += 1
        if self._skipped_in_a_row >= limit:
            raise NonFiniteTrainingError(self._nonfinite_message(reason, tasks, float(norm), limit))
        if not scaler_overflow:
            if self.args.fp16:
                for parameter in model.parameters():  # the scaler sees an infinite gradient and skips the update
                    if parameter.grad is not None:
                        parameter.grad.fill_(float("inf"))
            else:
                model.zero_grad(set_to_none=True)  # AdamW leaves a parameter without a gradient untouched

    def _nonfinite_message(self, reason: str, tasks: list[torch.Tensor], grad_norm: float, limit: int) -> str:
        names = sorted({self.task_names[i] for ids in tasks for i in ids.cpu().tolist()})
        last = get_last_checkpoint(self.args.output_dir) if Path(self.args.output_dir).is_dir() else None
        in_a_row = f" ({limit} steps in a row)" if limit > 1 else ""
        return (
            f"{reason} at optimizer step {self.state.global_step + 1}{in_a_row}: tasks in the batch "
            f"{', '.join(names) or 'unknown'}; learning rate {self._get_learning_rate():.3g}; gradient norm "
            f"{grad_norm}. Training stopped; the model was not updated or saved. Last good checkpoint: "
            f"{last or 'none saved yet'}. Check the data of these tasks, lower --learning_rate, or use "
            "--bf16 rather than --fp16; resume with --resume_from_checkpoint."
        )

    def chunked_forward(
        self, model, inputs: dict[str, torch.Tensor], chunks: int
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Score the pairs in ``chunks`` forward passes of similar lengths, each cut to its longest pair.

        Pairs are right-padded to the batch's longest pair; sorting them by length and trimming each chunk skips most
        padding (about 40% of the tokens at the paper's 512 with Wikipedia sections). Returns the logits in the
        original pair order and the MLM loss averaged over all predicted tokens (None without MLM).
        """
        lengths = inputs["attention_mask"].sum(dim=1)
        order = lengths.argsort()
        pieces = order.chunk(chunks)
        widths = torch.stack([lengths[index].max() for index in pieces]).cpu().tolist()  # one sync for all chunks
        logits = torch.empty(lengths.shape[0], 1, device=lengths.device)
        mlm_sum, mlm_count = None, None
        for index, width in zip(pieces, widths, strict=True):
            outputs = model(**{key: value[index, :width] for key, value in inputs.items()})
            logits = logits.to(outputs.logits.dtype).index_copy(0, index, outputs.logits)
            if getattr(outputs, "mlm_loss", None) is not None:
                count = (inputs["mlm_labels"][index] != -100).sum()  # stays on the device: no sync
                # a chunk without masked tokens has a NaN mean MLM loss: it adds nothing
                part = torch.where(count > 0, outputs.mlm_loss * count, torch.zeros_like(outputs.mlm_loss))
                mlm_sum = part + (0 if mlm_sum is None else mlm_sum)
                mlm_count = count + (0 if mlm_count is None else mlm_count)
        return logits, (None if mlm_sum is None else mlm_sum / mlm_count.clamp(min=1))

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        """Add the per-task losses and accuracies (summed over DDP ranks) to the training logs."""
        if "loss" in logs:
            if not math.isfinite(logs["loss"]) and isinstance(getattr(self, "_tr_loss", None), torch.Tensor):
                # the Trainer resets its loss sum by subtracting it from itself, which leaves a NaN in place
                self._tr_loss.zero_()
            sums = self._task_sums.clone()
            if self.skipped_steps:
                logs["skipped_steps"] = self.skipped_steps
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
        """Zero-shot re-ranking of the :class:`RerankEvalSet` (``{prefix}_ndcg@10`` and ``{prefix}_mrr@10``) or
        NanoBEIR's figures (:class:`NanoBEIREvalSet`: ``{prefix}_NanoBEIR_R100_mean_ndcg@10``, ...).

        Every DDP rank scores the whole (small) set, so all ranks agree on the best checkpoint.
        """
        eval_set = eval_dataset if eval_dataset is not None else self.eval_dataset
        self.check_finite("evaluate")
        if not isinstance(eval_set, (RerankEvalSet, NanoBEIREvalSet)):
            return super().evaluate(eval_dataset, ignore_keys, metric_key_prefix)
        model = self.accelerator.unwrap_model(self.model)
        settings = (model, self.processing_class, eval_set, self.args.per_device_eval_batch_size, self.eval_max_length)
        with self.autocast_smart_context_manager():
            if isinstance(eval_set, NanoBEIREvalSet):
                values = nanobeir_metrics(*settings)
            else:
                values, _ = rerank_metrics(*settings)
        metrics = {f"{metric_key_prefix}_{key}": value for key, value in values.items()}
        self.log(metrics)
        self.control = self.callback_handler.on_evaluate(self.args, self.state, self.control, metrics)
        return metrics

    def check_finite(self, action: str) -> None:
        """Raise :class:`NonFiniteModelError` when a weight of the model is NaN or infinite."""
        bad = nonfinite_parameters(self.accelerator.unwrap_model(self.model))
        if bad:
            raise NonFiniteModelError(
                f"refusing to {action} a model with non-finite weights ({len(bad)} tensors, e.g. "
                f"{', '.join(bad[:3])}) at step {self.state.global_step}"
            )

    def _save(self, output_dir: str | None = None, state_dict=None) -> None:
        self.check_finite(f"save to {output_dir or self.args.output_dir}")
        super()._save(output_dir, state_dict)

    def push_to_hub(self, *args, **kwargs):
        """The Trainer's ``push_to_hub``, refused for a model with non-finite weights."""
        self.check_finite("push")
        return super().push_to_hub(*args, **kwargs)

    def create_model_card(self, *args, **kwargs) -> None:
        """Write ``README.md`` in ``output_dir`` from the kit's ``model_card.md`` (called by ``push_to_hub``).

        The card carries the training recipe and the zero-shot evaluation of the kept checkpoint (the best one with
        ``load_best_model_at_end``, else the last) in model-index (the Trainer's own card drops nDCG/MRR from it).
        """
        self.check_finite("write a model card for")
        if not self.is_world_process_zero():
            return
        evaluation = nanobeir = None
        if isinstance(self.eval_dataset, NanoBEIREvalSet):
            nanobeir = self._nanobeir_record()
        elif isinstance(self.eval_dataset, RerankEvalSet) and (kept := self._kept_evaluation("eval_ndcg@10")):
            name, level = self.eval_dataset.name, self.eval_dataset.relevance_level
            rr = "RR@10" if level <= 1 else f"RR(rel={level})@10"
            evaluation = Evaluation(
                name,
                name,
                {"this model": {"nDCG@10": kept["eval_ndcg@10"], rr: kept["eval_mrr@10"]}},
                "this model",
                level if level > 1 else None,
                note=f"zero-shot re-ranking during training, at step {kept['step']}",
                chosen_on=self._chosen_on(),
            )
        write_model_card(
            self.args.output_dir,
            CardInputs(
                repo_id=self.args.hub_model_id or Path(self.args.output_dir).name,
                base_model=self.card_context.get("base_model", ""),
                training_datasets=self.card_context.get("training_datasets", []),
                recipe=self.card_context.get("recipe", {}),
                max_length=max_pair_length(self.model.config),
                evaluation=evaluation,
                nanobeir=nanobeir,
            ),
        )

    def _kept_evaluation(self, key: str) -> dict | None:
        """The evaluation log holding ``key`` of the kept checkpoint (the best one, else the last); None before any."""
        evaluations = [log for log in self.state.log_history if key in log]
        kept = [log for log in evaluations if log["step"] == self.state.best_global_step] or evaluations[-1:]
        return kept[0] if kept else None

    def _chosen_on(self) -> str:
        # the kept checkpoint was chosen on the dev queries: a selection figure, not a result
        return "the checkpoint" if self.args.load_best_model_at_end else ""

    def _nanobeir_record(self):
        """The kept checkpoint's NanoBEIR figures from the evaluation logs (None before any evaluation)."""
        from wikiformer_kit.eval.nanobeir_report import NanoBEIRRecord

        evaluator = self.eval_dataset.evaluator
        kept = self._kept_evaluation(f"eval_{evaluator.primary_metric}")
        if kept is None:
            return None
        return NanoBEIRRecord(
            model=self.args.hub_model_id or Path(self.args.output_dir).name,
            dataset_id=str(evaluator.dataset_id),
            sets=list(evaluator.dataset_names),
            rerank_k=evaluator.rerank_k,
            at_k=evaluator.at_k,
            always_rerank_positives=evaluator.always_rerank_positives,
            results={key.removeprefix("eval_"): value for key, value in kept.items() if key.startswith("eval_Nano")},
            chosen_on=self._chosen_on(),
            settings={"step": kept["step"], "max_length": self.eval_max_length},
        )


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
