"""Where the checkpoint and the fusion are chosen: the WIKIR validation split, or ``--eval-collection``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wikiformer_kit.release.options import ReleaseOptions

MIN_SELECTION_QUERIES = 5
"""A WIKIR validation split with fewer judged queries chooses nothing (the eval collection does, labelled dev)."""
CHOSEN = "the checkpoint and the fusion"
"""What the release chooses on the dev queries."""


@dataclass(frozen=True)
class Selection:
    """The collection whose queries choose the checkpoint and the fusion (``spec``), and whether it is WIKIR's
    validation split."""

    spec: str
    on_wikir: bool

    def chose_on(self, spec: str) -> bool:
        """Whether the checkpoint and the fusion were chosen on this collection's queries (else a test collection)."""
        return Path(spec).resolve() == Path(self.spec).resolve()

    def role(self, spec: str, queries: int) -> str:
        """The console's label of a collection's figures."""
        if self.chose_on(spec):
            return f"dev: {CHOSEN} were chosen on these {queries} queries (not a test result)"
        return f"test: nothing was chosen on these {queries} queries"


def selection(options: ReleaseOptions, wikir_dir: Path, announce: bool = True) -> Selection:
    """The WIKIR validation split where it has ``MIN_SELECTION_QUERIES`` judged queries (and
    ``--select-on-eval-collection`` is not given), else ``--eval-collection`` (said on the console if ``announce``)."""
    validation = wikir_dir / "validation"
    topics = validation / "topics.tsv"
    queries = (
        sum(1 for line in topics.read_text(encoding="utf-8").splitlines() if line.strip()) if topics.exists() else 0
    )
    if not options.select_on_eval_collection:
        if queries >= MIN_SELECTION_QUERIES:
            return Selection(str(validation), True)
        if announce:
            print(
                f"[select] the WIKIR validation split has {queries} queries (fewer than {MIN_SELECTION_QUERIES}): the "
                f"checkpoint and the fusion are chosen on {options.eval_collection}, whose figures are dev figures",
                flush=True,
            )
    return Selection(options.eval_collection, False)
