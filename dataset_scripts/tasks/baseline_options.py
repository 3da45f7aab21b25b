"""The PROP and HARP options and their command-line flags, kept apart from the samplers so that a command line
(``python -m dataset_scripts.build --help``) is built without loading them."""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass
from typing import Any

BACKGROUNDS = ("cf", "df")
QUERY_LENGTHS = ("poisson", "normal")
TIES = ("second", "drop")
PROP_VARIANTS = ("paper", "original")
HEAD_COMBINATIONS = ("sum", "mean")
ANCHOR_IMPORTANCE = ("mean", "sum")
HARP_VARIANTS = ("default", "paper", "original")


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
        pairs_kept: of the ``pairs_per_document`` pairs generated, keep this many drawn at random (0 = all; the
            original code generates 10 and trains on 5: ``--rop_num_per_doc 5``). Only the kept pairs' sets are
            drawn: the same distribution as drawing all and keeping some, at a fraction of the cost.
        corpus_sample: draw the sets from the document's words of V plus this many words of V sampled by the
            collection model, not in the document (the original code's K = 500, "for computational efficiency";
            when the document has K words or more, its word count + 100 are sampled), P(w|D) renormalised over
            them; 0 = the whole vocabulary (the paper).
        short_document_words: a document under this many words (whitespace-separated, of the cut ``document``)
            is skipped with probability ``short_document_skip`` (the original code: 100 word pieces, 80%; 0 = never).
        short_document_skip: see ``short_document_words``.
        ties: a pair of equally likely sets: ``"second"`` makes S2 the positive (the paper's Algorithm 1 and the
            code: ``if score1 > score2 ... else``), ``"drop"`` leaves the pair out.
        stem: count, score and draw Porter stems instead of words (the original code's ``--stem``: the document
            and collection models over stems), each drawn stem shown as one of its corpus words, drawn in
            proportion to log(1 + its count) (the code's ``stem2pos``); off in the paper's values. Only
            for a language the stemmer knows (:data:`.language_model.STEMMERS`; the build turns it off, with a
            warning, for a corpus in another language).
    """

    poisson_lambda: float = 3.0
    pairs_per_document: int = 5
    min_count: int = 50
    subsample: float = 1e-5
    background: str = "cf"
    stopwords: str = ""
    pairs_kept: int = 0
    corpus_sample: int = 0
    short_document_words: int = 100
    short_document_skip: float = 0.8
    ties: str = "second"
    stem: bool = False

    def __post_init__(self) -> None:
        if self.background not in BACKGROUNDS:
            raise ValueError(f"background must be one of {BACKGROUNDS}, got {self.background!r}")
        if self.ties not in TIES:
            raise ValueError(f"ties must be one of {TIES}, got {self.ties!r}")
        if self.poisson_lambda <= 0 or self.pairs_per_document < 1 or self.min_count < 1 or self.subsample < 0:
            raise ValueError(f"invalid PROP options: {self}")
        if not 0 <= self.pairs_kept <= self.pairs_per_document or self.corpus_sample < 0:
            raise ValueError(f"invalid PROP options (pairs_kept <= pairs_per_document, corpus_sample >= 0): {self}")
        if self.short_document_words < 0 or not 0 <= self.short_document_skip <= 1:
            raise ValueError(f"invalid PROP options (short documents): {self}")

    @classmethod
    def original(cls, **changes: Any) -> PropOptions:
        """The original code's values (Albert-Ma/PROP): min count 10, t = 1e-4, 10 pairs generated and 5 kept,
        document frequencies, draws from the document's words plus 500 sampled corpus words, NLTK English +
        INQUERY stopwords, Porter stems (short documents and ties as the default, which is the code's)."""
        values = {
            "pairs_per_document": 10,
            "pairs_kept": 5,
            "min_count": 10,
            "subsample": 1e-4,
            "background": "df",
            "corpus_sample": 500,
            "stem": True,
        }
        return cls(**{**values, "stopwords": "nltk+inquery", **changes})

    @classmethod
    def variant(cls, name: str, **changes: Any) -> PropOptions:
        """All of a variant's choices at once (``paper``: the defaults; ``original``: :meth:`original`), then
        ``changes`` on top."""
        if name not in PROP_VARIANTS:
            raise ValueError(f"PROP variant must be one of {PROP_VARIANTS}, got {name!r}")
        return cls.original(**changes) if name == "original" else cls(**changes)

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
        heads: how the attention heads combine: ``"sum"`` (the original code, the default: eq. 1's mean makes the softmax
            over words almost uniform) or ``"mean"`` (eq. 1 as written).
        anchor_importance: RDP's importance of an anchor: the [CLS] attention to its word pieces averaged
            (``"mean"``, the original code's ``cal_weight_of_anchor(..., 'avg')``, the default) or summed (``"sum"``,
            eq. 10 read over the anchor's words: the longer anchor wins).
    """

    query_length: str = "poisson"
    poisson_lambda: float = 3.0
    passage_max_tokens: int = 250
    qdm_max_pairs: int = 10
    importance_model: str = "embedded:minilm"
    importance_device: str = ""
    importance_batch_size: int = 32
    stopwords: str = ""
    heads: str = "sum"
    anchor_importance: str = "mean"

    def __post_init__(self) -> None:
        if self.query_length not in QUERY_LENGTHS:
            raise ValueError(f"query_length must be one of {QUERY_LENGTHS}, got {self.query_length!r}")
        if self.heads not in HEAD_COMBINATIONS:
            raise ValueError(f"heads must be one of {HEAD_COMBINATIONS}, got {self.heads!r}")
        if self.anchor_importance not in ANCHOR_IMPORTANCE:
            raise ValueError(f"anchor_importance must be one of {ANCHOR_IMPORTANCE}, got {self.anchor_importance!r}")
        if self.poisson_lambda <= 0 or self.passage_max_tokens < 8 or self.qdm_max_pairs < 1:
            raise ValueError(f"invalid HARP options: {self}")

    @classmethod
    def variant(cls, name: str, **changes) -> HarpOptions:
        """All of a variant's choices at once, then ``changes`` on top: ``default`` (the authors' code where the
        paper is silent or its literal reading defeats the method), ``paper`` (eq. 1's head mean, eq. 10 summed
        over the anchor's words, l ~ Poisson(3)) or ``original`` (the code: heads summed, pieces averaged,
        N(3, 1) query lengths)."""
        if name not in HARP_VARIANTS:
            raise ValueError(f"HARP variant must be one of {HARP_VARIANTS}, got {name!r}")
        values = {
            "default": {},
            "paper": {"heads": "mean", "anchor_importance": "sum", "query_length": "poisson"},
            "original": {"heads": "sum", "anchor_importance": "mean", "query_length": "normal"},
        }[name]
        return cls(**{**values, **changes})

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
        help="all of PROP's choices at once: the paper's sampling values, or the original code's (min count 10, "
        "t=1e-4, 10 pairs generated and 5 kept, df, the document's words + 500 sampled corpus words, NLTK+INQUERY "
        "stopwords, Porter stems); the single options below override it",
    )
    group.add_argument("--prop-pairs", type=int, default=None, help=f"pairs per document ({prop.pairs_per_document})")
    group.add_argument("--prop-pairs-kept", type=int, default=None,
                       help="of the pairs generated, keep this many at random (0 = all; original: 5)")  # fmt: skip
    group.add_argument("--prop-corpus-sample", type=int, default=None,
                       help="draw from the document's words + this many sampled corpus words (0 = all of V; original: 500)")  # fmt: skip
    group.add_argument("--prop-short-document-words", type=int, default=None,
                       help=f"skip documents under this many words 80%% of the time ({prop.short_document_words}; 0 = never)")  # fmt: skip
    group.add_argument("--prop-ties", choices=("second", "drop"), default=None,
                       help=f"equally likely sets: S2 is the positive, or drop the pair ({prop.ties})")  # fmt: skip
    group.add_argument("--prop-min-count", type=int, default=None, help=f"vocabulary cut ({prop.min_count})")
    group.add_argument("--prop-subsample", type=float, default=None, help=f"subsampling threshold ({prop.subsample})")
    group.add_argument("--prop-background", choices=("cf", "df"), default=None, help="collection model (cf)")
    group.add_argument("--prop-stem", action=argparse.BooleanOptionalAction, default=None,
                       help="count and draw Porter stems, each shown as one of its words (English only; original: on)")  # fmt: skip
    group.add_argument(
        "--stopwords",
        default=None,
        help="stopword file, or vendored list names joined by '+' (inquery, nltk, zh, ja), for PROP and HARP "
        "(default: inquery, zh or ja for a Chinese or Japanese corpus; PROP's --prop-variant original: nltk+inquery)",
    )
    group = parser.add_argument_group("HARP (--tasks harp, or rqp,qdm,rdp,acm)")
    group.add_argument(
        "--harp-variant",
        choices=("default", "paper", "original"),
        default="default",
        help="all of HARP's choices at once: default (the original code's where the paper is silent or its literal "
        "reading defeats the method, else the paper's), paper (head mean, anchor words summed, Poisson(3)) or "
        "original (heads summed, anchor pieces averaged, N(3, 1)); the single options below override it",
    )
    group.add_argument("--harp-query-length", choices=("poisson", "normal"), default=None,
                       help=f"query length distribution ({harp.query_length})")  # fmt: skip
    group.add_argument("--harp-heads", choices=("sum", "mean"), default=None,
                       help=f"combine the attention heads by sum (the code) or mean (eq. 1) ({harp.heads})")  # fmt: skip
    group.add_argument("--harp-anchor-importance", choices=("mean", "sum"), default=None,
                       help=f"RDP: average the anchor's pieces (the code) or sum its words ({harp.anchor_importance})")  # fmt: skip
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
        "pairs_kept": args.prop_pairs_kept,
        "corpus_sample": args.prop_corpus_sample,
        "short_document_words": args.prop_short_document_words,
        "ties": args.prop_ties,
        "stem": args.prop_stem,
    }
    changes = {key: value for key, value in changes.items() if value is not None}
    prop = PropOptions.variant(args.prop_variant, **changes)
    single = {
        "query_length": args.harp_query_length,
        "heads": args.harp_heads,
        "anchor_importance": args.harp_anchor_importance,
    }
    harp = HarpOptions.variant(
        args.harp_variant,
        **{key: value for key, value in single.items() if value is not None},
        passage_max_tokens=args.harp_passage_max_tokens,
        qdm_max_pairs=args.harp_qdm_max_pairs,
        importance_model=args.harp_importance_model,
        importance_device=args.harp_device,
        importance_batch_size=args.harp_batch_size,
        stopwords=args.stopwords or "",
    )
    return prop, harp, args.harp_attention_cache
