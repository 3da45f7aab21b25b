"""What the three baseline stages (:mod:`.baseline_steps`) share: their tasks, their work files under the build's
``.build/`` and the base of their steps."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import feather

from wikiformer_kit.dataset_scripts.tasks.anchors import HarpOptions
from wikiformer_kit.dataset_scripts.tasks.build_layout import BuildLayout, UnitStep
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.prop import PropOptions
from wikiformer_kit.dataset_scripts.tasks.qdm_plan import plan_bucket_count
from wikiformer_kit.dataset_scripts.tasks.see_also_join import bucket_count

PROP_TASKS = ("prop",)
HARP_TASKS = ("rqp", "qdm", "rdp", "acm")
BASELINE_TASKS = PROP_TASKS + HARP_TASKS
LINKS_SCHEMA = pa.schema(
    [
        ("article", pa.int32()),  # position in the unit
        ("article_id", pa.string()),
        ("title", pa.string()),
        ("section", pa.int32()),
        ("sentence", pa.string()),
        ("anchor", pa.string()),  # stripped
        ("start", pa.int32()),  # of the anchor in the sentence, -1: not found
        ("target", pa.string()),
        ("key", pa.string()),  # qdm.anchor_key
    ]
)


class BaselineFiles:
    """Where the baseline stages keep their work files, under the build's ``.build/``."""

    def __init__(self, layout: BuildLayout):
        self.layout = layout

    def counts(self, unit: int) -> Path:
        """A unit's PROP word counts (its content words, sorted: the ids of :meth:`documents` index them)."""
        return self.layout.work / "prop" / "counts" / f"{unit:05d}.parquet"

    def documents(self, unit: int) -> Path:
        """A unit's PROP documents: id, title, the cut ``document``, skip reason, content words as ids."""
        return self.layout.work / "prop" / "documents" / f"{unit:05d}.arrow"

    def surfaces(self, unit: int) -> Path:
        """With stemming, a unit's content words, their stems and counts (the words a drawn stem is shown as)."""
        return self.layout.work / "prop" / "surfaces" / f"{unit:05d}.parquet"

    @property
    def all_surfaces(self) -> Path:
        """With stemming, the corpus's words of each stem of the vocabulary and their counts (merged)."""
        return self.layout.work / "prop" / "surfaces.parquet"

    @property
    def vocabulary(self) -> Path:
        """The merged PROP vocabulary (words with ``cf >= min_count``)."""
        return self.layout.work / "prop" / "vocabulary.parquet"

    @property
    def totals(self) -> Path:
        """Documents and words of the whole corpus (JSON)."""
        return self.layout.work / "prop" / "totals.json"

    def passages(self, unit: int) -> Path:
        """A unit's HARP passage index shard (Arrow IPC, the See also index schema)."""
        return self.layout.work / "harp" / "passages" / f"{unit:05d}.arrow"

    def links(self, unit: int) -> Path:
        """A unit's links as HARP reads them (Arrow IPC, one row per link, article order): the rows stage builds
        its sentences from them without reading the corpus; the QDM plan reads their anchor keys."""
        return self.layout.work / "harp" / "links" / f"{unit:05d}.arrow"

    def qdm_parts(self, unit: int, buckets: int) -> Path:
        """A unit's links found in their sentence, ``(key, target, rank)`` cut into the QDM plan's buckets."""
        return self.layout.work / "harp" / f"qdm-plan-{buckets}" / "links" / f"{unit:05d}.arrow"

    def qdm_bucket(self, bucket: int, buckets: int) -> Path:
        """One bucket of the QDM plan (SQLite: ambiguous anchor text, destination rows, rank cut-off)."""
        return self.layout.work / "harp" / f"qdm-plan-{buckets}" / "buckets" / f"{bucket:05d}.sqlite"

    @property
    def attention_cache(self) -> Path:
        """The attention cache (SQLite)."""
        return self.layout.work / "harp" / "attention.sqlite"


def write_work_table(table: pa.Table, path) -> None:
    """A work file read back whole by a later stage: Arrow IPC with zstd (Parquet's decoding cost about as much as
    the reading of the corpus it replaces; zstd is a third smaller than LZ4 at the same cost here)."""
    feather.write_feather(table, str(path), compression="zstd")


class BaselineStep(UnitStep):
    """A baseline stage over the build's units for the requested baseline ``tasks``."""

    type = "Baselines"

    def __init__(
        self,
        root,
        units: Sequence[Unit],
        tasks,
        redirect_files,
        options: TaskOptions,
        prop: PropOptions,
        harp: HarpOptions,
    ):
        super().__init__(root, units)
        self.tasks = tuple(tasks)
        self.redirect_files, self.options, self.prop, self.harp = [Path(p) for p in redirect_files], options, prop, harp
        self.files = BaselineFiles(self.layout)

    def wants(self, group: Sequence[str]) -> bool:
        """Whether a task of ``group`` (:data:`PROP_TASKS`, :data:`HARP_TASKS`) is requested."""
        return any(task in group for task in self.tasks)


def join_sizes(units: Sequence[Unit]) -> tuple[int, int]:
    """The buckets of the title join (:func:`.see_also_join.bucket_count`, shared with LTM) and of the QDM plan
    (:func:`.qdm_plan.plan_bucket_count`, by the corpus's links: from the Parquet footers, no data read)."""
    links = 0
    for file in dict.fromkeys(unit.file for unit in units):
        metadata = pq.read_metadata(file)
        # the column found by each chunk's path: FileMetaData.schema would keep ~1.5 MiB a file in this process
        for group in map(metadata.row_group, range(metadata.num_row_groups)):
            chunks = map(group.column, range(group.num_columns))
            links += sum(chunk.num_values for chunk in chunks if chunk.path_in_schema == LINK_COLUMN)
    return bucket_count(sum(unit.stop - unit.start for unit in units)), plan_bucket_count(links)


LINK_COLUMN = "links.list.element.target"
