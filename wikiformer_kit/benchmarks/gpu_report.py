"""Every GPU figure of the README in one command: a training run, zero-shot DL20 before and after, and the benches.

1. Builds the four task datasets from English Wikipedia (``--input``: the vendored enwiki sample by default; add
   a full dump from https://dumps.wikimedia.org, or in development the dumps of ``../shared/data/wikipedia``) with
   ``dataset_scripts.build``.
2. Zero-shot re-ranks the TREC DL 2020 BM25 top ``--depth`` (100) with the start model (new zero head) through
   ``python -m eval rerank``: nDCG@10 and MRR@10 (relevance level 2).
3. Trains ``--steps`` steps with ``train.py`` and ``configs/wikiformer-bert-base.yaml`` (bf16, lengths 30/480,
   ``--groups`` groups of 8 a step; ``--model``, default the embedded MiniLM) and records steps/s and pairs/s
   (steady state: from the end of the first step to the end of the last), GPU utilization and peak GPU memory.
4. Re-ranks DL20 again with the trained model.
5. Runs ``benchmarks/train_throughput.py`` (ours vs CrossEncoderTrainer, bf16, 30/480, group 8) and
   ``benchmarks/rerank_throughput.py`` (model.rerank and eval rerank vs CrossEncoder.predict) on the same device.

Prints one Markdown table and writes everything to ``OUT/gpu_report.json``. On a GPU machine::

    python -m wikiformer_kit.benchmarks.gpu_report --out output/gpu-report                    # about 3 minutes on an H100 with MiniLM
    python -m wikiformer_kit.benchmarks.gpu_report --model google-bert/bert-base-uncased --steps 1000

It runs on a CPU too (``--device cpu --steps 4 --groups 2 --depth 10 --max-queries 2``: a smoke test).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

from wikiformer_kit.benchmarks.common import ENWIKI_SAMPLE, SHARED_DATA, TASKS, build_task_datasets, python_module
from wikiformer_kit.benchmarks.device import GpuMonitor, add_device_arguments, describe, resolve_device
from wikiformer_kit.cli.options import to_argv
from wikiformer_kit.home import kit_file

# the development copy of the folder docs/evaluation.md#where-the-collections-come-from makes from public files
DL20 = SHARED_DATA / "eval" / "trec_dl20_passage"
CONFIG = kit_file("configs/wikiformer-bert-base.yaml")
_CONFIG_VALUES = yaml.safe_load(CONFIG.read_text())
CONFIG_DEV = _CONFIG_VALUES.get("eval_dir") or ""
CONFIG_TESTS = _CONFIG_VALUES.get("test_dirs") or []


def zero_shot(model_dir: Path, out: Path, args) -> dict[str, float]:
    """nDCG@10 and MRR@10 (rel 2) of ``model_dir`` re-ranking the DL20 BM25 top ``args.depth`` (eval rerank)."""
    import ir_measures
    from ir_measures import RR, nDCG

    from wikiformer_kit.eval.commands.rerank import RerankOptions

    options = RerankOptions(
        model=str(model_dir), collection=str(args.collection), k=args.depth, depth=args.depth, max_length=512,
        batch_size=args.eval_batch, device=args.device, tag="model", no_resume=True, output_dir=str(out),
        max_queries=args.max_queries,
    )  # fmt: skip
    command = python_module("wikiformer_kit.eval", "rerank", *to_argv(options))
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    run = list(ir_measures.read_trec_run(str(out / "model.run")))
    qrels = list(ir_measures.read_trec_qrels(str(next(Path(args.collection).glob("qrels*")))))
    measures = [nDCG @ 10, RR(rel=2) @ 10]
    values = ir_measures.calc_aggregate(measures, qrels, run)
    return {"ndcg@10": values[measures[0]], "mrr@10": values[measures[1]], "pairs": len(run), "seconds": seconds}


def train(tasks: Path, out: Path, args) -> dict:
    """Train with the paper's config; steps/s, pairs/s, GPU utilization and peak memory."""
    from wikiformer_kit.benchmarks.train_throughput import StepTimer
    from wikiformer_kit.train import main as train_main

    argv = [str(CONFIG), "--model_name_or_path", args.model or "embedded:minilm", "--output_dir", str(out)]
    argv += ["--train_datasets", *[str(tasks / f"wikiformer-{name}") for name in TASKS]]
    argv += ["--max_steps", str(args.steps), "--per_device_train_batch_size", str(args.groups)]
    argv += ["--bf16", str(args.bf16).lower(), "--logging_steps", str(max(1, args.steps // 10))]
    argv += ["--dataloader_num_workers", str(args.workers), "--learning_rate", str(args.learning_rate)]
    argv += "--save_start_step 0 --save_strategy no --eval_strategy no --load_best_model_at_end false".split()
    argv += ["--report_to", "none", "--lr_drop_step", "0", "--eval_dir", args.dev_collection]
    argv += ["--test_dirs", *args.test_collections] if args.test_collections else []
    argv += ["--use_cpu", "true"] if args.device == "cpu" else []
    timer = StepTimer()
    with GpuMonitor(args.device) as monitor:
        trainer = train_main(argv, callbacks=[timer])
    from wikiformer_kit.modeling_wikiformer import save_for_hub

    save_for_hub(trainer.model, trainer.processing_class, out / "model", max_length=512)
    test_results = out / "test_results.json"
    steps_per_second = (len(timer.times) - 1) / timer.steady_seconds()
    losses = [log["loss"] for log in trainer.state.log_history if "loss" in log]
    del trainer  # its model and optimizer state: the next steps run in processes of their own on the same GPU
    release_gpu_memory()
    return {
        "steps_per_second": steps_per_second,
        "pairs_per_second": steps_per_second * args.groups * 8,
        "gpu_utilization": monitor.utilization,
        "peak_gpu_memory_bytes": monitor.peak_memory,
        "first_loss": losses[0] if losses else None,
        "last_loss": losses[-1] if losses else None,
        "test": json.loads(test_results.read_text()) if test_results.exists() else {},
    }


def release_gpu_memory() -> None:
    """Give back to the GPU what the in-process training left cached (its objects dropped by the caller)."""
    import gc

    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def check_collections(args) -> None:
    """Load every collection the run evaluates on before anything is built (a GPU machine may lack them)."""
    from wikiformer_kit.eval.splits import load_collection_part

    for flag, specs in (("--collection", [str(args.collection)]), ("--dev-collection", [args.dev_collection]),
                        ("--test-collections", args.test_collections)):  # fmt: skip
        for spec in filter(None, specs):
            try:
                load_collection_part(spec)
            except (OSError, ValueError) as error:
                raise SystemExit(f"{flag} {spec}: {error}") from error


def start_model(out: Path, args) -> Path:
    """The untrained start (encoder + zero head) saved as a model folder."""
    from transformers import AutoTokenizer

    from wikiformer_kit.modeling_wikiformer import save_for_hub
    from wikiformer_kit.train import load_model
    from wikiformer_kit.training import ModelArguments, resolve_model_path

    model_args = ModelArguments(model_name_or_path=args.model or "embedded:minilm")
    model = load_model(model_args, with_mlm=False)
    tokenizer = AutoTokenizer.from_pretrained(resolve_model_path(model_args.model_name_or_path))
    save_for_hub(model, tokenizer, out, max_length=512)
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", nargs="+", default=[str(ENWIKI_SAMPLE)])
    parser.add_argument("--model", default=None, help="start checkpoint (default: the embedded all-MiniLM-L6-v2)")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--groups", type=int, default=16, help="groups of 8 a step")
    parser.add_argument("--learning_rate", type=float, default=2e-5)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument(
        "--collection",
        type=Path,
        default=DL20,
        help="the TREC DL 2020 passage folder: rank_llm's BM25 top 100 and NIST's qrels, made as docs/evaluation.md "
        "says (the default is the local copy for development)",
    )
    parser.add_argument(
        "--dev-collection",
        default=CONFIG_DEV,
        help="the training run's dev collection ('' = none; default: the config's)",
    )
    parser.add_argument(
        "--test-collections", nargs="*", default=CONFIG_TESTS,
        help="evaluated once after training (none given = none; default: the config's)",
    )  # fmt: skip
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--eval-batch", type=int, default=64)
    parser.add_argument("--bench-steps", type=int, default=20, help="steps of the training bench (0 = skip benches)")
    parser.add_argument("--out", type=Path, default=None)
    add_device_arguments(parser)
    args = parser.parse_args(argv)
    resolve_device(args)
    return args


def main(argv: list[str] | None = None, args: argparse.Namespace | None = None) -> dict:
    """The report of the command line ``argv``, or of ``args`` (this command's options, parsed)."""
    args = args or parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    check_collections(args)
    out = args.out or Path(tempfile.mkdtemp(prefix="gpu-report-"))
    out.mkdir(parents=True, exist_ok=True)
    report: dict = {"device": describe(args.device), "args": {k: str(v) for k, v in vars(args).items()}}
    tasks = build_task_datasets(out / "tasks", args.input, TASKS, quiet=False)
    report["before"] = zero_shot(start_model(out / "start", args), out / "eval-before", args)
    report["train"] = train(tasks, out / "run", args)
    report["after"] = zero_shot(out / "run" / "model", out / "eval-after", args)
    if args.bench_steps:
        from wikiformer_kit.benchmarks import rerank_throughput, train_throughput

        device = ["--device", args.device, "--bf16", str(args.bf16).lower()]
        report["train_bench"] = train_throughput.main(
            ["--steps", str(args.bench_steps), "--batch", str(args.groups), "--repeats", "1", *device]
            + (["--model", args.model] if args.model else [])
        )
        rerank = ["--num-pairs", "5400", "--max-length", "512", *device] + (
            ["--model", args.model] if args.model else []
        )
        report["rerank_bench"] = rerank_throughput.main(rerank)
        # BM25 top 20: short lists, where eval rerank's batches filled across queries matter most
        report["rerank_bench_top20"] = rerank_throughput.main([*rerank, "--depth", "20"])
    (out / "gpu_report.json").write_text(json.dumps(report, indent=2, default=str))
    trained, before, after = report["train"], report["before"], report["after"]
    utilization = trained["gpu_utilization"]
    print(f"\n## GPU report: {report['device']}, bf16 {args.bf16}, {args.model or 'all-MiniLM-L6-v2'}\n")
    print("| figure | value |\n|---|---|")
    print(f"| training steps/s ({args.groups} groups x 8, lengths 30/480) | {trained['steps_per_second']:.2f} |")
    print(f"| training pairs/s | {trained['pairs_per_second']:.0f} |")
    print(f"| GPU utilization while training | {'n/a' if utilization is None else f'{utilization:.0f}%'} |")
    print(f"| peak GPU memory while training | {trained['peak_gpu_memory_bytes'] / 2**30:.1f} GiB |")
    print(
        f"| zero-shot DL20 nDCG@10 / MRR@10, BM25 top {args.depth}: start | "
        f"{before['ndcg@10']:.4f} / {before['mrr@10']:.4f} |"
    )
    print(f"| after {args.steps} steps | {after['ndcg@10']:.4f} / {after['mrr@10']:.4f} |")
    for key, value in sorted(trained["test"].items()):
        if key.endswith(("ndcg@10", "mrr@10")):
            print(f"| train.py {key} (after {args.steps} steps) | {value:.4f} |")
    print(f"| eval rerank pairs/s (depth {args.depth}, length 512) | {after['pairs'] / after['seconds']:.0f} |")
    if args.bench_steps:
        for name, ratio in report["train_bench"]["vs_peer"].items():
            print(f"| training bench: {name} vs CrossEncoderTrainer | {ratio:.2f}x |")
        for key, depth in (("rerank_bench", "all 100"), ("rerank_bench_top20", "top 20")):
            for name, ratio in report[key]["vs_cross_encoder"].items():
                print(f"| re-ranking bench, {depth}: {name} vs CrossEncoder.predict | {ratio:.2f}x |")
    print(f"\nwrote {out / 'gpu_report.json'}")
    return report


if __name__ == "__main__":
    main()
