"""Choose the datatrove executor at the edge: local processes by default, Slurm or Ray on a cluster."""

from __future__ import annotations

from typing import Any


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
        return SlurmPipelineExecutor(pipeline, time=slurm_time, partition=slurm_partition, job_name=job_name, **common)
    if kind == "ray":
        from datatrove.executor import RayPipelineExecutor

        return RayPipelineExecutor(pipeline, **common)
    raise SystemExit(f"unknown executor {kind!r}: choose local, slurm or ray")
