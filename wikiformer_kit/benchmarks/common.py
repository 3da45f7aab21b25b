"""What the benchmarks share: the shared data folder, the vendored samples and the task datasets built from them, a command measured in its
own process (wall seconds, CPU seconds of its whole process tree, memory), the size of a built corpus, the
machine's own ceiling for parallel work and the head of a Markdown table."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from wikiformer_kit.benchmarks.memory_sampler import TreeSampler
from wikiformer_kit.home import import_root, kit_file

ENWIKI_SAMPLE = kit_file("data/samples/wikipedia/enwiki-sample.xml.bz2")
# a development copy of public data; where a user gets each collection: docs/evaluation.md,
# where-the-collections-come-from (ir_datasets ids, Hugging Face datasets, URLs)
SHARED_DATA = import_root().parent / "shared" / "data"
"""The local copy for development of the public data some benchmarks read (their ``--data`` and the like)."""
TASKS = ("srr", "rwi", "ati", "ltm")


def python_module(module: str, *arguments) -> list[str]:
    """``python -m module arguments...`` as this Python runs it (each argument as a string)."""
    return [sys.executable, "-m", module, *map(str, arguments)]


def run_child(module: str, *arguments, timeout: float | None = None) -> dict:
    """Run ``python -m module arguments...`` (a measurement of its own, in a fresh process); the JSON object of its
    last output line."""
    completed = subprocess.run(python_module(module, *arguments), capture_output=True, text=True, timeout=timeout)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, arguments))} failed:\n{completed.stderr[-3000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def build_task_datasets(
    output_dir: Path, inputs: list[str] | None = None, tasks: tuple[str, ...] = TASKS, *, quiet: bool = True
) -> Path:
    """``output_dir`` holding ``wikiformer-<task>`` for every task in ``tasks``, built from ``inputs`` (default: the
    vendored enwiki sample) by ``python -m dataset_scripts.build`` when any of them is missing."""
    if all((output_dir / f"wikiformer-{task}").is_dir() for task in tasks):
        return output_dir
    command = python_module("wikiformer_kit.dataset_scripts.build", "--input", *(inputs or [ENWIKI_SAMPLE]))
    command += ["--output-dir", str(output_dir), "--tasks", ",".join(tasks)]
    if not quiet:
        print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL if quiet else None)
    return output_dir


def children_cpu() -> float:
    """User + system CPU seconds of this process's waited-for children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Measured:
    """One command run to its end: wall seconds, CPU seconds of its process tree, its sampler (peaks, samples)."""

    seconds: float
    cpu: float
    sampler: TreeSampler


def run_measured(
    command: list[str] | str,
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    interval: float = 0.05,
    uss_every: int = 0,
    keep_samples: bool = False,
) -> Measured:
    """Run a command (a list, or a shell line) in its own process, its tree sampled every ``interval`` seconds
    (``memory_sampler``); a failure ends the bench with its error output's end.

    The CPU is the larger of what the waited-for children report (``getrusage``) and the sum over the sampled tree:
    workers started by a fork server are not children of the command, and sampling misses a process's last
    interval."""
    before, start = children_cpu(), time.perf_counter()
    # a file, not a pipe: progress bars of a long run fill a pipe nobody reads until the end, and the run blocks
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command, shell=isinstance(command, str), env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=log
        )
        with TreeSampler(process.pid, interval, uss_every=uss_every, keep_samples=keep_samples) as sampler:
            process.wait()
        seconds = time.perf_counter() - start
        if process.returncode != 0:
            log.seek(0)
            raise SystemExit(f"failed ({process.returncode}): {command}\n{log.read().decode(errors='replace')[-3000:]}")
    return Measured(seconds, max(children_cpu() - before, sampler.cpu_seconds), sampler)


def corpus_articles(corpus: Path) -> int:
    """The articles of a built corpus folder (its ``data/*.parquet`` rows)."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(p).metadata.num_rows for p in sorted((corpus / "data").glob("*.parquet")))


def busy_loop(steps: int = 20_000_000) -> int:
    """Pure-Python work with no I/O and no shared state: what several processes can gain on this machine at best."""
    total = 0
    for step in range(steps):
        total += step * step % 7
    return total


def loop_ceiling(processes: int, steps: int = 5_000_000) -> float:
    """How much faster ``processes`` processes run ``processes`` equal pure-Python loops than 1 process runs them."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(processes) as pool:
        list(pool.map(busy_loop, [1000] * processes))  # workers started before the clock
        start = time.perf_counter()
        list(pool.map(busy_loop, [steps] * processes))
        parallel = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(processes):
        busy_loop(steps)
    return (time.perf_counter() - start) / parallel


def table_head(*columns: str, right: int | tuple[int, ...] = 0) -> str:
    """A Markdown table's header and rule; ``right``: the columns aligned right, as positions or as a count of
    the last columns."""
    right = range(len(columns) - right, len(columns)) if isinstance(right, int) else right
    return f"| {' | '.join(columns)} |\n|" + "".join("---:|" if i in right else "---|" for i in range(len(columns)))
