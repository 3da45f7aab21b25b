"""datatrove's local executor, choosing how its workers start when its pool starts (not when it is built), and
showing one console line per stage (its output in the stage's log: :mod:`.stage_console`)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from datatrove.executor import LocalPipelineExecutor

from wikiformer_kit.dataset_scripts.stage_console import StageReport, counts_line, install_for_process, stage_output

FORK_SAFE_THREADS = ("fsspecIO",)
"""Threads a fork leaves no harm behind: fsspec's event loop (which ``datasets`` starts on import) is dropped and
made again in a forked child (``os.register_at_fork``)."""


def stop_progress_monitor() -> None:
    """Stop tqdm's monitor threads (they only tune how often bars redraw) and keep them off, so that they are no
    reason to start workers by a fork server. A bar class of another library (a subclass of tqdm's) runs a monitor
    of its own."""
    tqdm_module = sys.modules.get("tqdm.std")
    if tqdm_module is None:
        return
    import threading

    from tqdm._monitor import TMonitor

    tqdm_module.tqdm.monitor_interval = 0
    for thread in threading.enumerate():
        if isinstance(thread, TMonitor):
            bar_class = thread.tqdm_cls
            bar_class.monitor_interval = 0
            thread.exit()
            bar_class.monitor = None


def local_start_method() -> str:
    """``fork`` where it is safe, else datatrove's ``forkserver``.

    A forked worker starts with every module this process imported, at no cost; a fork server imports them once
    more, before any worker starts (seconds of a build that nothing runs beside: on a 10,000-article task build,
    a sixth of its CPU). Forking is safe on Linux while this process runs no thread but its own and the
    :data:`FORK_SAFE_THREADS` (tqdm's monitor is stopped first) and has not loaded torch (whose thread pools a
    forked child would inherit half-initialised); a task build that scores attention with torch keeps the fork
    server.
    """
    import threading

    stop_progress_monitor()
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and t.name not in FORK_SAFE_THREADS]
    if sys.platform.startswith("linux") and not others and "torch" not in sys.modules:
        return "fork"
    return "forkserver"


class StartMethodAtRun(LocalPipelineExecutor):
    """A ``LocalPipelineExecutor`` whose workers are forked or started by a fork server
    (:func:`local_start_method`) as decided once the stages it depends on have run: one of them may have
    loaded torch in this process, after which forking is no longer safe. ``stage``: the stage's name in its console
    line (``None``: no line); its output goes to ``stage_log`` unless ``verbose``; ``preload``, as
    :func:`.executors.make_executor` takes it."""

    def __init__(
        self,
        pipeline,
        *,
        preload: tuple[str, ...] = (),
        stage: str | None = None,
        stage_log: Path | None = None,
        verbose: bool = False,
        **kwargs,
    ):
        super().__init__(pipeline, start_method="forkserver", **kwargs)
        self.preload = tuple(preload)
        self.stage = stage
        self.stage_log = Path(stage_log) if stage_log and not verbose else None
        self.transient = False

    def run(self):
        """Run the stages this one depends on, choose the start method, then run this stage."""
        if self.depends is not None and not self.depends._launched:
            self.depends.run()
        self.start_method = local_start_method()
        if self.preload and self.workers > 1:
            if self.start_method == "fork":
                for module in self.preload:
                    importlib.import_module(module)
            else:
                import multiprocess

                multiprocess.set_forkserver_preload(list(self.preload))
        if self.stage is None:
            return super().run()
        report = StageReport(self.stage, self.stage_log)
        earlier = self.tasks - len(self.get_incomplete_ranks())
        try:
            if self.stage_log is None:
                stats = super().run()
            else:
                with stage_output(self.stage_log) as stream:
                    self.transient = stream.transient  # the workers show their bars in place too
                    stats = super().run()
        except BaseException as error:
            report.failed(error)
            raise
        report.done(counts_line(stats), earlier, self.tasks)
        return stats

    def _run_for_rank(self, rank: int, local_rank: int = 0, node_rank: int = -1):
        # in a worker started by the fork server, the output still goes to the console until it is sent to the log
        if self.stage_log is not None:
            install_for_process(self.stage_log, self.transient)
        return super()._run_for_rank(rank, local_rank, node_rank)
