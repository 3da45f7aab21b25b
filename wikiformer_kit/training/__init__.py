"""Wikiformer training: group-wise pre-training on the Wikipedia tasks, or fine-tuning, on one GPU or many.

``train.py`` is the command line; this package holds its parts, one job per module, in data-flow order: arguments
(``kit_arguments``, ``arguments``), task data and mixture sampling (``data``), the collator, the losses, MLM, zero-shot
evaluation and the trainer (ARCHITECTURE.md, step 3).
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "DataArguments": "kit_arguments",
    "ModelArguments": "kit_arguments",
    "WikiformerTrainingArguments": "arguments",
    "resolve_model_path": "kit_arguments",
    "GroupCollator": "collator",
    "GroupDataset": "data",
    "Task": "data",
    "load_task": "data",
    "load_tasks": "data",
    "load_rerank_eval": "evaluation",
    "load_test_sets": "evaluation",
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
