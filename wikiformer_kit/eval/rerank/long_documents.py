"""Documents longer than the model: FirstP, MaxP and SumP.

* ``firstp``: the document's first tokens, as many as the pair length leaves (the pair is cut; what the paper does);
* ``maxp``: the document cut into overlapping passages of ``window`` tokens every ``stride`` tokens, the title (where
  the collection has one) repeated before each passage; the document scores as its best passage;
* ``sump``: the same passages; the document scores as the sum of its passages' scores.

MaxP and SumP are Dai and Callan's (SIGIR 2019, "Deeper Text Understanding for IR with Contextual Neural Language
Modeling"). Tokens are the scorer's tokenizer's (passages are cut from the text at the tokens' character offsets,
so no text is changed); without a tokenizer, whitespace-separated words.

`score_long_pairs` scores ``(query, document)`` pairs with any function that scores ``(query, passage)`` pairs,
such as sentence-transformers' ``CrossEncoder.predict``; `PassageScorer` wraps the kit's scorers for `rerank`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

LONG_DOCUMENT_MODES = ("firstp", "maxp", "sump")
DEFAULT_WINDOW = 256
"""Passage length in tokens: with the title and a query, a pair of 512 tokens holds it."""
DEFAULT_STRIDE = 128
"""Tokens from one passage's start to the next: passages overlap by half."""

Document = str | tuple[str, str]
"""A document's text, or its ``(title, body)``."""


@dataclass(frozen=True)
class LongDocuments:
    """How documents longer than the model are scored (see the module docstring): the ``mode`` and, for MaxP and
    SumP, the passages' ``window`` and ``stride`` (at most the window) in tokens."""

    mode: str = "firstp"
    window: int = DEFAULT_WINDOW
    stride: int = DEFAULT_STRIDE

    def __post_init__(self):
        if self.mode not in LONG_DOCUMENT_MODES:
            raise ValueError(f"long documents {self.mode!r}: choose one of {', '.join(LONG_DOCUMENT_MODES)}")
        if self.window < 1 or self.stride < 1:
            raise ValueError(f"passage window {self.window} and stride {self.stride} must be at least 1 token")
        if self.stride > self.window:
            raise ValueError(
                f"passage stride {self.stride} is longer than the window {self.window}: text between passages "
                "would never be scored; use a stride of at most the window"
            )

    def setting(self) -> str:
        """How a run records it: ``firstp``, or ``maxp window=256 stride=128``."""
        if self.mode == "firstp":
            return "firstp"
        return f"{self.mode} window={self.window} stride={self.stride}"

    def to_dict(self) -> dict:
        """The setting as metrics.json records it."""
        if self.mode == "firstp":
            return {"mode": "firstp"}
        return {"mode": self.mode, "window": self.window, "stride": self.stride}


def split_passages(body: str, window: int, stride: int, tokenizer=None) -> list[str]:
    """Overlapping passages of ``body``: ``window`` tokens starting every ``stride`` tokens, the last one ending
    with the text (one passage for a body no longer than the window; ``[""]`` for an empty body). A passage never
    starts or ends inside a word (it starts at the next word, ends before the cut word) unless one word is longer
    than the window. Tokens are a fast Hugging Face ``tokenizer``'s (their character offsets cut the text), or
    words without one."""
    if tokenizer is None:
        spans = [match.span() for match in re.finditer(r"\S+", body)]
        word_starts = [True] * len(spans)
    else:
        encoded = tokenizer(body, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        words = encoded.word_ids()
        spans = list(encoded["offset_mapping"])
        # a passage starts and ends between words, so that it is tokenized again into the same tokens
        word_starts = [i == 0 or words[i] is None or words[i] != words[i - 1] for i in range(len(spans))]
    if not spans:
        return [body.strip()]
    passages = []
    start = 0
    while True:
        end = min(start + window, len(spans))
        while end < len(spans) and not word_starts[end] and end > start + 1:
            end -= 1
        passages.append(body[spans[start][0] : spans[end - 1][1]])
        if end >= len(spans):
            return passages
        start = min(start + stride, end)
        while start < end and not word_starts[start]:
            start += 1


def _title_and_body(document: Document) -> tuple[str, str]:
    return document if isinstance(document, tuple) else ("", document)


def score_long_pairs(
    score_pairs: Callable[[list[tuple[str, str]]], Sequence[float]],
    pairs: Sequence[tuple[str, Document]],
    long_documents: LongDocuments,
    tokenizer=None,
) -> list[float]:
    """One score per ``(query, document)`` pair, in input order, documents longer than the model handled as
    ``long_documents`` says (FirstP: each pair scored whole, the scorer cuts it).

    Args:
        score_pairs: scores a list of ``(query, text)`` pairs, e.g. ``CrossEncoder(...).predict``.
        pairs: a document is its text or ``(title, body)`` (the title then starts every passage).
        tokenizer: the tokenizer whose tokens ``window`` and ``stride`` count (e.g. ``cross_encoder.tokenizer``);
            None: words.

    Example::

        from sentence_transformers import CrossEncoder
        model = CrossEncoder("cross-encoder/ms-marco-MiniLM-L6-v2")
        scores = score_long_pairs(model.predict, [(query, long_text)], LongDocuments("maxp"), model.tokenizer)
    """
    if long_documents.mode == "firstp":
        texts = [(query, " ".join(part for part in _title_and_body(doc) if part)) for query, doc in pairs]
        return [float(score) for score in score_pairs(texts)] if texts else []
    expanded: list[tuple[str, str]] = []
    counts = []
    for query, document in pairs:
        title, body = _title_and_body(document)
        passages = split_passages(body, long_documents.window, long_documents.stride, tokenizer)
        expanded.extend((query, f"{title} {passage}" if title else passage) for passage in passages)
        counts.append(len(passages))
    scores = [float(score) for score in score_pairs(expanded)] if expanded else []
    combine = max if long_documents.mode == "maxp" else sum
    results, start = [], 0
    for count in counts:
        results.append(float(combine(scores[start : start + count])))
        start += count
    return results


class PassageScorer:
    """A kit scorer (`PairScorer`, `ModelScorer` or anything with ``score(queries, documents, progress)``) whose
    documents are scored by passages (MaxP, SumP), for `rerank` and `rerank_run`.

    Its documents may be ``(title, body)`` pairs (`rerank` passes them where the collection knows titles). The
    inner scorer's attributes (``model_path``, ``max_length``, ``dtype``, ``fusion``, ...) are its own.

    Args:
        scorer: the inner scorer; its ``tokenizer``, when it has one, counts the window's tokens.
        long_documents: MaxP or SumP (FirstP needs no wrapper).
    """

    takes_titles = True

    def __init__(self, scorer, long_documents: LongDocuments):
        self.scorer, self.long_documents = scorer, long_documents

    def __getattr__(self, name):
        return getattr(self.scorer, name)

    def score(
        self,
        queries: Sequence[str],
        documents: Sequence[Document],
        progress: Callable[[int], object] | None = None,
    ) -> list[float]:
        """One score per (query, document) pair; ``progress`` receives the number of documents scored."""

        def inner(pairs: list[tuple[str, str]]) -> list[float]:
            return self.scorer.score([q for q, _ in pairs], [p for _, p in pairs])

        scores = score_long_pairs(
            inner,
            list(zip(queries, documents, strict=True)),
            self.long_documents,
            getattr(self.scorer, "tokenizer", None),
        )
        if progress is not None:
            progress(len(scores))
        return scores
