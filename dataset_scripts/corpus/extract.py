"""The extraction stage: a :class:`RawPage` of wikitext becomes an :class:`Article`, or a counted skip."""

from __future__ import annotations

from functools import lru_cache

from .article import Article
from .formats.base import RawPage, ReaderOptions, Skipped
from .titles import ENGLISH, Namespaces
from .wikitext import parse_wikitext


@lru_cache(maxsize=64)
def _namespaces(names: tuple[tuple[int, str], ...]) -> Namespaces:
    return ENGLISH.with_names(dict(names)) if names else ENGLISH


def parse_page(page: RawPage, options: ReaderOptions = ReaderOptions()) -> Article | Skipped:
    """Parse one raw page; a page that cannot be parsed or has no text is a :class:`Skipped` naming it.

    Never raises for a bad page: a long run goes on and the summary counts the reason.
    """
    try:
        article = parse_wikitext(
            page.title,
            page.wikitext,
            page_id=page.id,
            url=page.url,
            language=page.language or options.language,
            namespaces=_namespaces(page.namespace_names),
            see_also_titles=options.see_also_titles,
            source=page.source,
        )
    except RecursionError:
        return Skipped("parse-error", page.file, page.title, "markup nested too deeply to parse")
    except Exception as error:  # one bad page must not end a long run; it is counted with its message
        return Skipped("parse-error", page.file, page.title, f"{type(error).__name__}: {error}")
    if not article.abstract and not any(section.text for section in article.sections):
        return Skipped("no-text", page.file, page.title, "no text left once markup is removed")
    return article
