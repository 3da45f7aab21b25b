"""The options of a corpus build (what it reads and how), kept apart from the build so that callers that only
pass them on (the task build, WIKIR) do not load the readers."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.sources import STREAMS_PER_SHARD


@dataclass(frozen=True)
class CorpusOptions:
    """What the corpus build reads and how: ``fmt`` a format name or ``auto`` (sniff each file), ``limit`` the
    articles read from each shard at most, ``read_ahead`` whether each task reads ahead in a process of its own
    (:func:`.reading.resolve_read_ahead`), ``streams_per_shard`` the bz2 streams of a multistream dump per task."""

    fmt: str = "auto"
    reader: ReaderOptions = ReaderOptions()
    limit: int | None = None
    read_ahead: str = "auto"
    streams_per_shard: int = STREAMS_PER_SHARD

    def __post_init__(self) -> None:
        if self.streams_per_shard < 1 or (self.limit is not None and self.limit < 0):
            raise ValueError("streams_per_shard must be >= 1 and limit >= 0")

    def to_dict(self) -> dict[str, Any]:
        """The options as plain JSON values (recorded in ``build_stats.json``)."""
        return asdict(self)
