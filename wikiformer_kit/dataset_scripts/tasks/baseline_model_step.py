"""Stage 2 of the baselines (:mod:`.baseline_steps`), one task: the PROP vocabulary (counts merged, ``min_count``
cut) and the QDM plan (ambiguous anchor texts, their destinations after redirects, the rank cut-off of their
``qdm_max_pairs`` rows; occurrence ranks are hashed for the ambiguous texts only)."""

from __future__ import annotations

import json
from functools import partial

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.dataset_scripts.tasks.baseline_files import HARP_TASKS, PROP_TASKS, BaselineStep, join_sizes
from wikiformer_kit.dataset_scripts.tasks.build_layout import write_json, write_missing
from wikiformer_kit.dataset_scripts.tasks.free_memory import release_freed_memory
from wikiformer_kit.dataset_scripts.tasks.qdm_plan import build_plan_bucket
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import ArticleIndex
from wikiformer_kit.dataset_scripts.tasks.see_also_join import TitleJoin, build_bucket


class CorpusModelStep(BaselineStep):
    """Stage 2 of the baselines (one task): the PROP vocabulary and the QDM plan (see the module)."""

    name = "PROP vocabulary + QDM plan"

    def process(self, rank: int, world_size: int) -> None:
        """Merge the unit statistics (rank 0 only)."""
        if rank == 0:
            if self.wants(PROP_TASKS):
                self._vocabulary()
            if self.wants(HARP_TASKS):
                self._qdm_plan()

    def _vocabulary(self) -> None:
        documents = words_total = 0
        for unit in self.units:
            marker = json.loads(self.layout.marker("baseline-stats", unit.number).read_text("utf-8"))
            documents += marker["prop"]["documents"]
            words_total += marker["prop"]["words"]
        counts = pa.concat_tables([pq.read_table(self.files.counts(u.number)) for u in self.units])
        merged = counts.group_by("word").aggregate([("cf", "sum"), ("df", "sum")])
        merged = merged.rename_columns(["word", "cf", "df"]).sort_by("word")
        merged = merged.filter(pa.compute.greater_equal(merged.column("cf"), self.prop.min_count))
        atomic_write(self.files.vocabulary, lambda tmp: pq.write_table(merged, tmp))
        if self.prop.stem:
            parts = pa.concat_tables([pq.read_table(self.files.surfaces(u.number)) for u in self.units])
            forms = parts.group_by(["stem", "word"]).aggregate([("count", "sum")])
            forms = forms.rename_columns(["stem", "word", "count"]).sort_by(
                [("stem", "ascending"), ("word", "ascending")]
            )
            forms = forms.filter(pc.is_in(forms.column("stem"), value_set=merged.column("word")))
            atomic_write(self.files.all_surfaces, lambda tmp: pq.write_table(forms, tmp))
        write_json({"documents": documents, "words": words_total}, self.files.totals)

    def _qdm_plan(self) -> None:
        """The title join's buckets (unless LTM's stage built them), then the QDM plan's, one bucket at a time.

        This stage runs in the build's own process: what the freed memory of earlier steps and buckets leaves in
        the allocators is given back before each bucket, so the process holds one bucket's working set at a time.
        """
        join_buckets, plan_buckets = join_sizes(self.units)
        release_freed_memory()
        titles = [self.layout.title_parts(u.number, join_buckets) for u in self.units]
        redirects = [self.layout.redirect_parts(n, join_buckets) for n in range(len(self.redirect_files))]
        bucket_files = [self.layout.bucket_file(b, join_buckets) for b in range(join_buckets)]
        for bucket, path in enumerate(bucket_files):
            if write_missing(path, lambda tmp, b=bucket: build_bucket(b, join_buckets, titles, redirects, tmp)):
                release_freed_memory()
        join = TitleJoin(bucket_files, kept=0)  # the plan resolves each distinct target once: nothing to keep
        eligible = ArticleIndex([self.files.passages(u.number) for u in self.units]).eligible
        parts = [self.files.qdm_parts(u.number, plan_buckets) for u in self.units]
        for bucket in range(plan_buckets):
            plan = partial(
                build_plan_bucket, bucket, plan_buckets, parts, join.resolve, eligible, self.harp.qdm_max_pairs
            )
            if write_missing(self.files.qdm_bucket(bucket, plan_buckets), plan):
                release_freed_memory()
