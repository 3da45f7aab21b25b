"""Page titles and namespaces: normalising link targets the way MediaWiki resolves them."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

# Namespace names (and their common aliases) whose links never point at an article: their text is not kept.
MEDIA_NAMESPACES = frozenset({"file", "image", "media", "category"})
# English names of the other namespaces: a link there keeps its anchor text but is not an article link.
OTHER_NAMESPACES = frozenset(
    {
        "talk", "user", "user talk", "wikipedia", "wikipedia talk", "wp", "project", "file talk", "mediawiki",
        "mediawiki talk", "template", "template talk", "help", "help talk", "category talk", "portal",
        "portal talk", "book", "book talk", "draft", "draft talk", "timedtext", "timedtext talk", "module",
        "module talk", "special", "wikt", "wiktionary", "s", "wikisource", "q", "wikiquote", "commons", "meta",
        "m", "mw", "n", "wikinews", "b", "wikibooks", "v", "wikiversity", "voy", "wikivoyage", "species", "d",
        "wikidata", "iarchive", "gutenberg", "doi",
        # Wikimedia's interwiki prefixes: a link there leaves the wiki, it is no article of it
        "w", "wikispecies", "incubator", "c", "mediawikiwiki", "metawikimedia", "metawikipedia", "foundation",
        "wmf", "wikimedia", "wikitech", "phab", "phabricator", "outreach", "testwiki", "oldwikisource", "sources",
        "translatewiki", "betawikiversity", "toollabs", "gerrit", "mediazilla", "bugzilla", "oldid", "diff", "rev",
        "lexeme", "wikifunctions", "f", "betawiki", "labs", "sulutil", "quality", "strategy",
        "usability", "otrs", "ticket", "wg", "mail", "mailarchive", "tools", "wikiapiary", "wikia", "fandom",
    }
)  # fmt: skip
CATEGORY_KEY = 14
"""The number of the Category namespace in every wiki."""
CATEGORY_NAMESPACES = frozenset({"category"})
_INTERLANGUAGE = re.compile(r"^[a-z]{2,3}(?:-[a-z]{2,8})*$")
_FILE_NAME = re.compile(r"\.[A-Za-z0-9]{2,5}\s*$")
_SPACES = re.compile(r"[\s_]+")


@dataclass(frozen=True)
class Namespaces:
    """Which link prefixes are media/category namespaces and which are other non-article namespaces.

    English names are always included; a dump's ``<siteinfo>`` adds its own localised names (e.g. ``Datei``,
    ``Kategorija``) through :meth:`with_names`, MediaWiki's language files their aliases (``Hình``, ``Εικόνα``,
    ``画像``) through :meth:`with_aliases` (see :mod:`~dataset_scripts.corpus.mediawiki_languages`). ``category``
    holds the names of the Category namespace alone (number 14), which are also in ``media``.
    """

    media: frozenset[str] = MEDIA_NAMESPACES
    other: frozenset[str] = OTHER_NAMESPACES
    category: frozenset[str] = CATEGORY_NAMESPACES

    def with_names(self, names_by_key: dict[int, str]) -> Namespaces:
        """Add a dump's localised namespace names (``{key: name}`` from ``<siteinfo>``)."""
        return self.with_aliases({key: (name,) for key, name in names_by_key.items() if name})

    def with_aliases(self, names_by_key: dict[int, tuple[str, ...]]) -> Namespaces:
        """Add every name and alias of each namespace (``{key: names}``, from MediaWiki's language files)."""
        media = {_namespace_key(n) for k, ns in names_by_key.items() if k in (-2, 6, 14) for n in ns}
        other = {_namespace_key(n) for k, ns in names_by_key.items() if k not in (0, -2, 6, 14) for n in ns}
        category = {_namespace_key(n) for n in names_by_key.get(CATEGORY_KEY, ())}
        return Namespaces(self.media | media, self.other | (other - media), self.category | category)


ENGLISH = Namespaces()


def normalize_title(title: str) -> str:
    """A link target as the page title it resolves to: entities and %-escapes decoded, underscores and runs of
    white space as one space, the fragment (``#Section``) dropped, the first letter upper-cased (MediaWiki's
    ``first-letter`` case rule)."""
    if "&" in title:
        title = html.unescape(title)
    if "%" in title:
        title = unquote(title)
    title = title.split("#", 1)[0]
    if "_" in title or "  " in title or not title.isprintable():
        title = _SPACES.sub(" ", title)
    title = title.strip().lstrip(":").strip()
    return title[:1].upper() + title[1:]


def classify_link(target: str, namespaces: Namespaces = ENGLISH) -> str:
    """Classify a wikilink target: ``"article"``, ``"media"`` (file/image/category: drop its text),
    ``"interlanguage"`` (drop), ``"other"`` (another namespace or wiki: keep its text, no link) or ``"self"``
    (a section of the same page, ``[[#Foo]]``)."""
    stripped = target.strip()
    if stripped.startswith("#"):
        return "self"
    leading_colon = stripped.startswith(":")
    prefix, sep, _ = stripped.lstrip(":").partition(":")
    if not sep:
        return "article"
    prefix = _namespace_key(prefix)
    if prefix in namespaces.media:
        return "other" if leading_colon else "media"
    if prefix in namespaces.other:
        return "other"
    if _INTERLANGUAGE.match(prefix):
        return "other" if leading_colon else "interlanguage"
    return "article"


def shown_title(target: str, namespaces: Namespaces = ENGLISH) -> str:
    """The text a link with no text of its own shows, as read: an article's title as written; for a link to
    another namespace or wiki (``[[:Category:宮崎県の企業|]]``, ``[[w:Charles Lyell]]``) the title without its
    namespace and interwiki prefixes (MediaWiki's pipe trick); for a file shown as a link, nothing."""
    title = target.strip().lstrip(":").strip()
    media = False
    while ":" in title:
        prefix, _, rest = title.partition(":")
        key = _namespace_key(prefix)
        if key in namespaces.media:
            media = True
        elif key not in namespaces.other and not _INTERLANGUAGE.match(key):
            break
        title = rest.strip()
    return "" if media and _FILE_NAME.search(title) else title


def _namespace_key(name: str) -> str:
    """A namespace name as prefixes are compared: white space and underscores as one space, lower case."""
    return _SPACES.sub(" ", name).strip().lower()


def category_name(target: str, namespaces: Namespaces = ENGLISH) -> str:
    """The category a wikilink target puts its page in (``Category:1821_births`` → ``1821 births``, ``Категория:
    Языки`` with the Russian names), or ``""`` when it is no category link: another namespace, or a colon link
    (``[[:Category:X]]`` links to the category page, it does not categorise). The sort key after ``|`` is not part
    of ``target``."""
    stripped = target.strip()
    prefix, sep, name = stripped.partition(":")
    if not sep or _namespace_key(prefix) not in namespaces.category:
        return ""
    return normalize_title(name)


def category_from_title(title: str) -> str:
    """A category page's title without its namespace, whatever the language (``Kategorie:Begriffsklärung`` →
    ``Begriffsklärung``): for titles known to be categories (Parsoid's category links, Enterprise's ``categories``
    list), where the namespace is the text before the first colon (a namespace name has none)."""
    _, sep, name = normalize_title(title).partition(":")
    return normalize_title(name) if sep else ""


def categories_from_titles(titles: Iterable[str]) -> list[str]:
    """The categories of category page titles (:func:`category_from_title`), each once, in order."""
    return list(dict.fromkeys(name for name in map(category_from_title, titles) if name))
