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

Ours runs twice: one padded forward per step, and ``--pair_chunks N`` (pairs sorted by length and scored in N
forward passes, each cut to its longest pair, which skips most of the padding of long-document batches).

Run: ``python bench/train_throughput.py --steps 10 --repeats 2`` (CPU; add ``--device cuda`` on a GPU machine).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from transformers import TrainerCallback

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from train import load_model  # noqa: E402
from training import (  # noqa: E402
    GroupCollator,
    GroupDataset,
    ModelArguments,
    Task,
    WikiformerTrainer,
    WikiformerTrainingArguments,
    load_task,
    resolve_model_path,
)


def build_srr(output_dir: Path) -> Path:
    """Build the task datasets from the vendored enwiki sample (once) and return the SRR folder."""
    srr = output_dir / "wikiformer-srr"
    if not srr.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "dataset_scripts.build",
                "--input",
                str(ROOT / "data/samples/wikipedia/enwiki-sample.xml.bz2"),
                "--output-dir",
                str(output_dir),
                "--tasks",
                "srr",
            ],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return srr


def full_groups(source: Path, group_size: int) -> Task:
    """The SRR groups that have at least ``group_size - 1`` negatives, cut to exactly that many (same work on both)."""
    task = load_task(str(source), "srr", 30, 480)
    keep = [i for i, negatives in enumerate(task.negatives) if len(negatives) >= group_size - 1]
    return Task(
        "srr",
        [task.fixed[i] for i in keep],
        [task.positives[i] for i in keep],
        [task.negatives[i][: group_size - 1] for i in keep],
        False,
        task.query_max_length,
        task.doc_max_length,
    )


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
        dataloader_num_workers=args.workers,
    )


def timed_train(trainer) -> float:
    """Train and return the steady-state seconds (see the module docstring)."""
    timer = StepTimer()
    trainer.add_callback(timer)
    trainer.train()
    return timer.steady_seconds()


def run_ours(task: Task, args, tokenizer, pair_chunks: int = 1) -> float:
    """Train with WikiformerTrainer; returns the steady-state seconds."""
    task.query_max_length, task.doc_max_length = 30, args.max_length - 33
    with tempfile.TemporaryDirectory() as output_dir:
        training_args = WikiformerTrainingArguments(**common_args(output_dir, args), pair_chunks=pair_chunks)
        model = load_model(ModelArguments(), with_mlm=False)
        trainer = WikiformerTrainer(
            model=model,
            args=training_args,
            train_dataset=GroupDataset([task], args.group_size, 1),
            data_collator=GroupCollator(tokenizer, [task], args.group_size, max_length=args.max_length),
            processing_class=tokenizer,
            task_names=["srr"],
        )
        return timed_train(trainer)


def run_sentence_transformers(task: Task, args) -> float:
    """Train with CrossEncoderTrainer + ListNetLoss on the same groups; returns the steady-state seconds."""
    from datasets import Dataset
    from sentence_transformers.cross_encoder import CrossEncoder, CrossEncoderTrainer, CrossEncoderTrainingArguments
    from sentence_transformers.cross_encoder.losses import ListNetLoss

    rows = {
        "query": task.fixed,
        "docs": [[p, *n] for p, n in zip(task.positives, task.negatives, strict=True)],
        "labels": [[1e4] + [0.0] * len(n) for n in task.negatives],
    }
    with tempfile.TemporaryDirectory() as output_dir:
        model = CrossEncoder(resolve_model_path(None), num_labels=1, max_length=args.max_length, device=args.device)
        loss = ListNetLoss(model, mini_batch_size=args.batch * args.group_size)
        trainer = CrossEncoderTrainer(
            model=model,
            args=CrossEncoderTrainingArguments(**common_args(output_dir, args)),
            train_dataset=Dataset.from_dict(rows),
            loss=loss,
        )
        return timed_train(trainer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch", type=int, default=4, help="groups per step")
    parser.add_argument("--group_size", type=int, default=8)
    parser.add_argument("--max_length", type=int, default=128, help="pair length")
    parser.add_argument("--repeats", type=int, default=2, help="alternating runs of each; the median is reported")
    parser.add_argument("--pair_chunks", type=int, default=4, help="also run ours with --pair_chunks N (1 = not)")
    parser.add_argument("--workers", type=int, default=0, help="dataloader workers (both trainers)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--data", type=Path, default=None, help="an SRR dataset folder (default: build the sample)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer

    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(resolve_model_path(None))
    data = args.data or build_srr(Path(tempfile.gettempdir()) / "wikiformer-bench-tasks")
    task = full_groups(data, args.group_size)
    if args.steps < 2:
        parser.error("--steps must be >= 2")
    pairs = (args.steps - 1) * args.batch * args.group_size
    chunked = f"wikiformer --pair_chunks {args.pair_chunks}"
    times: dict[str, list[float]] = {"wikiformer": [], "sentence-transformers": []}
    if args.pair_chunks > 1:
        times[chunked] = []
    for _ in range(args.repeats):
        times["wikiformer"].append(run_ours(task, args, tokenizer))
        times["sentence-transformers"].append(run_sentence_transformers(task, args))
        if args.pair_chunks > 1:
            times[chunked].append(run_ours(task, args, tokenizer, args.pair_chunks))
    rates = {name: pairs / statistics.median(values) for name, values in times.items()}
    print(
        f"\n{len(task.fixed)} SRR groups, group size {args.group_size}, {args.batch} groups/step, pair length "
        f"{args.max_length}, {args.steps} steps, {args.repeats} runs each, device {args.device}, "
        f"torch threads {torch.get_num_threads()}"
    )
    print("| trainer | pairs/s (median) | vs sentence-transformers | steady-state seconds per run |\n|---|---|---|---|")
    peer = rates["sentence-transformers"]
    for name, values in times.items():
        print(f"| {name} | {rates[name]:.1f} | {rates[name] / peer:.2f}x | {', '.join(f'{v:.1f}' for v in values)} |")
    ratio = {name: rate / peer for name, rate in rates.items()}
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": vars(args) | {"data": str(data), "json": None},
                    "seconds": times,
                    "pairs_per_second": rates,
                    "vs_peer": ratio,
                },
                indent=2,
                default=str,
            )
        )


if __name__ == "__main__":
    main()
