"""Hypothesis strategies for Wiki Structure Trees, and small hand-built articles, for the sampler tests."""

from __future__ import annotations

from hypothesis import strategies as st

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.tree import build_sections

# Titles without spaces, so that a joined title path splits back into its titles; few of them, so that
# repeated titles (and repeated texts) happen often. No end-matter title (Notes, References): see test_end_matter.
TITLES = st.sampled_from(["History", "Works", "Legacy", "Life", "Reception", "Career", "A", "B"])
WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "epsilon"])
TEXTS = st.one_of(st.just(""), st.lists(WORDS, min_size=1, max_size=12).map(" ".join))


@st.composite
def articles(draw, max_sections: int = 14) -> Article:
    """A random article: title, abstract and up to ``max_sections`` headings with random levels and texts."""
    title = draw(TITLES)
    headings = draw(st.lists(st.tuples(st.integers(2, 5), TITLES, TEXTS), max_size=max_sections))
    return Article(
        id=draw(st.text("0123456789", min_size=1, max_size=5)),
        title=title,
        abstract=draw(TEXTS),
        sections=build_sections(title, headings),
        is_disambiguation=draw(st.integers(0, 19)) == 0,
    )


def words(n: int, word: str) -> str:
    """``n`` words, e.g. ``words(3, "x")`` == ``"x1 x2 x3"`` (distinct texts of known length)."""
    return " ".join(f"{word}{i}" for i in range(1, n + 1))


def article(title: str, abstract: str, headings: list[tuple[int, str, str]], **fields) -> Article:
    """A hand-built article from ``(level, title, text)`` headings."""
    return Article(
        id=fields.pop("id", "1"), title=title, abstract=abstract, sections=build_sections(title, headings), **fields
    )
