"""Inline templates that carry text, rendered as Wikipedia shows them instead of being cut out.

Most templates are infoboxes, citations, navigation boxes or maintenance tags, and are removed with everything
else that is not text (:func:`~dataset_scripts.corpus.wikitext.strip_non_text`). A few stand inside a sentence and
*are* its words: ``{{convert|5|km|mi}}`` ("5 km"), ``{{lang|grc|ἄγαλμα}}``, ``{{nowrap|10 May}}``; removing them
leaves "a statue is "delight" (, agalma)". WikiExtractor, which made the paper's data, renders some of them too.

:data:`RENDERERS` maps a template name (compared case-insensitively, ``_`` as a space) to a function of its
positional and named parameters, already rendered to plain wikitext; :data:`PREFIX_RENDERERS` covers families
(``lang-grc``, ``IPA-de``). Extend either table to render more templates; the output is wikitext, so links in it
stay links.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import mwparserfromhell

Renderer = Callable[[list[str], dict[str, str]], str]
_NESTING = re.compile(r"[{}\[\]<>\n'\x00]")
"""What a template's parameters may not hold to be split by :func:`template_parameters` without a parse: the
characters of nesting markup, bold and italic quotes, line breaks and NUL (mwparserfromhell's own marker)."""

_RANGE_WORDS = frozenset({"-", "–", "to", "and", "or", "by", "x", "×", "to(-)", "and(-)", "+/-", "±"})
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def _arg(positional: list[str], index: int, default: str = "") -> str:
    return positional[index].strip() if len(positional) > index else default


def _convert(positional: list[str], named: dict[str, str]) -> str:
    """``{{convert|5|km|mi}}`` → "5 km"; ranges ``{{convert|1|to|2|km}}`` → "1 to 2 km", ``{{convert|1|-|2|km}}``
    → "1–2 km"."""
    text, rest = _arg(positional, 0), positional[1:]
    while len(rest) >= 2 and rest[0].strip() in _RANGE_WORDS:
        word = rest[0].strip().replace("(-)", "")
        text += "–" if word in ("-", "–") else f" {word} "
        text += rest[1].strip()
        rest = rest[2:]
    unit = rest[0].strip() if rest else ""
    return f"{text} {unit}".strip()


def _date(positional: list[str], named: dict[str, str]) -> str:
    """``{{start date|1990|5|1}}`` → "1 May 1990" (a one-argument ``{{date|...}}`` as given)."""
    parts = [p.strip() for p in positional if p.strip()]
    if len(parts) == 1 or not all(p.isdigit() for p in parts[:3]):
        return parts[0] if parts else ""
    year, month = parts[0], int(parts[1]) if len(parts) > 1 else 0
    month_name = _MONTHS[month - 1] if 1 <= month <= 12 else ""
    day = str(int(parts[2])) if len(parts) > 2 else ""
    return " ".join(p for p in (day, month_name, year) if p)


def _val(positional: list[str], named: dict[str, str]) -> str:
    """``{{val|1.23|0.01|e=5|u=m}}`` → "1.23±0.01×10^5 m"."""
    text = _arg(positional, 0)
    if len(positional) > 1 and positional[1].strip():
        text += ("±" if len(positional) == 2 else f"+{positional[1].strip()}−") + (
            positional[1].strip() if len(positional) == 2 else _arg(positional, 2)
        )
    if named.get("e", "").strip():
        text += f"×10^{named['e'].strip()}"
    unit = (named.get("u") or named.get("ul") or "").strip()
    return f"{text} {unit}".strip()


def _nihongo(positional: list[str], named: dict[str, str]) -> str:
    """``{{nihongo|Tokyo|東京|Tōkyō}}`` → "Tokyo (東京, Tōkyō)"."""
    english = _arg(positional, 0)
    others = ", ".join(p.strip() for p in positional[1:3] if p.strip())
    return f"{english} ({others})" if english and others else english or others


def _as_of(positional: list[str], named: dict[str, str]) -> str:
    words = "as of" if named.get("lc", "").strip() in ("y", "yes") else "As of"
    return f"{words} {_date(positional, named)}".strip()


def _first(positional: list[str], named: dict[str, str]) -> str:
    return _arg(positional, 0)


def _second(positional: list[str], named: dict[str, str]) -> str:
    """The text of ``{{lang|fr|texte}}``-like templates (the first parameter is a code)."""
    return _arg(positional, 1) or _arg(positional, 0)


def _last(positional: list[str], named: dict[str, str]) -> str:
    return next((p.strip() for p in reversed(positional) if p.strip()), "")


def _joined(separator: str) -> Renderer:
    return lambda positional, named: separator.join(p.strip() for p in positional if p.strip())


def _constant(text: str) -> Renderer:
    return lambda positional, named: text


def _prefixed(prefix: str) -> Renderer:
    return lambda positional, named: f"{prefix} {_arg(positional, 0)}".strip()


def _circa(positional: list[str], named: dict[str, str]) -> str:
    return f"c. {_joined('–')(positional, named)}".strip()


def _frac(positional: list[str], named: dict[str, str]) -> str:
    """``{{frac|1|2}}`` → "1/2", ``{{frac|3|1|2}}`` → "3 1/2"."""
    parts = [p.strip() for p in positional]
    if len(parts) == 3:
        return f"{parts[0]} {parts[1]}/{parts[2]}"
    return "/".join(parts) if len(parts) == 2 else f"1/{parts[0]}" if parts else ""


def _bibleref(positional: list[str], named: dict[str, str]) -> str:
    return " ".join(p.strip() for p in positional[:2] if p.strip())


RENDERERS: dict[str, Renderer] = {
    "convert": _convert, "cvt": _convert,
    "lang": _second, "script": _second, "transl": _last, "transliteration": _last,
    "nowrap": _first, "nobr": _first, "nobreak": _first, "small": _first, "smaller": _first, "big": _first,
    "larger": _first, "sc": _first, "smallcaps": _first, "sup": _first, "sub": _first, "em": _first,
    "strong": _first, "nobold": _first, "noitalic": _first, "math": _first, "mvar": _first, "var": _first,
    "abbr": _first, "visible anchor": _first, "vanchor": _first, "not a typo": _first, "proper name": _first,
    "keypress": _joined(" + "), "angbr": lambda p, n: f"⟨{_arg(p, 0)}⟩", "resize": _last, "iast": _first,
    "ipa": _first, "oldstyledate": _first, "linktext": _joined(" "), "gaps": _joined(" "), "lsj": _last,
    "respell": lambda p, n: "-".join(x.strip() for x in p if x.strip().strip("'")), "chem": _joined(""), "chem2": _first, "bibleref": _bibleref, "hlist": _joined(", "),
    "flatlist": _first, "quote": _first, "blockquote": _first, "cquote": _first, "qi": _first,
    "val": _val, "nihongo": _nihongo, "as of": _as_of, "frac": _frac, "sfrac": _frac, "fraction": _frac,
    "date": _date, "start date": _date, "end date": _date, "birth date": _date, "death date": _date,
    "start date and age": _date, "birth date and age": _date, "circa": _circa, "c.": _circa,
    "hms": _prefixed("HMS"), "uss": _prefixed("USS"), "ss": _prefixed("SS"), "us$": _prefixed("US$"),
    "!": _constant("|"), "pipe": _constant("|"), "=": _constant("="), "'": _constant("'"), "'s": _constant("'s"),
    "ndash": _constant("–"), "mdash": _constant("—"), "snd": _constant(" – "), "spaced ndash": _constant(" – "),
    "nbsp": _constant(" "), "spaces": _constant(" "), "extinct": _constant("†"), "dagger": _constant("†"),
    "shy": _constant(""), "zwsp": _constant(""), "·": _constant(" · "), "dot": _constant(" · "),
    "middot": _constant(" · "), "·w": _constant(" · "), "•": _constant(" • "), "•w": _constant(" • "),
    "bull": _constant(" • "), "bullet": _constant(" • "),
}  # fmt: skip
"""Template name (lower case, ``_`` as a space) → renderer. Extend to render more templates."""

PREFIX_RENDERERS: dict[str, Renderer] = {"lang-": _first, "ipa-": _first, "ipac-": _constant("")}
"""Name prefix → renderer, for template families (``{{lang-grc|ἄγαλμα}}``, ``{{IPA-de|...}}``)."""


def template_name(wikitext: str) -> str:
    """The normalized name of the template ``{{Name|...}}`` (lower case, ``_`` and runs of spaces as one space)."""
    name = wikitext[2:].split("|", 1)[0].split("}}", 1)[0]
    return " ".join(name.replace("_", " ").split()).lower()


def renderer_for(name: str) -> Renderer | None:
    """The renderer of a normalized template name, or None when the template is removed."""
    if name in RENDERERS:
        return RENDERERS[name]
    return next((r for prefix, r in PREFIX_RENDERERS.items() if name.startswith(prefix)), None)


def render_template(wikitext: str, render_nested: Callable[[str], str]) -> str | None:
    """The wikitext a known inline template renders to, or None when it is not in the tables.

    Args:
        wikitext: one whole template, ``{{...}}``.
        render_nested: applied to each parameter value first (renders or strips templates nested in it).
    """
    renderer = renderer_for(template_name(wikitext))
    if renderer is None:
        return None
    parameters = template_parameters(wikitext)
    if parameters is None:
        return None
    positional: list[str] = []
    named: dict[str, str] = {}
    for showkey, key, value in parameters:
        value = render_nested(value)
        if showkey:
            named[key.strip().lower()] = value
        else:
            positional.append(value)
    return renderer(positional, named)


def template_parameters(wikitext: str) -> list[tuple[bool, str, str]] | None:
    """The parameters of the template ``{{...}}`` as mwparserfromhell reads them, each ``(named, name, value)``
    in the wikitext's own spelling (a positional one with an empty name); None when it is not a template.

    A template whose parameters hold none of the characters of :data:`_NESTING` (markup that nests) is
    split at its bars and first equals signs here, as mwparserfromhell splits it, at a tenth of the cost of its
    parse (tests/dataset_scripts/corpus/test_template_parameters.py compares the two).
    """
    body = wikitext[2:-2]
    if wikitext.startswith("{{") and wikitext.endswith("}}") and not _NESTING.search(body):
        parameters = []
        for parameter in body.split("|")[1:]:
            key, equals, value = parameter.partition("=")
            parameters.append((True, key, value) if equals else (False, "", parameter))
        return parameters
    parsed = mwparserfromhell.parse(wikitext).filter_templates(recursive=False)
    if not parsed:
        return None
    return [(param.showkey, str(param.name) if param.showkey else "", str(param.value)) for param in parsed[0].params]
