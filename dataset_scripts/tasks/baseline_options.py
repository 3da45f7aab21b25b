"""The PROP and HARP options and their command-line flags, kept apart from the samplers so that a command line
(``python -m dataset_scripts.build --help``) is built without loading them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

BACKGROUNDS = ("cf", "df")
QUERY_LENGTHS = ("poisson", "normal")


@dataclass(frozen=True)
class PropOptions:
    """The ROP sampling settings (defaults: the paper's, section 4.4.2).

    Args:
        poisson_lambda: mean of the word-set length distribution.
        pairs_per_document: word-set pairs drawn per document.
        min_count: vocabulary cut (words occurring fewer times in the corpus are never drawn).
        subsample: word2vec's subsampling threshold t (0 = off).
        background: the collection model: ``"cf"`` (word counts, the paper) or ``"df"`` (document frequencies,
            the original code).
        stopwords: a stopword file or vendored list names (``"nltk+inquery"``, see
            :func:`.language_model.load_stopwords`); ``""`` = the vendored INQUERY list (the paper).
    """

    poisson_lambda: float = 3.0
    pairs_per_document: int = 5
    min_count: int = 50
    subsample: float = 1e-5
    background: str = "cf"
    stopwords: str = ""

    def __post_init__(self) -> None:
        if self.background not in BACKGROUNDS:
            raise ValueError(f"background must be one of {BACKGROUNDS}, got {self.background!r}")
        if self.poisson_lambda <= 0 or self.pairs_per_document < 1 or self.min_count < 1 or self.subsample < 0:
            raise ValueError(f"invalid PROP options: {self}")

    @classmethod
    def original(cls, **changes: Any) -> PropOptions:
        """The original code's values (Albert-Ma/PROP): min count 10, t = 1e-4, 10 pairs, document frequencies,
        NLTK English + INQUERY stopwords."""
        values = {"pairs_per_document": 10, "min_count": 10, "subsample": 1e-4, "background": "df"}
        return cls(**{**values, "stopwords": "nltk+inquery", **changes})

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (build parameters, dataset card)."""
        return asdict(self)


@dataclass(frozen=True)
class HarpOptions:
    """HARP's sampling settings (defaults: the paper's where it says, the original code's where it is silent).

    Args:
        query_length: ``"poisson"`` (the paper: l ~ Poisson(lambda), l > 0) or ``"normal"`` (the original code:
            round(N(3, 1)), > 0) for the number of words sampled into a pseudo query.
        poisson_lambda: the Poisson mean (the paper: 3).
        passage_max_tokens: destination passages (and ACM's query) are cut to this many word pieces of the
            importance model's tokenizer (the original code's 250).
        qdm_max_pairs: QDM rows per distinct anchor text at most (the original code's 10).
        importance_model: the BERT checkpoint whose last-layer attention weighs words (the paper: BERT-base);
            ``embedded:minilm`` = the embedded all-MiniLM-L6-v2.
        importance_device: ``cpu``, ``cuda``...; empty = CUDA when available.
        importance_batch_size: texts per attention forward pass.
        stopwords: a stopword file; ``""`` = the vendored INQUERY list.
    """

    query_length: str = "poisson"
    poisson_lambda: float = 3.0
    passage_max_tokens: int = 250
    qdm_max_pairs: int = 10
    importance_model: str = "embedded:minilm"
    importance_device: str = ""
    importance_batch_size: int = 32
    stopwords: str = ""

    def __post_init__(self) -> None:
        if self.query_length not in QUERY_LENGTHS:
            raise ValueError(f"query_length must be one of {QUERY_LENGTHS}, got {self.query_length!r}")
        if self.poisson_lambda <= 0 or self.passage_max_tokens < 8 or self.qdm_max_pairs < 1:
            raise ValueError(f"invalid HARP options: {self}")

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (build parameters, dataset cards)."""
        return asdict(self)


def add_arguments(parser) -> None:
    """The build's PROP and HARP options (``python -m dataset_scripts.build --help``)."""
    prop, harp = PropOptions(), HarpOptions()
    group = parser.add_argument_group("PROP (--tasks prop)")
    group.add_argument(
        "--prop-variant",
        choices=("paper", "original"),
        default="paper",
        help="the paper's sampling values, or the original code's (min count 10, t=1e-4, 10 pairs, df, "
        "NLTK+INQUERY stopwords)",
    )
    group.add_argument("--prop-pairs", type=int, default=None, help=f"pairs per document ({prop.pairs_per_document})")
    group.add_argument("--prop-min-count", type=int, default=None, help=f"vocabulary cut ({prop.min_count})")
    group.add_argument("--prop-subsample", type=float, default=None, help=f"subsampling threshold ({prop.subsample})")
    group.add_argument("--prop-background", choices=("cf", "df"), default=None, help="collection model (cf)")
    group.add_argument(
        "--stopwords",
        default=None,
        help="stopword file, or vendored list names joined by '+' (inquery, nltk), for PROP and HARP "
        "(default: inquery; PROP's --prop-variant original: nltk+inquery)",
    )
    group = parser.add_argument_group("HARP (--tasks harp, or rqp,qdm,rdp,acm)")
    group.add_argument("--harp-query-length", choices=("poisson", "normal"), default=harp.query_length)
    group.add_argument(
        "--harp-importance-model",
        default=harp.importance_model,
        help="BERT checkpoint whose last-layer attention weighs words (paper: bert-base-uncased)",
    )
    group.add_argument("--harp-device", default="", help="cpu, cuda, ... (default: CUDA when available)")
    group.add_argument("--harp-batch-size", type=int, default=harp.importance_batch_size)
    group.add_argument("--harp-passage-max-tokens", type=int, default=harp.passage_max_tokens)
    group.add_argument("--harp-qdm-max-pairs", type=int, default=harp.qdm_max_pairs)
    group.add_argument("--harp-attention-cache", default=None,
                       help="SQLite attention cache to share between builds (default: OUT/.build/harp/attention.sqlite)")  # fmt: skip


def options_from_args(args) -> tuple[PropOptions, HarpOptions, str | None]:
    """The PROP and HARP options the command line asks for, and the attention cache to use."""
    changes = {
        "pairs_per_document": args.prop_pairs,
        "min_count": args.prop_min_count,
        "subsample": args.prop_subsample,
        "background": args.prop_background,
        "stopwords": args.stopwords,
    }
    changes = {key: value for key, value in changes.items() if value is not None}
    prop = PropOptions.original(**changes) if args.prop_variant == "original" else PropOptions(**changes)
    harp = HarpOptions(
        query_length=args.harp_query_length,
        passage_max_tokens=args.harp_passage_max_tokens,
        qdm_max_pairs=args.harp_qdm_max_pairs,
        importance_model=args.harp_importance_model,
        importance_device=args.harp_device,
        importance_batch_size=args.harp_batch_size,
        stopwords=args.stopwords or "",
    )
    return prop, harp, args.harp_attention_cache
