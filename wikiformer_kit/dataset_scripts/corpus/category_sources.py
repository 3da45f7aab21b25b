"""Where a corpus's ``categories`` come from, by input format: what the corpus card says of them.

The formats see different categories of the same page: wikitext holds the category links editors wrote, the
rendered page (Parsoid HTML) also those its templates add (an infobox's, a maintenance box's), and most formats
have none (see :mod:`.article`).
"""

from __future__ import annotations

from collections.abc import Iterable

CATEGORY_SOURCES = {
    "mediawiki-xml": "the category links written in the wikitext (`[[Category:Name|sort key]]` under every name and "
    "alias of the Category namespace in the wiki's language and the dump's `<siteinfo>`); the categories templates "
    "add are not in the wikitext",
    "wikitext": "the category links written in the wikitext (`[[Category:Name|sort key]]` under every name and alias "
    "of the Category namespace in the page's language); the categories templates add are not in the wikitext",
    "enterprise-html": 'the rendered page\'s category links (`link[rel="mw:PageProp/Category"]`: every category, '
    "the ones templates add included), then the record's own `categories` list",
    "structured-contents": "the record's `categories` list when it has one (the records Wikimedia publishes have none: "
    "their list is empty)",
}
"""Input format → what its articles' categories are read from; a format not named here records none."""


def categories_note(formats: Iterable[str]) -> str:
    """One sentence for the corpus card: whether ``categories`` are recorded, and from what, for each input format."""
    formats = list(dict.fromkeys(formats))
    read = [f"{name}: {CATEGORY_SOURCES[name]}" for name in formats if name in CATEGORY_SOURCES]
    without = [name for name in formats if name not in CATEGORY_SOURCES]
    parts = []
    if read:
        parts.append(
            "`categories` holds each article's categories by name (no namespace, no sort key), from " + "; ".join(read)
        )
    if without:
        parts.append(
            f"{', '.join(without)} input{'s have' if len(without) > 1 else ' has'} no categories: the list is empty"
        )
    return ". ".join(parts) + "."
