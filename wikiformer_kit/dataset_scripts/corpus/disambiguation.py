"""Whether a page is a disambiguation page, from the page itself in any language: the ``__DISAMBIG__`` magic word
(Extension:Disambiguator), a local disambiguation template, or a disambiguation category written on the page.

The template and category names are those the Wikipedias use (as listed on each wiki's
``MediaWiki:Disambiguationspage`` and in pywikibot's family files); English's are always checked, and the
page's language adds its own. Names compare case-insensitively with ``_`` as a space.
"""

from __future__ import annotations

import re
from functools import lru_cache

from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names

ENGLISH_TEMPLATES = (
    "disambiguation", "disambig", "dab", "disamb", "hndis", "geodis", "begriffsklärung", "begriffsklarung", "homonymie",
)  # fmt: skip
"""Checked on every page: the English names and the two most copied foreign ones."""
TEMPLATES: dict[str, tuple[str, ...]] = {
    "ar": ("توضيح", "disambig"),
    "arz": ("توضيح", "disambig"),
    "bg": ("пояснение", "многозначност"),
    "ca": ("desambiguació", "desambigua"),
    "ce": ("дукха маьӀнаш",),
    "ceb": ("giklaro", "disambig"),
    "cs": ("rozcestník",),
    "da": ("flertydig", "flertydige titler"),
    "de": ("begriffsklärung", "begriffsklarung"),
    "el": ("αποσαφήνιση", "disambig"),
    "eo": ("apartigilo", "apartigila paĝo"),
    "es": ("desambiguación", "desambig", "desambiguacion"),
    "et": ("täpsustuslehekülg", "täpsustus"),
    "eu": ("argipen",),
    "fa": ("ابهام‌زدایی", "ابهام زدایی", "ابهام‌زدائی"),
    "fi": ("täsmennyssivu", "täsmennys"),
    "fr": ("homonymie", "bandeau homonymie", "patronymie", "toponymie"),
    "he": ("פירושונים", "דף פירושונים"),
    "hi": ("बहुविकल्पी", "बहुविकल्पी शब्द"),
    "hr": ("razdvojba", "disambig"),
    "hu": ("egyért", "egyértelműsítő lap"),
    "hy": ("երկիմաստ", "բազմիմաստություն"),
    "id": ("disambig", "disambiguasi"),
    "it": ("disambigua", "disambiguazione"),
    "ja": ("aimai", "曖昧さ回避", "人名の曖昧さ回避", "地名の曖昧さ回避"),
    "kk": ("айрық",),
    "ko": ("동음이의", "동음이의어", "disambig"),
    "lt": ("nuorodinis", "disambig"),
    "ltg": ("zeimeibu škiršona",),
    "lv": ("nozīmju atdalīšana", "disambig"),
    "ms": ("nyahkekaburan", "disambig"),
    "nb": ("peker", "flertydig", "etternavn"),
    "nl": ("dp", "dpintro", "disambig"),
    "nn": ("fleirtyding", "peikar"),
    "no": ("peker", "flertydig", "etternavn"),
    "pl": ("ujednoznacznienie", "disambig"),
    "pt": ("desambiguação", "desambig", "dab"),
    "ro": ("dezambiguizare", "dezambig"),
    "ru": ("неоднозначность", "многозначность", "значения", "disambig"),
    "sh": ("višeznačna odrednica", "razvrstavanje"),
    "sk": ("rozlišovacia stránka",),
    "sl": ("razločitev",),
    "sr": ("вишезначна одредница", "вишезначност", "višeznačna odrednica"),
    "sv": ("förgrening", "gren", "förgreningssida"),
    "ta": ("பக்கவழி நெறிப்படுத்தல்",),
    "th": ("แก้ความกำกวม",),
    "tr": ("anlam ayrımı", "anlam ayrimi"),
    "tt": ("күп мәгънәле", "disambig"),
    "uk": ("неоднозначність", "багатозначність", "disambig"),
    "ur": ("ضد ابہام",),
    "vi": ("trang định hướng", "định hướng", "disambig"),
    "war": ("pansayod", "disambig"),
    "zh": ("disambig", "消歧义", "消歧義", "dab", "人名消歧义", "地名消歧义"),
}
"""Disambiguation templates per language code (the ones pages carry, without the ``Template:`` prefix)."""
CATEGORIES: dict[str, tuple[str, ...]] = {
    "de": ("begriffsklärung",),
    "fr": ("homonymie",),
    "ja": ("曖昧さ回避",),
    "ltg": ("zeimeibu škiršona",),
    "nl": ("doorverwijspagina",),
    "ru": ("страницы значений по алфавиту", "многозначные термины"),
    "uk": ("багатозначні терміни", "неоднозначні терміни"),
    "vi": ("trang định hướng",),
    "zh": ("消歧义", "消歧義"),
}
"""Disambiguation categories written on the page itself, per language (most wikis add them by template)."""


def _names(table: dict[str, tuple[str, ...]], language: str) -> tuple[str, ...]:
    return table.get(language) or table.get(language.split("-")[0], ())


def _alternatives(names) -> str:
    return "|".join(re.escape(n).replace(r"\ ", r"[ _]+") for n in sorted(set(names), key=len, reverse=True))


@lru_cache(maxsize=64)
def disambiguation_patterns(language: str = "en", category_prefixes: tuple[str, ...] = ()) -> tuple[re.Pattern, ...]:
    """The patterns of a disambiguation page of ``language`` (English names always included), any one of which
    marks it: a template, the magic word, and (where the language writes one) a category link with one of
    ``category_prefixes`` (the wiki's names of the Category namespace).

    Each is searched on its own: a pattern that starts with literal characters (``{{``, ``__``, ``[[``) is found
    by the regex engine's fast literal search, where one alternation of the three tries every position.
    """
    templates = _alternatives((*ENGLISH_TEMPLATES, *_names(TEMPLATES, language)))
    parts = [rf"\{{\{{\s*(?:{templates})\s*[|}}]", "__DISAMBIG__"]
    categories = _names(CATEGORIES, language)
    if categories and category_prefixes:
        prefixes = _alternatives(category_prefixes)
        parts.append(rf"\[\[\s*(?:{prefixes})\s*:\s*(?:{_alternatives(categories)})\s*[|\]]")
    return tuple(re.compile(part, re.I) for part in parts)


def is_disambiguation(wikitext: str, language: str = "en") -> bool:
    """Whether the page is a disambiguation page (see the module docstring); category links are recognised with
    the English and the language's names of the Category namespace (MediaWiki's language files)."""
    prefixes = ("category", *namespace_names(language).get(14, ()))
    return any(pattern.search(wikitext) is not None for pattern in disambiguation_patterns(language, prefixes))
