"""The join stage of the task build: each bucket of the See also title join, built on disk."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from wikiformer_kit.dataset_scripts.tasks.build_layout import UnitStep, write_missing
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit
from wikiformer_kit.dataset_scripts.tasks.see_also_join import build_bucket


class SeeAlsoJoinStep(UnitStep):
    """The join stage: build the buckets of the See also title join (``range(rank, buckets, world_size)``) from
    the parts stage 1 wrote (for all ``units`` and ``redirect_count`` redirect shards); a bucket whose file exists
    is done."""

    name = "See also title join"

    def __init__(self, root: Path, units: Sequence[Unit], redirect_count: int, buckets: int):
        super().__init__(root, units)
        self.redirect_count, self.buckets = redirect_count, buckets

    def process(self, rank: int, world_size: int) -> None:
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
            if write_missing(path, lambda tmp, bucket=bucket: build_bucket(bucket, buckets, titles, redirects, tmp)):
                self.stat_update("buckets", value=1)
