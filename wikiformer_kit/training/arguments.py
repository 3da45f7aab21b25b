"""The command line: model, data and training arguments, read from a YAML/JSON config file and flags."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, fields
from pathlib import Path

from transformers import TrainingArguments

from wikiformer_kit.cli import InputError
from wikiformer_kit.training.config_types import check_config_types
from wikiformer_kit.training.kit_arguments import (  # noqa: F401  (EMBEDDED_MINILM, resolve_model_path: imported from here too)
    CONFIG_SUFFIXES,
    EMBEDDED_MINILM,
    LOSSES,
    PROG,
    TASK_MIXTURES,
    DataArguments,
    KitTrainingArguments,
    ModelArguments,
    TrainArgumentParser,
    read_config,
    resolve_model_path,
)


@dataclass
class WikiformerTrainingArguments(TrainingArguments, KitTrainingArguments):
    """:class:`~transformers.TrainingArguments` plus the kit's options (:class:`~training.kit_arguments.
    KitTrainingArguments`: their ``--help`` says what each does; listed first in ``--help``).

    ``pair_chunks`` 0 chooses 1 on a GPU or under DDP (a GPU is faster with one full forward: chunks of a batch are
    too small to fill it; measured 0.40x on an H100 with MiniLM at 512 tokens) and 4 on a CPU (1.3-1.5x at 512).
    """

    _argument_group_name = "training (the kit's options first, then transformers' TrainingArguments)"

    remove_unused_columns: bool = False
    # the Trainer's default replaces a NaN loss by the running mean in the logs (0 at the start): keep NaN visible
    logging_nan_inf_filter: bool = False
    dataloader_num_workers: int | None = field(
        default=None,
        metadata={
            "help": "dataloader processes that read, tokenize and pad the groups; default: 4 per process on a GPU "
            "(the main process only feeds the GPU), 0 on a CPU"
        },
    )

    def __post_init__(self):
        choose_non_blocking = self.accelerator_config is None
        if self.dataloader_num_workers is None:
            import torch

            self.dataloader_num_workers = 4 if torch.cuda.is_available() and not self.use_cpu else 0
        super().__post_init__()
        if choose_non_blocking:
            # batches come from pinned memory (dataloader_pin_memory, on by default where there is a GPU): copy
            # them to the GPU without blocking the host
            self.accelerator_config.non_blocking = bool(self.dataloader_pin_memory) and not self.use_cpu
        if self.pair_chunks < 0:
            raise ValueError(f"--pair_chunks must be >= 0 (0 = choose), got {self.pair_chunks}")
        if self.pair_chunks > 1 and self.world_size > 1:
            # DDP allows one forward per backward; several would mark each gradient ready twice
            raise ValueError("--pair_chunks > 1 works in a single process only (not with DDP)")
        if self.loss not in LOSSES:
            raise ValueError(f"--loss must be one of {', '.join(LOSSES)}, got {self.loss!r}")
        if self.ranking_weight is not None and self.ranking_weight < 0:
            raise ValueError(f"--ranking_weight must be >= 0, got {self.ranking_weight}")
        if self.nonfinite_policy not in ("stop", "skip"):
            raise ValueError(f"--nonfinite_policy must be stop or skip, got {self.nonfinite_policy!r}")
        if self.head_lr_multiplier <= 0:
            raise ValueError(f"--head_lr_multiplier must be > 0, got {self.head_lr_multiplier}")
        if self.max_nonfinite_steps < 1:
            raise ValueError(f"--max_nonfinite_steps must be >= 1, got {self.max_nonfinite_steps}")
        self.remove_unused_columns = False  # the collator's group layout is not the model's signature

    @property
    def effective_pair_chunks(self) -> int:
        """``pair_chunks``, with 0 resolved: 1 on a GPU or under DDP, 4 on a CPU (see the class docstring)."""
        if self.pair_chunks:
            return self.pair_chunks
        return 4 if self.device.type == "cpu" and self.world_size == 1 else 1


def argument_parser() -> TrainArgumentParser:
    """The parser of ``train.py``'s flags (the config file is read by :func:`parse_arguments` before it)."""
    return TrainArgumentParser((ModelArguments, DataArguments, WikiformerTrainingArguments))


def parse_arguments(argv: list[str] | None = None) -> tuple[ModelArguments, DataArguments, WikiformerTrainingArguments]:
    """Parse ``[config.yaml|config.json] [--flag value ...]``: the file gives defaults, flags override them.

    Args:
        argv: the command line without the program name; defaults to ``sys.argv[1:]``.

    Raises:
        cli.InputError: a config file that is missing, not YAML/JSON, has unknown keys or a value of the wrong type
            (naming the key and the type), or an unknown flag.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argument_parser()
    if argv and Path(argv[0]).suffix.lower() in CONFIG_SUFFIXES:
        config_path = Path(argv.pop(0))
        values = read_config(config_path)
        known = {action.dest for action in parser._actions}
        unknown = sorted(set(values) - known)
        if unknown:
            raise InputError(
                f"{config_path}: unknown argument(s) {', '.join(unknown)} (see {PROG} --help-all for every argument)"
            )
        # argparse parses string defaults with the field's type, so YAML's "1e-5" (a string) becomes a float; any
        # other value is used as it is, so its type is checked first
        values = check_config_types(values, (ModelArguments, DataArguments, WikiformerTrainingArguments), config_path)
        parser.set_defaults(**values)
    *parsed, remaining = parser.parse_args_into_dataclasses(args=argv, return_remaining_strings=True)
    if remaining:
        config = [a for a in remaining if Path(a).suffix.lower() in CONFIG_SUFFIXES]
        hint = f"; a config file comes first: {PROG} {config[0]} [--flag value ...]" if config else ""
        raise InputError(
            f"unknown argument(s) {' '.join(remaining)} (see {PROG} --help, and --help-all for transformers' "
            f"TrainingArguments){hint}"
        )
    return tuple(parsed)


def train_arguments(config: Path | str, **settings) -> list[str]:
    """``train.py``'s command line: the config file, then each setting as its flag (a list as its values). A setting
    that is no argument of ``train.py`` is a ``TypeError``, as a renamed argument would be.
    """
    known = {f.name for cls in (ModelArguments, DataArguments, WikiformerTrainingArguments) for f in fields(cls)}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise TypeError(f"{PROG} has no argument {', '.join(unknown)}")
    argv = [str(config)]
    for name, value in settings.items():
        argv += [f"--{name}", *(map(str, value) if isinstance(value, (list, tuple)) else [str(value)])]
    return argv
