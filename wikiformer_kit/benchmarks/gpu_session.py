"""Every figure a GPU machine (one GPU, 16 cores) is rented for, in one command that fits a short booking.

1. ``benchmarks/gpu_report.py``: training steps/s and pairs/s (bf16, 30/480, groups of 8) with GPU utilization and peak
   memory, zero-shot DL20 before and after, the training bench against ``CrossEncoderTrainer`` and the re-ranking
   benches (``eval rerank`` and ``model.rerank`` against ``CrossEncoder.predict``);
2. the corpus stage and the task stage at each ``--processes`` count on the cores of the machine: one multistream
   dump of ``--articles`` real articles (``benchmarks/big_dump.py``, the vendored sample relinked copy by copy) is cut
   into exactly one shard per process (``--streams-per-shard`` above the dump's streams); ``p`` processes read
   ``p`` shards of ``--articles-per-process`` articles each (``--limit``), so every process has the same work and
   the speed-up is articles/s at ``p`` over articles/s at 1. The task stage (SRR, RWI, ATI, LTM) then runs at
   each count on the corpus of the widest run.

Writes ``OUT/gpu_session.json`` and ``OUT/gpu_session.md`` (a step that fails is recorded and the next one runs).
On the GPU machine, after ``bash .gpu/env/setup.sh`` and ``bash .gpu/model/restore.sh`` (``../shared/gpu``)::

    PYTHONPATH=/tmp/site HF_HUB_OFFLINE=1 python3 -m wikiformer_kit.benchmarks.gpu_session --model /tmp/model --out $OUT/session

about 7 minutes on an H100 with 16 cores (150 s the GPU part, 277 s the stage runs). ``--device cpu --tiny``
(with a tiny ``--model``) runs every step on a CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
import traceback
from pathlib import Path

from wikiformer_kit.benchmarks.big_dump import write_dump
from wikiformer_kit.benchmarks.common import python_module, table_head
from wikiformer_kit.benchmarks.device import add_device_arguments, describe, resolve_device
from wikiformer_kit.dataset_scripts.corpus.folder import read_build_record


def timed(command: list[str], log: Path) -> float:
    """Run ``command``, its output to ``log``; wall seconds (an error names the log)."""
    start = time.perf_counter()
    with open(log, "w") as out:
        result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT)
    if result.returncode:
        raise RuntimeError(f"{' '.join(command[:4])}... failed (exit {result.returncode}); see {log}")
    return time.perf_counter() - start


def gpu_figures(args, out: Path) -> dict:
    """``benchmarks/gpu_report.py`` with this run's settings (those left unset: gpu_report's defaults)."""
    from wikiformer_kit.benchmarks import gpu_report

    report = vars(gpu_report.parse_args(["--out", str(out)]))
    given = {key: value for key, value in vars(args).items() if key in report and key != "out" and value is not None}
    return gpu_report.main(args=argparse.Namespace(**{**report, **given}))


def stage_scaling(args, out: Path) -> dict:
    """Articles/s of the corpus stage and the task stage at each process count, and the speed-up over 1."""
    (dump,) = write_dump(out / "dump", args.articles, workers=max(args.processes))
    corpus_runs, task_runs = [], []
    widest = None
    for p in args.processes:
        corpus = out / f"corpus-{p}"
        command = python_module("wikiformer_kit.dataset_scripts.corpus", dump, "--output-dir", corpus, "--num-proc", p)
        command += ["--read-ahead", "off", "--limit", str(args.articles_per_process)]
        seconds = timed(command + ["--streams-per-shard", str(10**9)], out / f"corpus-{p}.log")  # a shard a process
        record = read_build_record(corpus)
        articles = record["statistics"]["articles"]
        corpus_runs.append({"processes": p, "shards": record["shards"], "articles": articles, "seconds": seconds})
        widest = corpus
    for p in args.processes:
        build = out / f"tasks-{p}"
        command = python_module("wikiformer_kit.dataset_scripts.build", "--input", widest, "--output-dir", build)
        seconds = timed(command + ["--num-proc", str(p)], out / f"tasks-{p}.log")
        task_runs.append({"processes": p, "articles": corpus_runs[-1]["articles"], "seconds": seconds})
    for runs in (corpus_runs, task_runs):
        base = runs[0]["articles"] / runs[0]["seconds"]
        for run in runs:
            run["articles_per_second"] = run["articles"] / run["seconds"]
            run["speedup"] = run["articles_per_second"] / base
    return {"cores": os.cpu_count(), "corpus": corpus_runs, "tasks": task_runs}


def markdown(report: dict) -> str:
    """The run's figures as Markdown."""
    lines = [f"## {report['device']} ({report.get('scaling', {}).get('cores', '?')} cores)", ""]
    gpu = report.get("gpu")
    if isinstance(gpu, dict) and "train" in gpu:
        train = gpu["train"]
        lines.append(table_head("figure", "value"))
        lines.append(f"| training steps/s | {train['steps_per_second']:.2f} |")
        lines.append(f"| training pairs/s | {train['pairs_per_second']:.0f} |")
        utilization = train.get("gpu_utilization")
        lines.append(f"| GPU utilization | {'n/a' if utilization is None else f'{utilization:.0f}%'} |")
        lines.append(f"| peak GPU memory | {train['peak_gpu_memory_bytes'] / 2**30:.1f} GiB |")
        for name, ratio in gpu.get("train_bench", {}).get("vs_peer", {}).items():
            lines.append(f"| training bench: {name} vs CrossEncoderTrainer | {ratio:.2f}x |")
        for key in ("rerank_bench", "rerank_bench_top20"):
            for name, ratio in gpu.get(key, {}).get("vs_cross_encoder", {}).items():
                lines.append(f"| {key}: {name} vs CrossEncoder.predict | {ratio:.2f}x |")
        lines.append("")
    elif gpu is not None:
        lines += [f"GPU report failed: {gpu}", ""]
    scaling = report.get("scaling")
    if isinstance(scaling, dict):
        lines.append(table_head("stage", "processes", "shards", "articles", "seconds", "articles/s", "speed-up"))
        for stage in ("corpus", "tasks"):
            for run in scaling[stage]:
                lines.append(
                    f"| {stage} | {run['processes']} | {run.get('shards', '')} | {run['articles']:,} | "
                    f"{run['seconds']:.1f} | {run['articles_per_second']:.1f} | {run['speedup']:.2f}x |"
                )
    elif scaling is not None:
        lines.append(f"stage scaling failed: {scaling}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--model", default=None, help="start checkpoint (default: the embedded all-MiniLM-L6-v2)")
    parser.add_argument(
        "--input", nargs="+", default=None, help="Wikipedia inputs of the training run (default: gpu_report's)"
    )
    parser.add_argument("--collection", type=Path, default=None, help="the TREC DL 2020 folder (default: gpu_report's)")
    parser.add_argument(
        "--dev-collection", default=None, help="the training run's dev collection (default: gpu_report's)"
    )
    parser.add_argument("--test-collections", nargs="*", default=None, help="test collections (default: gpu_report's)")
    parser.add_argument("--steps", type=int, default=300, help="training steps of the GPU report")
    parser.add_argument("--bench-steps", type=int, default=20)
    parser.add_argument("--groups", type=int, default=16)
    parser.add_argument("--workers", type=int, default=4, help="dataloader workers of the training run")
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--processes", default="1,2,4,8,16", help="process counts of the stage runs")
    parser.add_argument("--articles", type=int, default=24_000, help="articles of the dump")
    parser.add_argument("--articles-per-process", type=int, default=1_300, help="articles each process reads")
    parser.add_argument("--skip", default="", help="gpu, scaling: steps to leave out")
    parser.add_argument("--tiny", action="store_true", help="the smallest settings (a smoke test on a CPU)")
    add_device_arguments(parser)
    args = parser.parse_args(argv)
    if args.tiny:
        args.steps, args.bench_steps, args.groups, args.depth, args.max_queries, args.workers = 2, 0, 1, 5, 2, 0
        args.processes, args.articles, args.articles_per_process = "1,2", 106, 20
    args.processes = [int(p) for p in args.processes.split(",")]
    resolve_device(args)
    out = args.out or Path(tempfile.mkdtemp(prefix="gpu-session-"))
    out.mkdir(parents=True, exist_ok=True)
    report: dict = {"device": describe(args.device), "args": {k: str(v) for k, v in vars(args).items()}}
    steps = {"gpu": lambda: gpu_figures(args, out / "gpu"), "scaling": lambda: stage_scaling(args, out / "stages")}
    for name, step in steps.items():
        if name in args.skip.split(","):
            continue
        start = time.perf_counter()
        try:
            report[name] = step()
        except Exception as error:  # one failed step must not cost the run the other's figures
            traceback.print_exc()
            report[name] = f"{type(error).__name__}: {error}"
        report[f"{name}_seconds"] = time.perf_counter() - start
        (out / "gpu_session.json").write_text(json.dumps(report, indent=2, default=str))
    (out / "gpu_session.md").write_text(markdown(report))
    print(markdown(report))
    return report


if __name__ == "__main__":
    main()
