"""The PROP and HARP options and their command-line flags, kept apart from the samplers so that a command line
(``python -m dataset_scripts.build --help``) is built without loading them."""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, fields
from typing import Any

from wikiformer_kit.cli.options import option
from wikiformer_kit.dataset_scripts.tasks.options import check_choice

BACKGROUNDS = ("cf", "df")
QUERY_LENGTHS = ("poisson", "normal")
TIES = ("second", "drop")
PROP_VARIANTS = ("paper", "original")
HEAD_COMBINATIONS = ("sum", "mean")
ANCHOR_IMPORTANCE = ("mean", "sum")
HARP_VARIANTS = ("default", "paper", "original")
ANCHOR_PAIRS = ("all", "drawn")
RDP_TIES = ("first", "drop")
RQP_NEGATIVE_LENGTHS = ("positive", "own")
WORD_DRAWS = ("distinct", "replacement")
DRAW_UNITS = ("words", "pieces")
ANCHOR_ROWS = ("mean", "first-piece")
QDM_OCCURRENCES = ("hashed", "first")
ORIGINAL_IMPORTANCE_MODEL = "google-bert/bert-base-uncased"
"""The original code's importance model (``--bert_model bert-base-uncased``), the backbone HARP trains."""


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
        skip_disambiguation: leave disambiguation pages out (the original code's ``if 'disambiguation' in title``;
            the paper is silent).
        drop_long_sets: a pair whose set length exceeds the document's distinct vocabulary words is not drawn
            (the original code's ``if len(doc_vocab) < length: continue``); off, the sets are drawn with
            replacement as for any other length (the paper's model allows it).
        epochs: sets of pairs drawn per document, each with its own lengths and sets (the original scripts build
            2 epochs of distinct word sets; the paper trains on one).
        stem: count, score and draw Porter stems instead of words (the original code's ``--stem``: the document
            and collection models over stems), each drawn stem shown as one of its corpus words, drawn in
            proportion to log(1 + its count) (the code's ``stem2pos``); off in the paper's values. Only
            for a language the stemmer knows (:data:`.language_model.STEMMERS`; the build turns it off, with a
            warning, for a corpus in another language).
        variant_name: the variant the values started from (:meth:`variant`; single options may change them since),
            named in the card.
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
    skip_disambiguation: bool = True
    drop_long_sets: bool = True
    epochs: int = 1
    variant_name: str = "paper"

    def __post_init__(self) -> None:
        check_choice("background", self.background, BACKGROUNDS)
        check_choice("ties", self.ties, TIES)
        if self.poisson_lambda <= 0 or self.pairs_per_document < 1 or self.min_count < 1 or self.subsample < 0:
            raise ValueError(f"invalid PROP options: {self}")
        if not 0 <= self.pairs_kept <= self.pairs_per_document or self.corpus_sample < 0:
            raise ValueError(f"invalid PROP options (pairs_kept <= pairs_per_document, corpus_sample >= 0): {self}")
        if self.short_document_words < 0 or not 0 <= self.short_document_skip <= 1:
            raise ValueError(f"invalid PROP options (short documents): {self}")
        if self.epochs < 1:
            raise ValueError(f"invalid PROP options (epochs >= 1): {self}")
        check_choice("PROP variant", self.variant_name, PROP_VARIANTS)

    @classmethod
    def original(cls, **changes: Any) -> PropOptions:
        """The original code's values (Albert-Ma/PROP): min count 10, t = 1e-4, 10 pairs generated and 5 kept,
        document frequencies, draws from the document's words plus 500 sampled corpus words, NLTK English +
        INQUERY stopwords, Porter stems, 2 epochs of word sets (short documents, ties, disambiguation pages and sets
        longer than the document's vocabulary as the default, which is the code's)."""
        values = {
            "epochs": 2,
            "pairs_per_document": 10,
            "pairs_kept": 5,
            "min_count": 10,
            "subsample": 1e-4,
            "background": "df",
            "corpus_sample": 500,
            "stem": True,
        }
        return cls(**{**values, "stopwords": "nltk+inquery", "variant_name": "original", **changes})

    @classmethod
    def variant(cls, name: str, **changes: Any) -> PropOptions:
        """All of a variant's choices at once (``paper``: the defaults; ``original``: :meth:`original`), then
        ``changes`` on top."""
        check_choice("PROP variant", name, PROP_VARIANTS)
        return cls.original(**changes) if name == "original" else cls(**changes)

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (build parameters, dataset card)."""
        return asdict(self)


@dataclass(frozen=True)
class HarpOptions:
    """HARP's sampling settings (defaults: the paper's where it says, the original code's where it is silent).

    Args:
        query_length: ``"poisson"`` (the paper: l ~ Poisson(lambda), l > 0) or ``"normal"`` (the original code:
            ``int(N(3, 1))``, truncated towards zero, drawn again while < 1) for the number of words sampled into a
            pseudo query.
        poisson_lambda: the Poisson mean (the paper: 3).
        passage_max_tokens: destination passages are cut to this many word pieces of the importance model's
            tokenizer, and the importance model reads this many + 2 tokens of a text (250; the original code
            reads 512 tokens, ``original``: 510, and training cuts ACM's sides to 250).
        qdm_max_pairs: QDM rows per distinct anchor text at most (the original code's 10).
        importance_model: the BERT checkpoint whose last-layer attention weighs words (the paper: BERT-base);
            ``embedded:minilm`` = the embedded all-MiniLM-L6-v2; ``original``: bert-base-uncased, the backbone
            HARP trains.
        importance_device: ``cpu``, ``cuda``...; empty = CUDA when available.
        importance_batch_size: texts per attention forward pass.
        stopwords: a stopword file; ``""`` = the vendored INQUERY list (HARP's own list has no licence and is not
            vendored: pass the original's ``data/corpus/stopwords.txt`` as a file).
        heads: how the attention heads combine: ``"sum"`` (the original code, the default: eq. 1's mean makes the softmax
            over words almost uniform) or ``"mean"`` (eq. 1 as written).
        anchor_importance: RDP's importance of an anchor: the [CLS] attention to its word pieces averaged
            (``"mean"``, the original code's ``cal_weight_of_anchor(..., 'avg')``, the default) or summed (``"sum"``,
            eq. 10 read over the anchor's words: the longer anchor wins).
        anchor_pairs: RDP and ACM: one row per pair of a sentence's anchors with distinct destinations, in the
            original code's order (``"all"``, every variant: the tasks' shares of the mixture depend on it) or one
            row per sentence from two drawn destinations (``"drawn"``, the paper's "two anchors sampled").
        rdp_ties: RDP, two anchors of equal importance: the first anchor's destination is the positive
            (``"first"``, the original code's ``if a1 < a2: swap``) or the pair is dropped (``"drop"``).
        rqp_negative_length: RQP's negative query: as many words as the positive (``"positive"``: length is no
            cue) or a length of its own draw (``"own"``, the original code: the positive is a drawn length plus
            the anchor's words, so it is the longer one).
        word_draws: words drawn into a query: distinct, kept in text order (``"distinct"``) or with replacement,
            repeats kept, in draw order with the anchor after them (``"replacement"``, the original code's
            ``np.random.choice(..., replace=True)`` and ``query += anchor``).
        draw_unit: what a query is drawn from: the text's words (``"words"``, runs of letters) or the importance
            model's word pieces (``"pieces"``, the original code: continuation pieces such as ``##s`` are units of
            their own, a repeated piece's weights summed), a drawn query then written as the tokenizer joins
            pieces (``convert_tokens_to_string``). Pieces are drawn with replacement only (``word_draws``).
        exclude_anchor_words: the anchor's own words are never drawn into its queries (the paper's eq. 5);
            off, they are candidates as the original code's are.
        anchor_row: the attention row a sentence's words are weighed by for an anchor: the mean of its pieces'
            rows (``"mean"``) or the row of the first occurrence of its first piece in the sentence
            (``"first-piece"``, the original code's ``aidx``).
        variant_name: the variant the values started from (:meth:`variant`; single options may change them since),
            named in the cards.
        qdm_occurrences: which ``qdm_max_pairs`` occurrences of an anchor text make its QDM rows: those of lowest
            seeded hash (``"hashed"``, a sample that does not depend on the dump's order) or the first in corpus
            order (``"first"``, the original code's ``sap_triples[ano][i]``, whose permutation is unused).
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
    anchor_pairs: str = "all"
    rdp_ties: str = "first"
    rqp_negative_length: str = "positive"
    word_draws: str = "distinct"
    draw_unit: str = "words"
    exclude_anchor_words: bool = True
    anchor_row: str = "mean"
    qdm_occurrences: str = "hashed"
    variant_name: str = "default"

    def __post_init__(self) -> None:
        check_choice("query_length", self.query_length, QUERY_LENGTHS)
        check_choice("heads", self.heads, HEAD_COMBINATIONS)
        check_choice("anchor_importance", self.anchor_importance, ANCHOR_IMPORTANCE)
        check_choice("anchor_pairs", self.anchor_pairs, ANCHOR_PAIRS)
        check_choice("rdp_ties", self.rdp_ties, RDP_TIES)
        check_choice("rqp_negative_length", self.rqp_negative_length, RQP_NEGATIVE_LENGTHS)
        check_choice("word_draws", self.word_draws, WORD_DRAWS)
        check_choice("draw_unit", self.draw_unit, DRAW_UNITS)
        check_choice("anchor_row", self.anchor_row, ANCHOR_ROWS)
        check_choice("qdm_occurrences", self.qdm_occurrences, QDM_OCCURRENCES)
        check_choice("variant_name", self.variant_name, HARP_VARIANTS)
        if self.poisson_lambda <= 0 or self.passage_max_tokens < 8 or self.qdm_max_pairs < 1:
            raise ValueError(f"invalid HARP options: {self}")
        if self.draw_unit == "pieces" and self.word_draws != "replacement":
            # distinct pieces in text order would rebuild fragments of the text's words, not a query
            raise ValueError(
                "--harp-draw-unit pieces draws with replacement, as the original code: give --harp-word-draws "
                "replacement, or --harp-draw-unit words"
            )

    @classmethod
    def variant(cls, name: str, **changes) -> HarpOptions:
        """All of a variant's choices at once, then ``changes`` on top: ``default`` (the authors' code where the
        paper is silent or its literal reading defeats the method), ``paper`` (eq. 1's head mean, eq. 10 summed
        over the anchor's words, l ~ Poisson(3)) or ``original`` (the code: heads summed, pieces averaged,
        int(N(3, 1)) query lengths, RQP's negative of its own length, word pieces drawn with replacement, the
        anchor's pieces not excluded, the anchor's row at its first piece's first occurrence, bert-base-uncased over 512
        tokens as the importance model)."""
        check_choice("HARP variant", name, HARP_VARIANTS)
        values = {
            "default": {},
            "paper": {"heads": "mean", "anchor_importance": "sum", "query_length": "poisson"},
            "original": {
                "heads": "sum",
                "anchor_importance": "mean",
                "query_length": "normal",
                "rqp_negative_length": "own",
                "word_draws": "replacement",
                "draw_unit": "pieces",
                "exclude_anchor_words": False,
                "anchor_row": "first-piece",
                "qdm_occurrences": "first",
                "importance_model": ORIGINAL_IMPORTANCE_MODEL,
                "passage_max_tokens": 510,
            },
        }[name]
        return cls(**{**values, "variant_name": name, **changes})

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (build parameters, dataset cards)."""
        return asdict(self)


@dataclass(frozen=True)
class PropArguments:
    """PROP's options on the build's command line: ``--prop-variant``, then each :class:`PropOptions` field ``X``
    as ``--prop-X`` (not given: the variant's value), and the stopwords of PROP and HARP."""

    OPTION_GROUP = "PROP (--tasks prop)"

    prop_variant: str = option(
        "paper",
        choices=PROP_VARIANTS,
        help="all of PROP's choices at once: the paper's sampling values, or the original code's (min count 10, "
        "t=1e-4, 10 pairs generated and 5 kept, df, the document's words + 500 sampled corpus words, NLTK+INQUERY "
        "stopwords, Porter stems); the single options below override it",
    )
    prop_pairs_per_document: int | None = option(
        flags=("--prop-pairs",), metavar="PROP_PAIRS", help=f"pairs per document ({PropOptions.pairs_per_document})"
    )
    prop_pairs_kept: int | None = option(help="of the pairs generated, keep this many at random (0 = all; original: 5)")
    prop_corpus_sample: int | None = option(
        help="draw from the document's words + this many sampled corpus words (0 = all of V; original: 500)"
    )
    prop_short_document_words: int | None = option(
        help=f"skip documents under this many words 80%% of the time ({PropOptions.short_document_words}; 0 = never)"
    )
    prop_ties: str | None = option(
        choices=TIES, help=f"equally likely sets: S2 is the positive, or drop the pair ({PropOptions.ties})"
    )
    prop_min_count: int | None = option(help=f"vocabulary cut ({PropOptions.min_count})")
    prop_subsample: float | None = option(help=f"subsampling threshold ({PropOptions.subsample})")
    prop_background: str | None = option(choices=BACKGROUNDS, help="collection model (cf)")
    prop_epochs: int | None = option(help=f"sets of pairs drawn per document ({PropOptions.epochs}; original: 2)")
    prop_skip_disambiguation: bool | None = option(
        action=argparse.BooleanOptionalAction, help="leave disambiguation pages out (on, as the original code)"
    )
    prop_drop_long_sets: bool | None = option(
        action=argparse.BooleanOptionalAction,
        help="no pair whose set is longer than the document's vocabulary words (on, as the code)",
    )
    prop_stem: bool | None = option(
        action=argparse.BooleanOptionalAction,
        help="count and draw Porter stems, each shown as one of its words (English only; original: on)",
    )
    stopwords: str | None = option(
        help="stopword file, or vendored list names joined by '+' (inquery, nltk, zh, ja), for PROP and HARP "
        "(default: inquery, zh or ja for a Chinese or Japanese corpus; PROP's --prop-variant original: nltk+inquery)",
    )


@dataclass(frozen=True)
class HarpArguments:
    """HARP's options on the build's command line: ``--harp-variant``, then :class:`HarpOptions` fields ``X`` as
    ``--harp-X`` (not given: the variant's value), and the attention cache."""

    OPTION_GROUP = "HARP (--tasks harp, or rqp,qdm,rdp,acm)"

    harp_variant: str = option(
        "default",
        choices=HARP_VARIANTS,
        help="all of HARP's choices at once: default (the original code's where the paper is silent or its literal "
        "reading defeats the method, else the paper's), paper (head mean, anchor words summed, Poisson(3)) or "
        "original (heads summed, anchor pieces averaged, int(N(3, 1)), RQP's negative of its own length, word "
        "pieces drawn with replacement, the anchor's pieces not excluded, bert-base-uncased over 512 tokens); the "
        "single options below override it",
    )
    harp_query_length: str | None = option(
        choices=QUERY_LENGTHS, help=f"query length distribution ({HarpOptions.query_length})"
    )
    harp_heads: str | None = option(
        choices=HEAD_COMBINATIONS,
        help=f"combine the attention heads by sum (the code) or mean (eq. 1) ({HarpOptions.heads})",
    )
    harp_anchor_importance: str | None = option(
        choices=ANCHOR_IMPORTANCE,
        help=f"RDP: average the anchor's pieces (the code) or sum its words ({HarpOptions.anchor_importance})",
    )
    harp_anchor_pairs: str | None = option(
        choices=ANCHOR_PAIRS,
        help=f"RDP and ACM: a row per pair of a sentence's anchors, or two drawn ({HarpOptions.anchor_pairs})",
    )
    harp_rdp_ties: str | None = option(
        choices=RDP_TIES,
        help=f"RDP, equally important anchors: the first is the positive, or drop ({HarpOptions.rdp_ties})",
    )
    harp_rqp_negative_length: str | None = option(
        choices=RQP_NEGATIVE_LENGTHS,
        help=f"RQP's negative: as long as the positive, or its own draw ({HarpOptions.rqp_negative_length})",
    )
    harp_word_draws: str | None = option(
        choices=WORD_DRAWS, help=f"query words distinct, or with replacement in draw order ({HarpOptions.word_draws})"
    )
    harp_draw_unit: str | None = option(
        choices=DRAW_UNITS,
        help=f"queries drawn from words, or from the importance model's word pieces ({HarpOptions.draw_unit}; original: pieces)",
    )
    harp_exclude_anchor_words: bool | None = option(
        action=argparse.BooleanOptionalAction,
        help="never draw the anchor's own words into its queries (on; original: off)",
    )
    harp_qdm_occurrences: str | None = option(
        choices=QDM_OCCURRENCES,
        help=f"QDM: an anchor text's occurrences of lowest seeded hash, or its first in corpus order ({HarpOptions.qdm_occurrences})",
    )
    harp_anchor_row: str | None = option(
        choices=ANCHOR_ROWS,
        help=f"an anchor's attention row: its pieces' mean, or its first piece's first occurrence ({HarpOptions.anchor_row})",
    )
    harp_importance_model: str | None = option(
        help=f"BERT checkpoint whose last-layer attention weighs words ({HarpOptions.importance_model}; original: "
        f"{ORIGINAL_IMPORTANCE_MODEL}, the paper's backbone)",
    )
    harp_importance_device: str = option(
        "", flags=("--harp-device",), metavar="HARP_DEVICE", help="cpu, cuda, ... (default: CUDA when available)"
    )
    harp_importance_batch_size: int = option(
        HarpOptions.importance_batch_size, flags=("--harp-batch-size",), metavar="HARP_BATCH_SIZE", help=None
    )
    harp_passage_max_tokens: int | None = option(
        help=f"passages cut to this many word pieces ({HarpOptions.passage_max_tokens}; original: 510)"
    )
    harp_qdm_max_pairs: int = option(HarpOptions.qdm_max_pairs, help=None)
    harp_attention_cache: str | None = option(
        help="SQLite attention cache to share between builds (default: OUT/.build/harp/attention.sqlite)"
    )


@dataclass(frozen=True)
class BaselineArguments(PropArguments, HarpArguments):
    """The build's PROP and HARP options (``python -m dataset_scripts.build --help``)."""

    def prop_options(self) -> PropOptions:
        """The PROP options asked for: the variant's, with the single options given on top."""
        return PropOptions.variant(self.prop_variant, **_given(self, "prop_", PropOptions, stopwords=self.stopwords))

    def harp_options(self) -> HarpOptions:
        """The HARP options asked for: the variant's, with the single options given on top."""
        return HarpOptions.variant(
            self.harp_variant, **_given(self, "harp_", HarpOptions, stopwords=self.stopwords or "")
        )


def _given(arguments, prefix: str, options_class: type, **others) -> dict[str, Any]:
    """The fields of ``options_class`` that ``arguments`` gives as ``prefix + name`` (``None``: not given)."""
    values = {f.name: getattr(arguments, prefix + f.name, None) for f in fields(options_class)}
    return {name: value for name, value in {**values, **others}.items() if value is not None}


def built_choices(method: str, options: dict[str, Any]) -> str:
    """A card's account of the choices a PROP or HARP build actually made (``method`` ``"PROP"`` or ``"HARP"``),
    from its ``prop.*`` / ``harp.*`` options; ``""`` for another method or a build without those options."""
    prefix = f"{method.lower()}."
    values = {key[len(prefix) :]: value for key, value in options.items() if key.startswith(prefix)}
    if not values:
        return ""
    stopwords = values.get("stopwords") or "inquery"
    lists = " + ".join(
        {"inquery": "INQUERY", "nltk": "NLTK English", "zh": "Chinese", "ja": "Japanese"}.get(name, name)
        for name in stopwords.split("+")
    )
    if method == "PROP":
        epochs = values.get("epochs", 1)
        parts = [
            *([f"--prop-variant {values['variant_name']}"] if "variant_name" in values else []),
            f"stopwords: {lists}",
            f"set lengths l ~ Poisson({values.get('poisson_lambda', 3.0):g}), l > 0",
            "Porter stems counted and drawn" if values.get("stem") else "words, not stems",
            f"{epochs} epoch{'s' if epochs != 1 else ''} of word sets per document",
            "disambiguation pages skipped" if values.get("skip_disambiguation", True) else "disambiguation pages kept",
            "no set longer than the document's vocabulary words"
            if values.get("drop_long_sets", True)
            else "sets longer than the document's vocabulary drawn with replacement",
        ]
    elif method == "HARP":
        lengths = (
            "int(N(3, 1)), drawn again below 1 (the original code)"
            if values.get("query_length") == "normal"
            else f"l ~ Poisson({values.get('poisson_lambda', 3.0):g}), l > 0"
        )
        draws = (
            "with replacement, in draw order, the anchor after them (the original code)"
            if values.get("word_draws") == "replacement"
            else "distinct, in text order"
        )
        parts = [
            *([f"--harp-variant {values['variant_name']}"] if "variant_name" in values else []),
            f"stopwords: {lists}",
            f"query lengths: {lengths}",
            "queries drawn from the importance model's word pieces (continuation pieces included), written as its "
            "tokenizer joins them: convert_tokens_to_string (the original code)"
            if values.get("draw_unit") == "pieces"
            else "queries drawn from words (runs of letters)",
            f"query words drawn {draws}",
            "the anchor's own words never drawn"
            if values.get("exclude_anchor_words", True)
            else "the anchor's own words drawn too (the original code)",
            "RDP and ACM: one row per pair of a sentence's anchors (the original code)"
            if values.get("anchor_pairs", "all") == "all"
            else "RDP and ACM: one row per sentence, two destinations drawn (the paper)",
            "RDP ties: the first anchor's destination is the positive"
            if values.get("rdp_ties", "first") == "first"
            else "RDP ties dropped",
            "RQP's negative: a length of its own draw (the original code)"
            if values.get("rqp_negative_length") == "own"
            else "RQP's negative: as many words as the positive",
            "an anchor's attention row: its first piece's first occurrence (the original code)"
            if values.get("anchor_row") == "first-piece"
            else "an anchor's attention row: the mean of its pieces' rows",
            "QDM: an anchor text's first occurrences in corpus order (the original code)"
            if values.get("qdm_occurrences") == "first"
            else "QDM: an anchor text's occurrences of lowest seeded hash",
            f"importance model {values.get('importance_model', '')} over "
            f"{values.get('passage_max_tokens', 250) + 2} tokens, heads "
            f"{'averaged' if values.get('heads') == 'mean' else 'summed'}",
        ]
    else:
        return ""
    return f"As built: {'; '.join(parts)}."
