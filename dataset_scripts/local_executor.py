"""datatrove's local executor, choosing how its workers start when its pool starts (not when it is built)."""

from __future__ import annotations

import importlib

from datatrove.executor import LocalPipelineExecutor

from wikiformer_kit.dataset_scripts.executors import local_start_method


class StartMethodAtRun(LocalPipelineExecutor):
    """A ``LocalPipelineExecutor`` whose workers are forked or started by a fork server
    (:func:`.executors.local_start_method`) as decided once the stages it depends on have run: one of them may have
    loaded torch in this process, after which forking is no longer safe.

    Args:
        pipeline: the datatrove steps.
        preload: modules the workers need, imported once: by this process when they are forked, else by the fork
            server.
        kwargs: as ``LocalPipelineExecutor`` (its ``start_method`` is decided here).
    """

    def __init__(self, pipeline, *, preload: tuple[str, ...] = (), **kwargs):
        super().__init__(pipeline, start_method="forkserver", **kwargs)
        self.preload = tuple(preload)

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
        return super().run()
