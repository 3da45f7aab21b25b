"""Helpers shared by the task samplers: per-article RNGs, negative selection, end matter; word counts and
truncation (:mod:`dataset_scripts.corpus.words`, the one word rule of every script)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.end_matter import (
    end_matter_by_name,
    end_matter_names,
    reference_list_sections,
)
from wikiformer_kit.dataset_scripts.corpus.words import count_words, truncate_words
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions


@dataclass
class TaskOutput:
    """What a sampler returns for one article (or one See also source).

    Args:
        groups: the rows, each a dict with the task's columns.
        skipped: counts of what was left out, by reason (a short stable key shown in the dataset card).
    """

    groups: list[dict[str, Any]] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)


def task_rng(seed: int, task: str, *key: str) -> random.Random:
    """A ``random.Random`` derived from the seed, the task name and a key (article id, edge ends).

    String seeds are hashed with SHA-512 by ``random``, so the stream is the same in every process and on every
    machine, and one article's draws do not depend on which shard it landed in.
    """
    return random.Random("\x1f".join([str(seed), task, *key]))


class LazyTaskRng:
    """:func:`task_rng` ``(seed, task, *key)``, seeded on first use: the same draws, but an article that never
    draws for a task (no sentence with two destinations, no QDM plan entry) costs no seeding (a SHA-512 and a
    Mersenne Twister state). Each attribute is looked up on the seeded RNG once, then kept on this object, so
    later draws cost what they cost on a ``random.Random``."""

    def __init__(self, seed: int, task: str, *key: str):
        self._key = (seed, task, *key)

    def __getattr__(self, name: str):
        if name.startswith("__") or name == "_key":  # copy/pickle probes; _key itself is always set
            raise AttributeError(name)
        rng = self.__dict__.get("_rng")
        if rng is None:
            rng = self.__dict__["_rng"] = task_rng(*self._key)
        value = getattr(rng, name)
        setattr(self, name, value)
        return value


def pick_negatives(candidates: Iterable[str], positive: str, rng: random.Random, max_negatives: int) -> list[str]:
    """Distinct non-empty candidates different from ``positive``; a random subset of ``max_negatives`` of them
    when there are more, kept in their original order.

    Args:
        candidates: candidate texts in document order.
        positive: the positive text of the row (never returned).
        rng: the row's RNG.
        max_negatives: the cap.
    """
    seen: set[str] = {positive}
    distinct: list[str] = []
    for text in candidates:
        if text and text not in seen:
            seen.add(text)
            distinct.append(text)
    if len(distinct) <= max_negatives:
        return distinct
    keep = sorted(rng.sample(range(len(distinct)), max_negatives))
    return [distinct[i] for i in keep]


def join_titles(titles: Iterable[str]) -> str:
    """A title path as one query string (titles joined by a space, as the original code did)."""
    return " ".join(t.strip() for t in titles if t.strip())


def node_text(article: Article, index: int, max_words: int) -> str:
    """The text of a WST node (``-1`` is the root, whose text is the abstract), stripped and truncated."""
    text = article.abstract if index == -1 else article.sections[index].text
    return truncate_words(text or "", max_words)


END_MATTER_SKIP = "end-matter-section"
REFERENCE_LIST_SKIP = "reference-list-section"


def section_skip_reasons(own: dict[str, str]) -> dict[str, str]:
    """The skip reasons of a task drawn from an article's sections: a disambiguation page, the task's ``own`` and
    the end matter left out as nodes (:func:`nodes_with_text`)."""
    return {
        "disambiguation": "disambiguation page",
        **own,
        END_MATTER_SKIP: "end-matter section with text (References, External links, See also, ...) left out as a node",
        REFERENCE_LIST_SKIP: (
            "section of another name whose lines are nearly all citations, link titles or links (a reference list)"
            " left out as a node"
        ),
    }


def group_row(fixed_side: str, fixed: str, positive: str, negatives: list[str], article_id: str, title: str, **extra):
    """A task's row: its fixed side (``query`` or ``document``), the positive and negatives, the source article and
    the task's own columns (``extra``)."""
    return {
        fixed_side: fixed,
        "positive": positive,
        "negatives": negatives,
        "article_id": article_id,
        "title": title,
    } | extra


@lru_cache(maxsize=64)
def _end_matter_names(language: str) -> frozenset[str]:
    return end_matter_names(language or "en")


def end_matter(article: Article, keep: bool = False) -> set[int]:
    """Indices of the article's end-matter sections (and their subsections), which are not task nodes; empty with
    ``keep`` (``--keep-sections``). See :mod:`dataset_scripts.corpus.end_matter`."""
    if keep:
        return set()
    if _last_end_matter[0] is article:  # every sampler of a unit asks for the same article in turn
        return set(_last_end_matter[1])
    by_name = end_matter_by_name(article, _end_matter_names(article.language))
    found = by_name | reference_list_sections(article, by_name)
    _last_end_matter[:] = [article, frozenset(found), frozenset(by_name)]
    return found


_last_end_matter: list = [None, frozenset(), frozenset()]
"""The last article :func:`end_matter` read, what it found and what of that it found by name."""


def nodes_with_text(article: Article, out: TaskOutput, options: TaskOptions) -> tuple[set[int], list[int]]:
    """The article's end-matter sections (none with ``options.keep_end_matter``) and its other sections with at
    least ``options.min_words`` words. The end matter that would have been a node (enough text) is counted in
    ``out``: under :data:`END_MATTER_SKIP` the sections found by name, under :data:`REFERENCE_LIST_SKIP` the
    reference lists of other names."""
    left_out = end_matter(article, options.keep_end_matter)
    by_name = _last_end_matter[2]
    for i in left_out:
        if count_words(article.sections[i].text) >= options.min_words:
            out.skipped[END_MATTER_SKIP if i in by_name else REFERENCE_LIST_SKIP] += 1
    sections = article.sections
    return left_out, [
        i for i, s in enumerate(sections) if count_words(s.text) >= options.min_words and i not in left_out
    ]
