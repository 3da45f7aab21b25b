"""Wikiformer training: group-wise pre-training on the Wikipedia tasks, or fine-tuning, on one GPU or many.

``train.py`` at the repo root is the command line; this package holds its parts, one job per module, in
data-flow order:

- :mod:`training.arguments`: the model, data and training arguments (YAML/JSON config file + flags).
- :mod:`training.data`: :func:`load_task` reads and validates a task dataset; :class:`TaskMixtureSampler` draws
  each batch slot's (task, row); :class:`GroupDataset` turns it into a group (positive + sampled negatives).
- :mod:`training.collator`: :class:`GroupCollator` tokenizes the pairs with per-task lengths and pads dynamically.
- :mod:`training.losses`: the softmax cross-entropy of a group (eq. 3-6) and the pairwise hinge.
- :mod:`training.evaluation`: zero-shot re-ranking (nDCG@10, MRR@10 with ir_measures).
- :mod:`training.trainer`: :class:`WikiformerTrainer` computes the loss (eq. 3-7 of the paper), logs per-task
  figures and evaluates zero-shot re-ranking so that the best checkpoint can be kept.
"""

from __future__ import annotations

from .arguments import (
    EMBEDDED_MINILM,
    DataArguments,
    ModelArguments,
    WikiformerTrainingArguments,
    parse_arguments,
    resolve_model_path,
)
from .collator import GroupCollator
from .data import GroupDataset, Task, TaskMixtureSampler, load_task, load_tasks
from .evaluation import (
    METRIC_NAMES,
    RerankEvalSet,
    load_eval_set,
    load_rerank_eval,
    load_test_sets,
    rerank_metrics,
)
from .losses import group_scores, pairwise_hinge, softmax_cross_entropy
from .trainer import DelayedCheckpointCallback, WikiformerTrainer

__all__ = [
    "EMBEDDED_MINILM",
    "METRIC_NAMES",
    "DataArguments",
    "DelayedCheckpointCallback",
    "GroupCollator",
    "GroupDataset",
    "ModelArguments",
    "RerankEvalSet",
    "Task",
    "TaskMixtureSampler",
    "WikiformerTrainer",
    "WikiformerTrainingArguments",
    "group_scores",
    "load_eval_set",
    "load_rerank_eval",
    "load_test_sets",
    "load_task",
    "load_tasks",
    "pairwise_hinge",
    "parse_arguments",
    "rerank_metrics",
    "resolve_model_path",
    "softmax_cross_entropy",
]
