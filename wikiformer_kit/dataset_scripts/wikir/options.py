"""The WIKIR build options, with the defaults of the original builder (getalp/wikIR ``build_wikIR.py``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# Snowball stemmer (PyStemmer) and bm25s stopword list per Wikipedia language code; a language missing here is
# indexed unstemmed and without stopwords.
STEMMERS = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french",
    "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nb": "norwegian", "fa": "persian",
    "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian", "st": "sesotho",
    "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}  # fmt: skip
STOPWORDS = frozenset({"en", "de", "nl", "fr", "es", "pt", "it", "ru", "sv", "no", "zh", "tr", "ko", "da"})
AUTO = "auto"
NONE = "none"


@dataclass(frozen=True)
class WikirOptions:
    """How articles become documents, queries and judgments (original flag in brackets).

    Args:
        min_length: articles with fewer words are left out of the collection [``-l`` 200].
        doc_length: words kept of each document, and the window of leading words whose links count [``-d`` 200].
        query_length: words kept of each query [``-q``; 10 as in the paper's collections].
        min_links: a query needs at least this many linking documents [``-e`` 5].
        first_sentence_links: count only the links of the first sentence [``-f``].
        title_queries: the query is the title instead of the first sentence [``-i``].
        skip_first_sentence: documents lose their first sentence (the one a first-sentence query copies) [``-s``].
        lowercase: lower-case documents and queries [``-c``].
        keep_non_alphanumeric: keep punctuation; by default every character that is not a letter, digit or mark
            (in any script) becomes a space, as the original does for ``[^a-zA-Z0-9]``.
        validation_size: queries in the validation split [``-v`` 1000].
        test_size: queries in the test split [``-t`` 1000]; the rest is the training split.
        seed: the shuffle of the query ids [``-r`` 27355].
        bm25_k: BM25 documents per query [``-k`` 100].
        k1: BM25 k1 (the original's rank_bm25 default 1.5).
        b: BM25 b (0.75).
        stemmer: a Snowball language, ``auto`` (from the corpus language) or ``none``; index and queries alike.
        stopwords: a bm25s stopword language, ``auto`` or ``none``; index and queries alike.
        train_negatives: BM25 negatives per training row (top-ranked documents that are not judged relevant).
        keep_disambiguation: keep disambiguation pages as documents (they link to every sense near their start).
        whole_documents: documents are the whole article, not its first ``doc_length`` words (links still count
            in those words): a collection of documents longer than a model's input, for FirstP, MaxP and SumP.
    """

    min_length: int = 200
    doc_length: int = 200
    query_length: int = 10
    min_links: int = 5
    first_sentence_links: bool = False
    title_queries: bool = False
    skip_first_sentence: bool = False
    lowercase: bool = False
    keep_non_alphanumeric: bool = False
    validation_size: int = 1000
    test_size: int = 1000
    seed: int = 27355
    bm25_k: int = 100
    k1: float = 1.5
    b: float = 0.75
    stemmer: str = AUTO
    stopwords: str = AUTO
    train_negatives: int = 15
    keep_disambiguation: bool = False
    whole_documents: bool = False

    def __post_init__(self):
        for name in ("min_length", "doc_length", "query_length", "min_links", "bm25_k"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("validation_size", "test_size", "train_negatives"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (for the card and the build record)."""
        return asdict(self)

    def bm25_language(self, language: str) -> tuple[str | None, str | None]:
        """``(stemmer, stopwords)`` for a corpus language, ``auto`` resolved and ``none`` as None."""
        code = (language or "").split("-")[0].lower()
        stemmer = STEMMERS.get(code) if self.stemmer == AUTO else self.stemmer
        stopwords = (code if code in STOPWORDS else None) if self.stopwords == AUTO else self.stopwords
        return (None if stemmer == NONE else stemmer), (None if stopwords == NONE else stopwords)
