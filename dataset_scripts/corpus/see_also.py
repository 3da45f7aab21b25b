"""The See also section: which heading names it, and which articles it lists.

Editors write the heading with any spacing and case (``==See also==``, ``== See Also ==``), and the list in
many shapes: bullet lists of (piped) links, wrapped in ``{{div col}}`` or inside ``{{columns-list|...}}``,
``{{annotated link|Foo}}`` entries, a ``{{main|Foo}}`` hatnote. Portal boxes and book links are not articles.
"""

from __future__ import annotations

import re

import mwparserfromhell

from .titles import ENGLISH, Namespaces, classify_link, normalize_title

SEE_ALSO_TITLES: dict[str, tuple[str, ...]] = {
    "en": ("see also", "related articles", "related pages"),
    "de": ("siehe auch",),
    "fr": ("voir aussi", "articles connexes"),
    "es": ("véase también",),
    "it": ("voci correlate",),
    "nl": ("zie ook",),
    "pt": ("ver também",),
    "af": ("sien ook",),
    "nn": ("sjå òg", "sjå også"),
    "no": ("se også",),
    "sv": ("se även",),
    "ltg": ("verīs taipoš",),
    "lv": ("skatīt arī",),
}
"""Built-in See also heading names per language code (compared case-insensitively). English is always on."""

# Templates whose first positional parameter is an article the section points to.
_TARGET_TEMPLATES = frozenset({"annotated link", "anl", "main", "further", "see also", "section link"})
_HEADING_KEY = re.compile(r"[\s_]+")


def heading_key(title: str) -> str:
    """A heading compared loosely: case-folded, white space folded, trailing punctuation (WikiExtractor's ".")
    and a trailing colon removed."""
    return _HEADING_KEY.sub(" ", title).strip().rstrip(".:").strip().casefold()


def see_also_names(language: str = "en", extra: tuple[str, ...] = ()) -> frozenset[str]:
    """The heading keys that mark the See also section for ``language`` (English always included)."""
    names = set(SEE_ALSO_TITLES["en"]) | set(SEE_ALSO_TITLES.get(language, ())) | set(extra)
    return frozenset(heading_key(n) for n in names)


def see_also_targets(section_wikitext: str, namespaces: Namespaces = ENGLISH) -> list[str]:
    """Article titles listed in the wikitext of a See also section, in order, without duplicates.

    Links nested in list templates count; links to files, categories, portals, other wikis, other languages
    and sections of the same page do not.
    """
    code = mwparserfromhell.parse(section_wikitext)
    targets: list[str] = []
    for node in code.ifilter(
        recursive=True, forcetype=(mwparserfromhell.nodes.Wikilink, mwparserfromhell.nodes.Template)
    ):
        if isinstance(node, mwparserfromhell.nodes.Wikilink):
            raw = str(node.title)
        else:
            name = heading_key(str(node.name))
            if name not in _TARGET_TEMPLATES or not node.has("1"):
                continue
            raw = str(node.get("1").value)
        if "{{" in raw or classify_link(raw, namespaces) != "article":
            continue
        title = normalize_title(raw)
        if title and title not in targets:
            targets.append(title)
    return targets
