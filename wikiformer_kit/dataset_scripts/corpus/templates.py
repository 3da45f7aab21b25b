"""Inline templates that carry text, rendered as Wikipedia shows them instead of being cut out.

Most templates are infoboxes, citations, navigation boxes or maintenance tags, and are removed with everything
else that is not text (:func:`~dataset_scripts.corpus.wikitext.strip_non_text`). A few stand inside a sentence and
*are* its words: ``{{convert|5|km|mi}}`` ("5 km"), ``{{lang|grc|ἄγαλμα}}``, ``{{仮リンク|表示|en|Title}}``,
``{{нп|Назва|текст|en|Title}}``, ``{{s-|XIV}}`` ("XIVe siècle"); removing them leaves "a statue is "delight"
(, agalma)" or "は、自然科学の一分野である". WikiExtractor, which made the paper's data, renders some of them too.

Which template renders how is data: ``data/mediawiki/templates.json`` names, per wiki language (``*``: every
wiki), each template's rule (:data:`RULES`: the first parameter, a display parameter among several, a gloss in
brackets, a French century ...), name prefixes and name patterns for families (``lang-grc``, ``{{XIVe siècle}}``),
and the templates known to show no words of the text (footnotes, maintenance tags, icons), which are removed
without being reported. A template's own language entry wins over ``*``. :data:`RENDERERS` and
:data:`PREFIX_RENDERERS` hold the ``*`` entries; extend them, or the table, to render more templates. The output
is wikitext, so links in it stay links.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

import mwparserfromhell

from wikiformer_kit.dataset_scripts.corpus.countries import country_name
from wikiformer_kit.dataset_scripts.corpus.navigation import month_names
from wikiformer_kit.home import kit_file

Renderer = Callable[[list[str], dict[str, str]], str]
"""A rendering: the positional parameters (already rendered) and the named ones (lower-case keys, with each
positional parameter also under its number, ``"1"``, ``"2"``, as MediaWiki numbers them) → wikitext."""

TABLE = kit_file("data/mediawiki/templates.json")
"""The table of templates that carry words, per language."""

_NESTING = re.compile(r"[{}\[\]<>\n'\x00]")
"""What a template's parameters may not hold to be split by :func:`template_parameters` without a parse: the
characters of nesting markup, bold and italic quotes, line breaks and NUL (mwparserfromhell's own marker)."""

_RANGE_WORDS = frozenset({"-", "–", "to", "and", "or", "by", "x", "×", "to(-)", "and(-)", "+/-", "±"})
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_ROMAN = re.compile(r"[IVXLCDM]+")


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


def _as_of(positional: list[str], named: dict[str, str]) -> str:
    words = "as of" if named.get("lc", "").strip() in ("y", "yes") else "As of"
    return f"{words} {_date(positional, named)}".strip()


def _local_date(language: str, order: str = "dmy", before: str = "", year_word: str = "") -> Renderer:
    """A date in the words of ``language``'s wiki, its parts in ``order`` (``d``, ``m``, ``y``; a month by number
    or by its English name): ``{{ДН|14|3|1854}}`` → "14 березня 1854", ``{{Tính đến|2019|October|21}}`` →
    "Tính đến 21 tháng 10 năm 2019"."""
    months = month_names(language)

    def render(positional: list[str], named: dict[str, str]) -> str:
        parts = dict(zip(order, (p.strip() for p in positional), strict=False))
        day, month, year = parts.get("d", ""), parts.get("m", ""), parts.get("y", "")
        number = int(month) if month.isdigit() else _MONTHS.index(month.title()) + 1 if month.title() in _MONTHS else 0
        month = months[number - 1] if 1 <= number <= len(months) else month
        year = f"{year_word} {year}".strip() if year else ""
        return " ".join(p for p in (before, str(int(day)) if day.isdigit() else day, month, year) if p)

    return render


def _first(positional: list[str], named: dict[str, str]) -> str:
    return _arg(positional, 0)


def _second(positional: list[str], named: dict[str, str]) -> str:
    """The text of ``{{lang|fr|texte}}``-like templates (the first parameter is a code)."""
    return _arg(positional, 1) or _arg(positional, 0)


def _last(positional: list[str], named: dict[str, str]) -> str:
    return next((p.strip() for p in reversed(positional) if p.strip()), "")


def _circa(positional: list[str], named: dict[str, str]) -> str:
    return f"c. {'–'.join(p.strip() for p in positional if p.strip())}".strip()


def _frac(positional: list[str], named: dict[str, str]) -> str:
    """``{{frac|1|2}}`` → "1/2", ``{{frac|3|1|2}}`` → "3 1/2"."""
    parts = [p.strip() for p in positional]
    if len(parts) == 3:
        return f"{parts[0]} {parts[1]}/{parts[2]}"
    return "/".join(parts) if len(parts) == 2 else f"1/{parts[0]}" if parts else ""


def _bibleref(positional: list[str], named: dict[str, str]) -> str:
    return " ".join(p.strip() for p in positional[:2] if p.strip())


def _respell(positional: list[str], named: dict[str, str]) -> str:
    return "-".join(x.strip() for x in positional if x.strip().strip("'"))


def _join(separator: str = " ") -> Renderer:
    """Every non-empty positional parameter, joined (``{{hlist|a|b}}`` → "a, b", ``{{unité|3797|m}}``)."""
    return lambda positional, named: separator.join(p.strip() for p in positional if p.strip())


def _constant(text: str = "") -> Renderer:
    return lambda positional, named: text


def _prefix(text: str) -> Renderer:
    """``{{HMS|Victory}}`` → "HMS Victory"."""
    return lambda positional, named: f"{text} {_arg(positional, 0)}".strip()


def _wrap(before: str = "", after: str = "") -> Renderer:
    """The first parameter between two strings (``{{incise|x}}`` → "— x —"; nothing when it is empty)."""
    return lambda positional, named: f"{before}{text}{after}" if (text := _arg(positional, 0)) else ""


def _display(keys: list[str]) -> Renderer:
    """The first non-empty of the named or numbered parameters ``keys``: what an interlanguage-link template
    shows (``{{ill|Local|de|Fremd|lt=Shown}}``: ``lt``, else ``1``; ``{{нп|Назва|текст|en|Title}}``: ``2``,
    else ``1``)."""
    return lambda positional, named: next((v.strip() for k in keys if (v := named.get(k, "")).strip()), "")


def _values(keys: list[str], separator: str = ", ") -> Renderer:
    """Every non-empty parameter of ``keys`` in that order (``{{zh|c=哀牢|p=Āiláo}}`` → "哀牢, Āiláo")."""
    return lambda positional, named: separator.join(v.strip() for k in keys if (v := named.get(k, "")).strip())


def _gloss(keys: list[str], open: str = " (", separator: str = ", ", close: str = ")") -> Renderer:
    """The first of ``keys`` with the others in brackets: ``{{読み仮名|物理学|ぶつりがく}}`` → "物理学（ぶつりがく）",
    ``{{nihongo|Tokyo|東京|Tōkyō}}`` → "Tokyo (東京, Tōkyō)"."""

    def render(positional: list[str], named: dict[str, str]) -> str:
        values = [named.get(k, "").strip() for k in keys]
        head, rest = values[0], [v for v in values[1:] if v]
        return f"{head}{open}{separator.join(rest)}{close}" if head and rest else head or separator.join(rest)

    return render


def _case(change: str) -> Renderer:
    """A case magic word's argument in that case: ``{{lc:ABC}}`` → "abc", ``{{ucfirst:abc}}`` → "Abc"."""
    changes: dict[str, Callable[[str], str]] = {
        "lower": str.lower,
        "upper": str.upper,
        "lower_first": lambda text: text[:1].lower() + text[1:],
        "upper_first": lambda text: text[:1].upper() + text[1:],
    }
    return lambda positional, named: changes[change](_arg(positional, 0))


def _century(suffix: str) -> Renderer:
    """A French century from its Roman number: ``{{s-|XIV}}`` → "XIVe siècle", ``{{s|I}}`` → "Ier siècle"."""

    def render(positional: list[str], named: dict[str, str]) -> str:
        number = _arg(positional, 0)
        if not _ROMAN.fullmatch(number):
            return f"{number}{suffix}".strip()
        return f"{number}{'er' if number == 'I' else 'e'}{suffix}"

    return render


RULES: dict[str, Callable[..., Renderer]] = {
    "first": lambda: _first, "second": lambda: _second, "last": lambda: _last, "convert": lambda: _convert,
    "date": lambda: _date, "val": lambda: _val, "as_of": lambda: _as_of, "frac": lambda: _frac,
    "circa": lambda: _circa, "bibleref": lambda: _bibleref, "respell": lambda: _respell, "join": _join,
    "constant": _constant, "prefix": _prefix, "wrap": _wrap, "display": _display, "values": _values,
    "gloss": _gloss, "century": _century, "case": _case, "local_date": _local_date,
}  # fmt: skip
"""Rule name (``rule`` of a table entry) → maker of a renderer from the entry's other fields."""


def _renderer(entry: str | dict) -> Renderer:
    """The renderer a table entry names: ``"first"`` or ``{"rule": "display", "keys": ["lt", "1"]}``."""
    fields = {"rule": entry} if isinstance(entry, str) else dict(entry)
    return RULES[fields.pop("rule")](**fields)


def _is_blank(entry: str | dict) -> bool:
    """Whether a table entry renders a constant without words (nothing, a space)."""
    return isinstance(entry, dict) and entry.get("rule") == "constant" and not entry.get("text", "").strip()


class LanguageTemplates:
    """One language's part of the table: renderers by name, by name prefix and by name pattern, and the
    templates known to show no words."""

    def __init__(self, entry: dict):
        self.renderers = {name: _renderer(rule) for name, rule in entry.get("render", {}).items()}
        self.prefixes = {prefix: _renderer(rule) for prefix, rule in entry.get("prefixes", {}).items()}
        self.name_patterns = [re.compile(pattern) for pattern in entry.get("name_patterns", [])]
        # a template the table renders as blank on purpose ({{IPAc-en}}, {{nbsp}}) shows no words of the text either
        self.without_words = frozenset(entry.get("without_words", [])) | {
            name for name, rule in entry.get("render", {}).items() if _is_blank(rule)
        }
        self.without_words_prefixes = tuple(entry.get("without_words_prefixes", [])) + tuple(
            prefix for prefix, rule in entry.get("prefixes", {}).items() if _is_blank(rule)
        )
        self.without_words_suffixes = tuple(entry.get("without_words_suffixes", []))

    def shows_no_words(self, name: str) -> bool:
        return (
            name in self.without_words
            or name.startswith(self.without_words_prefixes)
            or name.endswith(self.without_words_suffixes)
        )


def _table() -> dict[str, LanguageTemplates]:
    entries = json.loads(TABLE.read_text(encoding="utf-8"))["languages"]
    return {language: LanguageTemplates(entry) for language, entry in entries.items()}


_TABLES = _table()
EVERY_LANGUAGE = _TABLES.pop("*")
RENDERERS: dict[str, Renderer] = EVERY_LANGUAGE.renderers
"""Template name (lower case, ``_`` as a space) → renderer, for every wiki. Extend to render more templates."""
PREFIX_RENDERERS: dict[str, Renderer] = EVERY_LANGUAGE.prefixes
"""Name prefix → renderer, for template families (``{{lang-grc|ἄγαλμα}}``, ``{{IPA-de|...}}``)."""


def _language_table(language: str) -> LanguageTemplates | None:
    return _TABLES.get(language) or _TABLES.get(language.split("-")[0]) if language else None


def template_name(wikitext: str) -> str:
    """The normalized name of the template ``{{Name|...}}`` (lower case, ``_`` and runs of spaces as one space)."""
    return " ".join(_raw_name(wikitext).replace("_", " ").split()).lower()


def _raw_name(wikitext: str) -> str:
    return wikitext[2:].split("|", 1)[0].split("}}", 1)[0]


def _function_argument(wikitext: str) -> str:
    """The first argument of a parser function, ``{{formatnum:1234}}`` → "1234" (templates in it kept)."""
    if "{{" not in wikitext[2:-2]:
        return _raw_name(wikitext).split(":", 1)[1]
    parsed = mwparserfromhell.parse(wikitext).filter_templates(recursive=False)
    return str(parsed[0].name).partition(":")[2] if parsed else ""


def renderer_for(name: str, language: str = "") -> Renderer | None:
    """The renderer of a normalized template name in a wiki of ``language`` (its own entry first, then every
    wiki's), or None when the template is removed."""
    own = _language_table(language)
    for table in (own, EVERY_LANGUAGE) if own else (EVERY_LANGUAGE,):
        if name in table.renderers:
            return table.renderers[name]
        for prefix, renderer in table.prefixes.items():
            if name.startswith(prefix):
                return renderer
    return None


def shows_no_words(name: str, language: str = "") -> bool:
    """Whether the table knows the template as one that shows no words of the text (a footnote, a maintenance
    tag, an icon): removed, and not reported as a template whose words were lost."""
    own = _language_table(language)
    return EVERY_LANGUAGE.shows_no_words(name) or bool(own and own.shows_no_words(name))


@lru_cache(maxsize=4096)
def _named_by_pattern(raw_name: str, language: str) -> bool:
    own = _language_table(language)
    return bool(own and any(pattern.match(raw_name) for pattern in own.name_patterns))


def render_template(wikitext: str, render_nested: Callable[[str], str], language: str = "") -> str | None:
    """The wikitext a known inline template renders to, or None when it is not in the tables.

    Args:
        wikitext: one whole template, ``{{...}}``.
        render_nested: applied to each parameter value first (renders or strips templates nested in it).
        language: the wiki's language code (its entry of the table applies before every wiki's).
    """
    name = template_name(wikitext)
    function, colon, _ = name.partition(":")
    if "{" in function:  # the colon is inside a template nested in the name, not a parser function's
        colon = ""
    renderer = renderer_for(f"{function}:" if colon else name, language)
    if renderer is None:
        raw_name = _raw_name(wikitext).strip()
        if (country := country_name(raw_name, language)) is not None:
            return country
        if not language or not _named_by_pattern(raw_name, language):
            return None
        # a template named by its own text ({{XIVe siècle}}, {{1er}}, {{84e|congrès}}): the name, then its text
        renderer = lambda positional, named: f"{raw_name} {_arg(positional, 0)}".strip()  # noqa: E731
    parameters = template_parameters(wikitext)
    if parameters is None:
        return None
    first = [render_nested(_function_argument(wikitext))] if colon else []  # {{formatnum:1234}}: after the colon
    positional, named = _numbered(first, [(showkey, key, render_nested(value)) for showkey, key, value in parameters])
    return renderer(positional, named)


def _numbered(first: list[str], parameters: list[tuple[bool, str, str]]) -> tuple[list[str], dict[str, str]]:
    """The positional and named parameters as MediaWiki numbers them: an unnamed parameter takes the next number,
    a named one whose name is a number (``{{lang-la|1=Anno Domini = Лето Господне}}``, where the text holds an
    equals sign) stands at that number, and of two values for one number the later wins. Numbers no parameter
    gives are empty; every numbered value is also under its number in the named ones."""
    numbered: dict[int, str] = dict(enumerate(first, 1))
    named: dict[str, str] = {}
    next_number = len(first) + 1
    for showkey, key, value in parameters:
        name = key.strip()
        if not showkey:
            numbered[next_number] = value
            next_number += 1
        elif name.isdecimal() and name.isascii() and (name == "0" or not name.startswith("0")):
            numbered[int(name)] = value.strip()  # MediaWiki trims named values, not unnamed ones
        else:
            named[name.lower()] = value
    positional = [numbered.get(number, "") for number in range(1, max(numbered, default=0) + 1)]
    for number, value in numbered.items():
        named[str(number)] = value
    return positional, named


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


CUT_KEY = "template_cut:"
"""The statistics key of a template cut from running text with its words: ``template_cut:NAME``."""
_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
_LINE_MARKERS = " \t*#:;"
_NOT_A_NAME = re.compile(r"[\[\]{}<>]|^$")
"""What no template name holds (MediaWiki's titles exclude these characters)."""


def in_running_text(text: str, start: int, end: int) -> bool:
    """Whether the template ``text[start:end]`` stands in running text: words before it on its line (other
    templates aside), or, for a template on one line, words after it or a list item of its own. An infobox or a
    navigation box on lines of its own is not."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    if "{{" in before:
        before = _TEMPLATE.sub("", before)
    if before.strip(_LINE_MARKERS):
        return True
    if "\n" in text[start:end]:
        return False
    if before.strip():  # "* {{仮リンク|...}}": the words of a list item
        return True
    line_end = text.find("\n", end)
    after = text[end : line_end if line_end >= 0 else len(text)].strip()
    return bool(after) and not after.startswith(("{{", "{|"))


def count_template(counts: Counter, text: str, start: int, end: int, rendered: str | None, language: str = "") -> None:
    """Count the template ``text[start:end]`` if it stands in running text (:func:`in_running_text`):
    ``templates_rendered`` for one that rendered words, ``templates_without_words`` (:func:`shows_no_words`, and
    the parser functions ``{{#if:...}}``), or ``template_cut:NAME`` for one whose words, if it had any, are lost:
    what to add to the table. A template the table renders but that rendered nothing (``{{formatnum:}}`` of a
    template that is cut) is counted as cut, unless the table also knows it as one that may show no words (a
    wrapper such as ``{{要出典|範囲=...}}`` without its text)."""
    if not in_running_text(text, start, end):
        return
    if rendered and not rendered.isspace():
        counts["templates_rendered"] += 1
        return
    name = template_name(text[start:end])
    function, colon, _ = name.partition(":")
    if colon and not _NOT_A_NAME.search(function):  # a parser function, {{formatnum:...}} or {{#if:...}}
        name = function + ":"  # counted by its function's name (its argument may hold templates)
    if _NOT_A_NAME.search(name):  # "{{" of TeX in <math> ({{a} \over {b}}), or markup: no template
        return
    if name.startswith("#") or shows_no_words(name, language):
        counts["templates_without_words"] += 1
    else:
        counts[CUT_KEY + name] += 1
