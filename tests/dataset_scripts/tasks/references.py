"""Per-text and per-article reference implementations that the build's column-wise code is checked against."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from wikiformer_kit.dataset_scripts.tasks.anchors import LinkedSentence, LinkRecord, sentences_of_links
from wikiformer_kit.dataset_scripts.tasks.language_model import words


@dataclass(frozen=True)
class CorpusCounts:
    """What one pass over a corpus counts for the collection model (mergeable across shards).

    Args:
        documents: documents counted.
        words: all non-stopword words of the corpus (the subsampling frequency's denominator).
        cf: corpus frequency of every non-stopword word.
        df: document frequency of every non-stopword word.
    """

    documents: int
    words: int
    cf: Counter
    df: Counter

    @classmethod
    def from_texts(
        cls, texts: Iterable[str], stopwords: frozenset[str], stem: Callable[[list[str]], list[str]] | None = None
    ) -> CorpusCounts:
        """Count the content words of the given documents (their stems with ``stem``, see :func:`stemmer`)."""
        # every token counted at C speed (Counter.update of a list or set), stopwords dropped once at the end
        cf, df, documents = Counter(), Counter(), 0
        for text in texts:
            every = [w for w in words(text) if w not in stopwords] if stem else words(text)
            every = stem(every) if stem else every
            cf.update(every)
            df.update(set(every))
            documents += 1
        for word in set() if stem else stopwords.intersection(cf):
            del cf[word], df[word]
        return cls(documents, sum(cf.values()), cf, df)


def group_links(
    article_id: str,
    title: str,
    links: Iterable[LinkRecord],
    rows: Iterable[int | None],
    own_row: int | None,
    has_passage: Callable[[int], bool],
) -> tuple[list[LinkedSentence], Counter]:
    """An article's sentences that hold at least one usable anchor, and what was left out (by reason).

    Args:
        links: the article's link records (:func:`find_anchors`, as the build's statistics stage keeps them).
        rows: the destination row of each link (``None`` = not in the corpus), redirects followed.
        own_row: the article's own row (a link resolving to it is a self link).
        has_passage: whether a destination row has a usable first section.
    """
    skipped: Counter = Counter()
    usable: list[tuple[LinkRecord, int]] = []
    for link, row in zip(links, rows, strict=True):
        if link[3] < 0:  # the anchor's start in its sentence
            skipped["anchor-not-in-sentence"] += 1
        elif row is None:
            skipped["anchor-target-missing"] += 1
        elif row == own_row:
            skipped["anchor-self-link"] += 1
        elif not has_passage(row):
            skipped["anchor-target-without-first-section"] += 1
        else:
            usable.append((link, row))
    return sentences_of_links(article_id, title, usable), skipped
