"""The join stage of the task build: each bucket of the See also title join, built on disk."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from datatrove.pipeline.base import PipelineStep

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write, clear_partial
from wikiformer_kit.dataset_scripts.tasks.build_layout import (
    BuildLayout,
)
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit
from wikiformer_kit.dataset_scripts.tasks.see_also_join import (
    build_bucket,
)


class SeeAlsoJoinStep(PipelineStep):
    """The join stage: build the buckets of the See also title join (``range(rank, buckets, world_size)``) from
    the parts stage 1 wrote; a bucket whose file exists is done.

    Args:
        root: the build's output folder (stage 1 must be complete).
        units: all units of the corpus.
        redirect_count: the number of corpus redirect shards.
        buckets: the number of buckets.
    """

    name = "See also title join"
    type = "Wikiformer"

    def __init__(self, root: Path, units: Sequence[Unit], redirect_count: int, buckets: int):
        super().__init__()
        self.layout, self.units = BuildLayout(Path(root)), list(units)
        self.redirect_count, self.buckets = redirect_count, buckets

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        """Build this rank's buckets that are not built yet."""
        layout, buckets = self.layout, self.buckets
        titles = [layout.title_parts(u.number, buckets) for u in self.units]
        redirects = [layout.redirect_parts(n, buckets) for n in range(self.redirect_count)]
        missing = [p for p in titles + redirects if not p.exists()]
        if missing:
            raise FileNotFoundError(
                f"{len(missing)} part files of the See also join are missing, e.g. {missing[0]}: stage 1 of this "
                f"build was run by a version without the join; delete {layout.work / 'logs'} and rerun the same "
                "command (finished units are not sampled again)"
            )
        for bucket in range(rank, buckets, world_size):
            path = layout.bucket_file(bucket, buckets)
            if path.exists():
                continue
            clear_partial([path])
            atomic_write(path, lambda tmp, bucket=bucket: build_bucket(bucket, buckets, titles, redirects, tmp))
            self.stat_update("buckets", value=1)
        if data:
            yield from data
