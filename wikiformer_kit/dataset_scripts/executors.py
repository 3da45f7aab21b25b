"""Choose the datatrove executor at the edge: local processes by default, Slurm or Ray on a cluster.

Slurm and Ray workers import this project's steps by name, so each worker gets the folder the kit is imported from on
its ``PYTHONPATH`` (and, on Slurm, the virtual environment the command ran in); the output and logging folders
must be on a file system every node sees.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from wikiformer_kit.cli.options import option
from wikiformer_kit.home import import_root, kit_environment

Executor = Literal["local", "slurm", "ray"]
EXECUTORS: tuple[str, ...] = get_args(Executor)


@dataclass(frozen=True)
class ExecutorOptions:
    """Where and how wide a build's datatrove stages run: ``kind`` is ``local`` (``num_proc`` processes on this
    machine, also the tasks per stage of the task build), ``slurm`` (needs ``slurm_partition``) or ``ray``."""

    num_proc: int = option(1, help="processes: tasks run at once")
    kind: Executor = option("local", flags=("--executor",), help=None)
    slurm_partition: str | None = option(None, help=None)
    slurm_time: str = option("24:00:00", help="time limit of a Slurm job")
    verbose: bool = option(
        False,
        help="print every stage's executor logs and progress bars (default: one line a stage, the rest in "
        "OUT/logs/<stage>.log)",
    )

    def __post_init__(self) -> None:
        if self.num_proc < 1:
            raise ValueError(f"num_proc must be >= 1, got {self.num_proc}")


def make_executor(
    options: ExecutorOptions,
    pipeline: list,
    *,
    tasks: int,
    logging_dir: str,
    job_name: str,
    depends: Any = None,
    skip_completed: bool = True,
    preload: tuple[str, ...] = (),
    stage: str | None = None,
    stage_log: Path | None = None,
):
    """A datatrove executor of ``options.kind`` running ``pipeline`` as ``tasks`` tasks (one per input shard) after
    ``depends``, recording logs, stats and finished tasks in ``logging_dir`` (what makes a rerun resume, where
    ``skip_completed``). ``preload``: modules the local workers need, imported once: by this process when the workers
    are forked from it (:func:`.local_executor.local_start_method`), else by the fork server (seconds per worker with
    torch/datasets/pyarrow in the import graph). ``stage`` names the console line the local executor prints when it
    ends, ``stage_log`` is where it writes the stage's output unless ``options.verbose`` (Slurm and Ray write their
    tasks' logs under ``logging_dir``)."""
    common = {"tasks": tasks, "logging_dir": logging_dir, "depends": depends, "skip_completed": skip_completed}
    kind = options.kind
    if kind == "local":
        from wikiformer_kit.dataset_scripts.local_executor import StartMethodAtRun

        workers = max(1, min(options.num_proc, tasks))
        console = {"stage": stage, "stage_log": stage_log, "verbose": options.verbose}
        return StartMethodAtRun(pipeline, workers=workers, preload=preload, **console, **common)
    if kind == "slurm":
        from datatrove.executor import SlurmPipelineExecutor

        if not options.slurm_partition:
            raise SystemExit("--executor slurm needs --slurm-partition")
        return SlurmPipelineExecutor(
            pipeline,
            time=options.slurm_time,
            partition=options.slurm_partition,
            job_name=job_name,
            env_command=slurm_environment(),
            **common,
        )
    if kind == "ray":
        from datatrove.executor import RayPipelineExecutor

        start_ray()
        # one CPU and 1 GB a task: a task stage worker peaks near 0.5 GB (README, Scale), datatrove asks for 2 GB
        return RayPipelineExecutor(pipeline, workers=options.num_proc, cpus_per_task=1, mem_per_cpu_gb=1, **common)
    raise SystemExit(f"unknown executor {kind!r}: choose {', '.join(EXECUTORS)}")


def chain_executors(
    options: ExecutorOptions,
    stages: list[tuple[str, list, int]],
    *,
    logs: Callable[[str, int], Path],
    job_prefix: str,
    last_always_reruns: bool = True,
    preload: tuple[str, ...] = (),
    stage_logs: Path | None = None,
):
    """Executors for ``stages`` (``(name, pipeline, tasks)``, first to last), each depending on the one before: run
    the returned (last) one to run them all. ``logs(name, tasks)`` is a stage's logging folder, ``job_prefix-name``
    its Slurm job and ``stage_logs/<name>.log`` its console log; the last stage is never skipped as completed when
    ``last_always_reruns`` (cheap outputs that follow the latest command line). ``options`` and ``preload``: as
    :func:`make_executor` takes them."""
    previous = None
    for index, (name, pipeline, tasks) in enumerate(stages):
        previous = make_executor(
            options,
            pipeline,
            tasks=tasks,
            logging_dir=str(logs(name, tasks)),
            job_name=f"{job_prefix}-{name}",
            depends=previous,
            skip_completed=not (last_always_reruns and index == len(stages) - 1),
            preload=preload,
            stage=name,
            stage_log=stage_logs / f"{name}.log" if stage_logs else None,
        )
    return previous


def slurm_environment() -> str:
    """The lines a Slurm job runs before the pipeline: this virtual environment, the project on ``PYTHONPATH``."""
    lines = []
    if sys.prefix != sys.base_prefix:
        lines.append(f"source {Path(sys.prefix) / 'bin' / 'activate'}")
    lines.append(f"cd {os.getcwd()}")
    lines.append(f"export PYTHONPATH={import_root()}${{PYTHONPATH:+:$PYTHONPATH}}")
    return " && ".join(lines)  # one line: datatrove indents it into its script template


def start_ray() -> None:
    """Connect to the Ray cluster named by ``RAY_ADDRESS`` (``auto``: the one started on this node with
    ``ray start``), or start a local one; its workers import the kit from :func:`~wikiformer_kit.home.import_root`."""
    import ray

    if ray.is_initialized():
        return
    ray.init(
        address=os.environ.get("RAY_ADDRESS") or None,
        runtime_env={"env_vars": {"PYTHONPATH": kit_environment()["PYTHONPATH"]}},
        include_dashboard=False,
        log_to_driver=False,
    )
