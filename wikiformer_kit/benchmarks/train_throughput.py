"""Training throughput: our group-wise WikiformerTrainer against sentence-transformers' CrossEncoderTrainer.

Both train the same all-MiniLM-L6-v2 (embedded package) with a new one-logit head on the same real SRR groups
(built from the vendored enwiki sample by ``dataset_scripts.build``), the same group size, batch, pair length,
optimizer and learning rate, for the same number of steps, one after the other and alternating, in one process.

The peer's closest listwise loss is ``ListNetLoss`` over (query, [positive, negatives...]) with labels
(1e4, 0, ..., 0): its softmax target is one-hot to float precision, so it is the same softmax cross-entropy over the
same group of pairs as ours (eq. 3). ``mini_batch_size`` is set to the whole batch so that it, like us, scores all
pairs of a step in one forward pass (its default forwards ``batch_size`` pairs at a time).
``MultipleNegativesRankingLoss`` would add in-batch negatives (more pairs per group), so it is not comparable.

Figures: pairs/s in the steady state = (steps - 1) x groups x group_size / the time from the end of the first
optimizer step to the end of the last (the first step pays one-off costs), timed by the same callback in both.

Ours runs with ``--pair_chunks`` chosen automatically (1 on a GPU, 4 on a CPU: see ``WikiformerTrainingArguments``)
and, with ``--pair_chunks N``, also with N forward passes over length-sorted chunks, each cut to its longest pair.
Both trainers get the same dataloader workers (default: 4 on a GPU, 0 on a CPU), ``--bf16`` autocast and pinned
memory. Printed: the device (GPU name), pairs/s, steps/s, GPU utilization and peak GPU memory per trainer.

Run: ``python -m wikiformer_kit.benchmarks.train_throughput`` (the paper's lengths 30/480, group 8, 16 groups a step; cuda when
available, bf16 on a GPU); on a CPU: ``python -m wikiformer_kit.benchmarks.train_throughput --device cpu --batch 4 --steps 6``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import torch
from transformers import TrainerCallback

from wikiformer_kit.benchmarks.common import build_task_datasets, table_head
from wikiformer_kit.benchmarks.device import GpuMonitor, add_device_arguments, describe, resolve_device
from wikiformer_kit.train import load_model
from wikiformer_kit.training import (
    GroupCollator,
    GroupDataset,
    ModelArguments,
    Task,
    WikiformerTrainer,
    WikiformerTrainingArguments,
    load_task,
    resolve_model_path,
)


def full_groups(source: Path, group_size: int, query_length: int, doc_length: int) -> Task:
    """The SRR groups with at least ``group_size - 1`` usable negatives (the same work for both trainers)."""
    task = load_task(str(source), "srr", query_length, doc_length)
    keep = [row for row in range(len(task)) if len(task.group(row)[2]) >= group_size - 1]
    task.rows = task.rows.select(keep)
    return task


class StepTimer(TrainerCallback):
    """Records the wall time at the end of every optimizer step."""

    def __init__(self):
        self.times: list[float] = []

    def on_step_end(self, args, state, control, **kwargs):
        self.times.append(time.perf_counter())

    def steady_seconds(self) -> float:
        """Seconds from the end of the first step to the end of the last."""
        return self.times[-1] - self.times[0]


def common_args(output_dir: str, args) -> dict:
    return dict(
        bf16=args.bf16,
        output_dir=output_dir,
        max_steps=args.steps,
        per_device_train_batch_size=args.batch,
        learning_rate=2e-5,
        warmup_steps=0,
        save_strategy="no",
        report_to="none",
        logging_steps=10_000,
        disable_tqdm=True,
        seed=1,
        use_cpu=args.device == "cpu",
        dataloader_persistent_workers=args.workers > 0,
        dataloader_num_workers=args.workers,
    )


def timed_train(trainer, args) -> float:
    """Train and return the steady-state seconds (see the module docstring); GPU figures go to ``args.monitors``."""
    timer = StepTimer()
    trainer.add_callback(timer)
    with GpuMonitor(args.device) as monitor:
        trainer.train()
    args.monitors.append(monitor)
    return timer.steady_seconds()


def run_ours(task: Task, args, tokenizer, pair_chunks: int = 0) -> float:
    """Train with WikiformerTrainer; returns the steady-state seconds."""
    with tempfile.TemporaryDirectory() as output_dir:
        training_args = WikiformerTrainingArguments(**common_args(output_dir, args), pair_chunks=pair_chunks)
        model = load_model(ModelArguments(model_name_or_path=args.model or ""), with_mlm=False)
        trainer = WikiformerTrainer(
            model=model,
            args=training_args,
            train_dataset=GroupDataset([task], args.group_size, 1),
            data_collator=GroupCollator(tokenizer, [task], args.group_size, args.max_length, args.pad_to_multiple_of),
            processing_class=tokenizer,
            task_names=["srr"],
        )
        if not pair_chunks:
            args.chosen_chunks = training_args.effective_pair_chunks
        return timed_train(trainer, args)


def run_sentence_transformers(task: Task, args) -> float:
    """Train with CrossEncoderTrainer + ListNetLoss on the same groups; returns the steady-state seconds."""
    from datasets import Dataset
    from sentence_transformers.cross_encoder import CrossEncoder, CrossEncoderTrainer, CrossEncoderTrainingArguments
    from sentence_transformers.cross_encoder.losses import ListNetLoss

    groups = [task.group(row) for row in range(len(task))]  # a few thousand groups: a list is fine here
    size = args.group_size - 1
    rows = {
        "query": [fixed for fixed, _, _ in groups],
        "docs": [[positive, *negatives[:size]] for _, positive, negatives in groups],
        "labels": [[1e4] + [0.0] * size for _ in groups],
    }
    with tempfile.TemporaryDirectory() as output_dir:
        model = CrossEncoder(
            resolve_model_path(args.model), num_labels=1, max_length=args.max_length, device=args.device
        )
        loss = ListNetLoss(model, mini_batch_size=args.batch * args.group_size)
        trainer = CrossEncoderTrainer(
            model=model,
            args=CrossEncoderTrainingArguments(**common_args(output_dir, args)),
            train_dataset=Dataset.from_dict(rows),
            loss=loss,
        )
        return timed_train(trainer, args)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=16, help="groups per step")
    parser.add_argument("--group_size", type=int, default=8)
    parser.add_argument("--query_length", type=int, default=30, help="query tokens (the paper's 30)")
    parser.add_argument("--doc_length", type=int, default=480, help="document tokens (the paper's 480)")
    parser.add_argument("--repeats", type=int, default=2, help="alternating runs of each; the median is reported")
    parser.add_argument("--pair_chunks", type=int, default=1, help="also run ours with --pair_chunks N (1 = not)")
    parser.add_argument("--workers", type=int, default=None, help="dataloader workers (default: 4 on a GPU, 0 on CPU)")
    parser.add_argument("--pad_to_multiple_of", type=int, default=None, help="ours: pad pair lengths to a multiple")
    parser.add_argument("--model", default=None, help="a BERT checkpoint (default: the embedded all-MiniLM-L6-v2)")
    add_device_arguments(parser)
    parser.add_argument("--data", type=Path, default=None, help="an SRR dataset folder (default: build the sample)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.steps < 2:
        parser.error("--steps must be >= 2")
    resolve_device(args)
    if args.workers is None:
        args.workers = 4 if args.device.startswith("cuda") else 0
    args.max_length = min(args.query_length + args.doc_length + 3, 512)
    args.monitors = []
    return args


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer

    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(resolve_model_path(args.model))
    data = (
        args.data
        or build_task_datasets(Path(tempfile.gettempdir()) / "wikiformer-bench-tasks", tasks=("srr",))
        / "wikiformer-srr"
    )
    task = full_groups(data, args.group_size, args.query_length, args.doc_length)
    pairs = (args.steps - 1) * args.batch * args.group_size
    runs = {"wikiformer": lambda: run_ours(task, args, tokenizer)}
    runs["sentence-transformers"] = lambda: run_sentence_transformers(task, args)
    if args.pair_chunks > 1:
        runs[f"wikiformer --pair_chunks {args.pair_chunks}"] = lambda: run_ours(task, args, tokenizer, args.pair_chunks)
    times: dict[str, list[float]] = {name: [] for name in runs}
    monitors: dict[str, list] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, run in runs.items():
            times[name].append(run())
            monitors[name].append(args.monitors.pop())
    rates = {name: pairs / statistics.median(values) for name, values in times.items()}
    print(
        f"\n{len(task)} SRR groups, group size {args.group_size}, {args.batch} groups/step, lengths "
        f"{args.query_length}/{args.doc_length} (pair {args.max_length}), {args.steps} steps, {args.repeats} runs "
        f"each, bf16 {args.bf16}, {args.workers} dataloader workers; ours chose --pair_chunks {args.chosen_chunks}"
    )
    print(f"device: {describe(args.device)}")
    print(table_head("trainer", "pairs/s (median)", "steps/s", "vs sentence-transformers", "GPU", "seconds per run"))
    peer = rates["sentence-transformers"]
    for name, values in times.items():
        gpu = monitors[name][-1].summary() or "-"
        print(
            f"| {name} | {rates[name]:.1f} | {rates[name] / (args.batch * args.group_size):.2f} | "
            f"{rates[name] / peer:.2f}x | {gpu} | {', '.join(f'{v:.1f}' for v in values)} |"
        )
    figures = {
        "args": {key: value for key, value in vars(args).items() if key != "monitors"} | {"data": str(data)},
        "device": describe(args.device),
        "seconds": times,
        "pairs_per_second": rates,
        "steps_per_second": {name: rate / (args.batch * args.group_size) for name, rate in rates.items()},
        "vs_peer": {name: rate / peer for name, rate in rates.items()},
        "gpu_utilization": {name: monitors[name][-1].utilization for name in runs},
        "peak_gpu_memory_bytes": {name: monitors[name][-1].peak_memory for name in runs},
    }
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))
    return figures


if __name__ == "__main__":
    main()
