"""Choose the datatrove executor at the edge: local processes by default, Slurm or Ray on a cluster.

Slurm and Ray workers import this project's steps by name, so each worker gets the project root on its
``PYTHONPATH`` (and, on Slurm, the virtual environment the command ran in); the output and logging folders
must be on a file system every node sees.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def make_executor(
    kind: str,
    pipeline: list,
    *,
    tasks: int,
    workers: int,
    logging_dir: str,
    job_name: str,
    depends: Any = None,
    skip_completed: bool = True,
    slurm_partition: str | None = None,
    slurm_time: str = "24:00:00",
    preload: tuple[str, ...] = (),
):
    """A datatrove executor of ``kind`` (``local``, ``slurm`` or ``ray``) running ``pipeline`` as ``tasks`` tasks.

    Args:
        kind: ``local`` (``workers`` processes on this machine), ``slurm`` (needs ``slurm_partition``) or ``ray``.
        pipeline: the datatrove steps.
        tasks: number of tasks (one per input shard).
        workers: tasks run at once by the local executor.
        logging_dir: where datatrove records logs, stats and finished tasks (what makes a rerun resume).
        job_name: the Slurm job name.
        depends: an executor that must finish first.
        skip_completed: skip tasks finished by an earlier run.
        preload: modules the local executor's fork server imports once, so that its workers start without
            importing them again (seconds per worker with torch/datasets/pyarrow in the import graph).
    """
    common = {"tasks": tasks, "logging_dir": logging_dir, "depends": depends, "skip_completed": skip_completed}
    if kind == "local":
        import multiprocess
        from datatrove.executor import LocalPipelineExecutor

        if preload:
            multiprocess.set_forkserver_preload(list(preload))
        return LocalPipelineExecutor(pipeline, workers=max(1, min(workers, tasks)), **common)
    if kind == "slurm":
        from datatrove.executor import SlurmPipelineExecutor

        if not slurm_partition:
            raise SystemExit("--executor slurm needs --slurm-partition")
        return SlurmPipelineExecutor(
            pipeline,
            time=slurm_time,
            partition=slurm_partition,
            job_name=job_name,
            env_command=slurm_environment(),
            **common,
        )
    if kind == "ray":
        from datatrove.executor import RayPipelineExecutor

        start_ray()
        # one CPU and 1 GB a task: a task stage worker peaks near 0.5 GB (README, Scale), datatrove asks for 2 GB
        return RayPipelineExecutor(pipeline, workers=workers, cpus_per_task=1, mem_per_cpu_gb=1, **common)
    raise SystemExit(f"unknown executor {kind!r}: choose local, slurm or ray")


def slurm_environment() -> str:
    """The lines a Slurm job runs before the pipeline: this virtual environment, the project on ``PYTHONPATH``."""
    lines = []
    if sys.prefix != sys.base_prefix:
        lines.append(f"source {Path(sys.prefix) / 'bin' / 'activate'}")
    lines.append(f"cd {PROJECT_ROOT}")
    lines.append(f"export PYTHONPATH={PROJECT_ROOT}${{PYTHONPATH:+:$PYTHONPATH}}")
    return " && ".join(lines)  # one line: datatrove indents it into its script template


def start_ray() -> None:
    """Connect to the Ray cluster named by ``RAY_ADDRESS`` (``auto``: the one started on this node with
    ``ray start``), or start a local one; its workers import the project from :data:`PROJECT_ROOT`."""
    import ray

    if ray.is_initialized():
        return
    python_path = os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if p)
    ray.init(
        address=os.environ.get("RAY_ADDRESS") or None,
        runtime_env={"env_vars": {"PYTHONPATH": python_path}},
        include_dashboard=False,
        log_to_driver=False,
    )
