"""Build options shared by the four task samplers, with the defaults the dataset cards document."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

SRR_VARIANTS = ("paper", "original")
POSITIVE_MODES = ("sample", "all")


def check_choice(name: str, value: Any, allowed: tuple) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``allowed`` (the message names ``name``)."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


@dataclass(frozen=True)
class TaskOptions:
    """Thresholds and sampling choices of the task samplers.

    Args:
        seed: base seed; every article (and every LTM edge) gets its own RNG derived from the seed, the task and
            the article id, so results do not depend on sharding or on the number of processes.
        min_words: a text (section, abstract, article) counts as "having text" only with at least this many
            whitespace-separated words (counted before truncation); shorter ones are never a positive or a
            negative. The original code's "long section" rule was more than 20 tokens.
        max_words: texts are cut to this many words (whitespace kept) so that rows stay compact; the paper
            truncates documents to 480 tokens anyway. 0 keeps whole texts.
        max_negatives: at most this many negatives per row (a seeded random subset, kept in document order);
            the trainer samples ``group_size - 1`` of them per epoch.
        positives: ``"sample"`` (the paper: one random child d_i per non-leaf node F for SRR, one random node
            per article for RWI) or ``"all"`` (one row per child / per node: every draw the paper's sampler
            could make, each once).
        srr_variant: ``"paper"`` (siblings as negatives) or ``"original"`` (the original code's rule: the first
            long section at the two deepest levels vs all other long sections of the article).
        ltm_max_words: word budget of LTM texts (the paper uses 255 tokens per side for LTM).
        ltm_negatives: random negative articles per LTM row.
        keep_end_matter: keep end-matter sections (References, External links, See also, ...: see
            :mod:`dataset_scripts.corpus.end_matter`) as task nodes; by default they are left out and counted.
    """

    seed: int = 42
    min_words: int = 20
    max_words: int = 512
    max_negatives: int = 15
    positives: str = "sample"
    srr_variant: str = "paper"
    ltm_max_words: int = 256
    ltm_negatives: int = 7
    keep_end_matter: bool = False

    def __post_init__(self) -> None:
        check_choice("srr_variant", self.srr_variant, SRR_VARIANTS)
        check_choice("positives", self.positives, POSITIVE_MODES)
        for name in ("min_words", "max_words", "max_negatives", "ltm_max_words", "ltm_negatives"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.max_negatives == 0 or self.ltm_negatives == 0:
            raise ValueError("a group needs at least one negative: max_negatives and ltm_negatives must be >= 1")

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (for the build parameters file and the dataset cards)."""
        return asdict(self)
