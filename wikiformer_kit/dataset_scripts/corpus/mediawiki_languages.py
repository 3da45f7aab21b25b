"""What MediaWiki itself knows about a wiki's language: its namespace names and aliases, and the image options
(``thumb``, ``250px``, ``left``, ``alt=...`` and their translations) of a file link.

The table ``data/mediawiki/languages.json`` is generated from MediaWiki's language files by
``data/mediawiki/generate.py`` (source and licence in ``data/mediawiki/README.md``). A dump's ``<siteinfo>`` names
each namespace once; the aliases (``Hình:``, ``Εικόνα:``, ``画像:``) are only in the language files, and each
Wikipedia's own namespaces (``Portail:``, ``Портал:``, ``Anexo:``, ``Draft:``) and aliases only in Wikimedia's site
configuration: ``data/mediawiki/extra_namespaces.json``, by ``data/mediawiki/generate_extra_namespaces.py``.

Without a table entry a link is still recognised as media by its parameters (:func:`is_media_link`): a link
whose parameters are image options of any language in the table is a file link, whatever its prefix.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from wikiformer_kit.home import kit_file

TABLE = kit_file("data/mediawiki/languages.json")
"""The generated table (namespace names and image options per language)."""
EXTRA_NAMESPACES = kit_file("data/mediawiki/extra_namespaces.json")
"""The generated table of each Wikipedia's namespaces beyond MediaWiki core (number → names, per language)."""


@lru_cache(maxsize=1)
def _table() -> dict:
    return json.loads(TABLE.read_text(encoding="utf-8"))["languages"]


@lru_cache(maxsize=1)
def _extra_table() -> dict:
    return json.loads(EXTRA_NAMESPACES.read_text(encoding="utf-8"))["languages"]


def table_language(language: str) -> str:
    """The table's entry for a language code (``zh-yue`` falls back to ``zh``; ``""`` when none)."""
    table = _table()
    for code in (language, language.split("-")[0]):
        if code in table:
            return code
    return ""


@lru_cache(maxsize=64)
def namespace_names(language: str) -> dict[int, tuple[str, ...]]:
    """Namespace number → every name and alias a link may use in ``language``'s Wikipedia: MediaWiki's own, then
    the wiki's extra ones (empty for a language known to neither table)."""
    entry = _table().get(table_language(language))
    names = {int(key): list(names) for key, names in entry["namespaces"].items()} if entry else {}
    extra = _extra_table()
    for key, extra_names in extra.get(language, extra.get(language.split("-")[0], {})).items():
        known = names.setdefault(int(key), [])
        known.extend(name for name in extra_names if name not in known)
    return {key: tuple(found) for key, found in names.items()}


def _option_pattern(synonym: str) -> str:
    if "$1" not in synonym:
        return re.escape(synonym)
    before, _, after = synonym.partition("$1")
    # $1 of a width is a size ("250", "250x200", "x200"), of anything else (alt=, link=, upright=) any value
    value = r"\d*(?:x\d+)?" if after and not before else r".*"
    return re.escape(before) + value + re.escape(after)


@lru_cache(maxsize=1)
def _image_option() -> re.Pattern:
    """One pattern for the image options of every language of the table (case as MediaWiki compares them)."""
    sensitive, insensitive = set(), set()
    for entry in _table().values():
        for option in entry["image_options"].values():
            (sensitive if option["case_sensitive"] else insensitive).update(option["synonyms"])
    sensitive_part = "|".join(sorted(map(_option_pattern, sensitive), key=len, reverse=True))
    insensitive_part = "|".join(sorted(map(_option_pattern, insensitive), key=len, reverse=True))
    parts = [f"(?:{sensitive_part})"] + ([f"(?i:{insensitive_part})"] if insensitive_part else [])
    return re.compile(r"\s*(?:" + "|".join(parts) + r")\s*", re.S)


def is_image_option(parameter: str) -> bool:
    """Whether one parameter of a link is an image option (``thumb``, ``nhỏ``, ``250px``, ``alt=...``)."""
    return bool(parameter.strip()) and _image_option().fullmatch(parameter) is not None


def is_media_link(target: str, parameters: str) -> bool:
    """Whether a link with a prefix (``X:...``) is a file link by its parameters (the text after its first
    ``|``): one of the parameters before the last (the caption) is an image option, or its only parameter is."""
    if ":" not in target.lstrip(":") or target.lstrip().startswith(":"):
        return False
    pieces = parameters.split("|")
    options = pieces[:-1] if len(pieces) > 1 else pieces
    return any(is_image_option(piece) for piece in options)
