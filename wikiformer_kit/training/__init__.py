"""Wikiformer training: group-wise pre-training on the Wikipedia tasks, or fine-tuning, on one GPU or many.

``train.py`` at the repo root is the command line; this package holds its parts, one job per module, in
data-flow order:

- :mod:`training.kit_arguments`: the kit's own arguments (no torch: ``train.py --help`` reads them);
  :mod:`training.arguments`: with transformers' ``TrainingArguments``, from a YAML/JSON config file + flags.
- :mod:`training.data`: :func:`load_task` reads and validates a task dataset; :class:`TaskMixtureSampler` draws
  each batch slot's (task, row); :class:`GroupDataset` turns it into a group (positive + sampled negatives).
- :mod:`training.collator`: :class:`GroupCollator` tokenizes the pairs with per-task lengths and pads dynamically.
- :mod:`training.losses`: the softmax cross-entropy of a group (eq. 3-6) and the pairwise hinge.
- :mod:`training.evaluation`: zero-shot re-ranking (nDCG@10, MRR@10 with ir_measures).
- :mod:`training.trainer`: :class:`WikiformerTrainer` computes the loss (eq. 3-7 of the paper), logs per-task
  figures and evaluates zero-shot re-ranking so that the best checkpoint can be kept.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "EMBEDDED_MINILM": "kit_arguments",
    "DataArguments": "kit_arguments",
    "ModelArguments": "kit_arguments",
    "WikiformerTrainingArguments": "arguments",
    "parse_arguments": "arguments",
    "resolve_model_path": "kit_arguments",
    "GroupCollator": "collator",
    "GroupDataset": "data",
    "Task": "data",
    "TaskMixtureSampler": "data",
    "load_task": "data",
    "load_tasks": "data",
    "METRIC_NAMES": "evaluation",
    "NanoBEIREvalSet": "evaluation",
    "RerankEvalSet": "evaluation",
    "load_eval_set": "evaluation",
    "load_rerank_eval": "evaluation",
    "load_test_sets": "evaluation",
    "rerank_metrics": "evaluation",
    "group_scores": "losses",
    "pairwise_hinge": "losses",
    "softmax_cross_entropy": "losses",
    "DelayedCheckpointCallback": "trainer",
    "WikiformerTrainer": "trainer",
}
"""Public name -> module: imported on first use, so that ``training.kit_arguments`` (``train.py --help``)
loads without torch."""


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_EXPORTS)
