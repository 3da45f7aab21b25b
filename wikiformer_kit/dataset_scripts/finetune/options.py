"""What a mining run is: the first stage, the rank window negatives come from, how many, and the filter."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class MiningOptions:
    """The options of one mining run (recorded with the output; a resumed run must give the same ones).

    Args:
        first_stage: where candidates come from: ``bm25`` (bm25s over the collection's documents), ``dense`` (the
            kit's bi-encoder), ``given`` (the collection's first run), the name of one of its runs, or a run file
            (TREC ``qid Q0 docid rank score tag`` or MS MARCO ``qid docid rank``).
        depth: candidates retrieved per query.
        min_rank: the best rank a negative may have (1-based; ``10`` skips the nine top candidates, where unjudged
            relevant documents are likeliest).
        max_rank: the worst rank a negative may have (default: ``depth``).
        num_negatives: negatives kept per group (at most; fewer when the window holds fewer).
        sampling: ``random`` (a seeded draw from the window) or ``top`` (the best-ranked of the window).
        seed: the seed of the random draw; with the query and positive ids it fixes every group.
        k1, b: BM25's (bm25s defaults 1.5 and 0.75).
        stemmer, stopwords: BM25's Snowball language and stopwords (a bm25s language or a file), or None.
        filter_model: a cross-encoder (a folder or Hub id) that scores the positive and each candidate; None for no
            false-negative filter.
        absolute_margin: a candidate is dropped unless ``positive score - candidate score >= absolute_margin``.
        relative_margin: a candidate is dropped unless its score is at most
            ``positive score - |positive score| * relative_margin``.
        filter_max_length: pair length in tokens for the filter (default: the model's).
        shard_queries: queries per output shard (the unit a resumed run skips when it is written).
    """

    first_stage: str = "bm25"
    depth: int = 100
    min_rank: int = 1
    max_rank: int | None = None
    num_negatives: int = 15
    sampling: str = "random"
    seed: int = 42
    k1: float = 1.5
    b: float = 0.75
    stemmer: str | None = "english"
    stopwords: str | None = "en"
    filter_model: str | None = None
    absolute_margin: float | None = None
    relative_margin: float | None = None
    filter_max_length: int | None = None
    shard_queries: int = 1000

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise ValueError(f"depth must be >= 1, got {self.depth}")
        if not 1 <= self.min_rank <= self.last_rank <= self.depth:
            raise ValueError(
                f"the rank window {self.min_rank}-{self.last_rank} must lie within 1-{self.depth} (the depth)"
            )
        if self.num_negatives < 1:
            raise ValueError(f"num_negatives must be >= 1, got {self.num_negatives}")
        if self.sampling not in ("random", "top"):
            raise ValueError(f"sampling must be random or top, got {self.sampling!r}")
        if self.shard_queries < 1:
            raise ValueError(f"shard_queries must be >= 1, got {self.shard_queries}")
        margins = (self.absolute_margin, self.relative_margin)
        if self.filter_model and all(m is None for m in margins):
            raise ValueError("a filter model needs --absolute-margin or --relative-margin (how close is too close)")
        if not self.filter_model and any(m is not None for m in margins):
            raise ValueError("--absolute-margin and --relative-margin need --filter-model (the cross-encoder)")

    @property
    def last_rank(self) -> int:
        """The worst rank a negative may have: ``max_rank``, else ``depth``."""
        return self.max_rank if self.max_rank is not None else self.depth

    def to_dict(self) -> dict:
        """The options as a JSON-ready dict (the resume check and the card)."""
        return asdict(self)
