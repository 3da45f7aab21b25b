"""The extraction stage: a :class:`RawPage` of wikitext becomes an :class:`Article`, or a counted skip.

It is the one place that turns the raw hook of the reader contract (``read_raw``, see :mod:`.formats.base`) into
Articles: the corpus build runs :func:`parse_page` as its own pipeline step, and :func:`read_articles` reads any
format module as Articles in one process (tests, notebooks).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats.base import RawPage, ReaderOptions, Redirect, Skipped
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH, Namespaces
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext


@lru_cache(maxsize=64)
def _namespaces(names: tuple[tuple[int, str], ...], language: str = "") -> Namespaces:
    """English names, the dump's own (``<siteinfo>``) and the aliases MediaWiki knows for its language."""
    namespaces = ENGLISH.with_names(dict(names)) if names else ENGLISH
    aliases = namespace_names(language) if language else {}
    return namespaces.with_aliases(aliases) if aliases else namespaces


def parse_page(
    page: RawPage, options: ReaderOptions = ReaderOptions(), template_counts: Counter | None = None
) -> Article | Skipped:
    """Parse one raw page; a page that cannot be parsed or has no text is a :class:`Skipped` naming it (never
    raises: a long run goes on and the summary counts the reason). ``template_counts``: see :func:`parse_wikitext`."""
    try:
        article = parse_wikitext(
            page.title,
            page.wikitext,
            page_id=page.id,
            url=page.url,
            language=page.language or options.language,
            namespaces=_namespaces(page.namespace_names, page.language or options.language),
            see_also_titles=options.see_also_titles,
            source=page.source,
            template_counts=template_counts,
        )
    except RecursionError:
        return Skipped("parse-error", page.file, page.title, "markup nested too deeply to parse")
    except Exception as error:  # one bad page must not end a long run; it is counted with its message
        return Skipped("parse-error", page.file, page.title, f"{type(error).__name__}: {error}")
    if not article.abstract and not any(section.text for section in article.sections):
        return Skipped("no-text", page.file, page.title, "no text left once markup is removed")
    return article


def read_articles(
    module: ModuleType, path: str | Path, options: ReaderOptions = ReaderOptions()
) -> Iterator[Article | Redirect | Skipped]:
    """The records of one input file as Articles, Redirects and Skipped records, whichever reader its format
    module has: ``read`` as it is, or ``read_raw`` with every :class:`RawPage` parsed here."""
    if not hasattr(module, "read_raw"):
        yield from module.read(Path(path), options)
        return
    for record in module.read_raw(path, options):
        yield parse_page(record, options) if isinstance(record, RawPage) else record
