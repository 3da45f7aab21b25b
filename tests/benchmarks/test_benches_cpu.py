"""The GPU benchmarks run end to end on a CPU with ``--device cpu`` (tiny settings; the figures are not checked)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT

DL20_MINI = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "eval" / "dl20-mini"
SRR_GROUPS = PROJECT_ROOT / "tests" / "training" / "fixtures" / "srr_groups.jsonl"


def run_bench(module: str, *args: str, tmp_path, timeout: int = 900) -> subprocess.CompletedProcess:
    """``python -m module args...`` from the project root, offline, with an HF_HOME of its own."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("HF_", "TRANSFORMERS_"))}
    env.update(HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    result = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    return result


def test_device_options_default_to_cpu_without_a_gpu():
    import argparse

    from wikiformer_kit.benchmarks.device import GpuMonitor, add_device_arguments, resolve_device

    parser = argparse.ArgumentParser()
    add_device_arguments(parser)
    args = parser.parse_args([])
    resolve_device(args)
    assert (args.device, args.bf16) == ("cpu", False) or args.device.startswith("cuda")
    with GpuMonitor("cpu") as monitor:
        pass
    assert monitor.summary() == "" and monitor.utilization is None
    import torch

    if not torch.cuda.is_available():
        with pytest.raises(SystemExit, match="no CUDA device"):
            resolve_device(parser.parse_args(["--device", "cuda"]))


@pytest.mark.slow
def test_train_throughput_bench_on_cpu(tmp_path):
    from datasets import Dataset

    folder = tmp_path / "wikiformer-srr"
    rows = [json.loads(line) for line in SRR_GROUPS.read_text(encoding="utf-8").splitlines()]
    Dataset.from_list(rows).to_parquet(str(folder / "data" / "train.parquet"))
    out = tmp_path / "figures.json"
    result = run_bench(
        "wikiformer_kit.benchmarks.train_throughput",
        "--device", "cpu", "--steps", "2", "--batch", "1", "--group_size", "2", "--repeats", "1",
        "--query_length", "8", "--doc_length", "16", "--data", str(folder), "--json", str(out),
        tmp_path=tmp_path,
    )  # fmt: skip
    figures = json.loads(out.read_text())
    assert set(figures["pairs_per_second"]) == {"wikiformer", "sentence-transformers"}
    assert "device: CPU" in result.stdout


@pytest.mark.slow
def test_rerank_throughput_bench_on_cpu(tmp_path):
    result = run_bench(
        "wikiformer_kit.benchmarks.rerank_throughput",
        "--device", "cpu", "--data", str(DL20_MINI / "candidates.json"), "--num-pairs", "8", "--max-length", "64",
        "--depth", "3", "--batch-size", "4", "--dtype", "bfloat16",
        tmp_path=tmp_path,
    )  # fmt: skip
    assert "`python -m eval rerank` (batches across queries)" in result.stdout and "device: CPU" in result.stdout
    assert "8 (query, passage) pairs from candidates.json (3 queries, depth 3, 1 blocks)" in result.stdout
    assert "weights in bfloat16" in result.stdout
    assert "4.0 pairs a batch across queries, 2.7 query by query (of 4)" in result.stdout  # 3 + 3 + 2 pairs
