"""The See also section: which heading names it, which section is it when no name is known, and which articles
it lists.

Editors write the heading with any spacing and case (``==See also==``, ``== See Also ==``), and the list in
many shapes: bullet lists of (piped) links, wrapped in ``{{div col}}`` or inside ``{{columns-list|...}}``,
``{{annotated link|Foo}}`` entries, a ``{{main|Foo}}`` hatnote. Portal boxes and book links are not articles.

Finding the section (`find_see_also_sections`) uses two signals, in order:

1. the heading's name: the built-in table `SEE_ALSO_TITLES` (the 30 largest Wikipedias and a few more) for the
   dump's language, English, and any ``--see-also-title``;
2. when the table has no name for the language and none was given (`knows_language`): the section's
   structure (`looks_like_see_also`). A
   See also section is a late top-level section (only sections with little prose follow it: notes, references,
   external links) whose body is a list of internal links and list templates with little prose around them.
   This finds "Verīs taipoš", "Тағы қараңыз" or "ดูเพิ่ม" without knowing the words.
"""

from __future__ import annotations

import functools
import re

import mwparserfromhell

from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH, Namespaces, classify_link, normalize_title
from wikiformer_kit.dataset_scripts.corpus.words import word_spans

HEADING = re.compile(r"^(={1,6})[ \t]*(.+?)[ \t]*\1[ \t]*$", re.M)
"""A wikitext heading line (level = number of ``=``)."""

SEE_ALSO_TITLES: dict[str, tuple[str, ...]] = {
    # the 30 largest Wikipedias by articles (and their script variants), then smaller ones met in tests
    "en": ("see also", "related articles", "related pages"),
    "ceb": ("tan-awa usab", "kitaa usab", "tan-awa pud"),
    "de": ("siehe auch", "verwandte themen"),
    "fr": ("voir aussi", "articles connexes", "liens internes", "pages liées"),
    "sv": ("se även", "se också"),
    "nl": ("zie ook", "verwante artikelen"),
    "ru": ("см. также", "см также", "смотри также", "смотрите также", "см. тж."),
    "es": ("véase también", "ver también", "vea también", "artículos relacionados"),
    "it": ("voci correlate", "vedi anche", "voce correlata"),
    "pl": ("zobacz też", "zobacz także"),
    "arz": ("شوف كمان", "انظر أيضا", "انظر أيضًا", "اقرا كمان"),
    "zh": (
        "参见",
        "參見",
        "参看",
        "參看",
        "另见",
        "另見",
        "相关条目",
        "相關條目",
        "相关词条",
        "相關詞條",
        "參閱",
        "参阅",
    ),
    "ja": ("関連項目", "関連記事", "関連事項", "関連ページ"),
    "uk": ("див. також", "див також", "дивіться також", "дивись також", "також дивіться", "див. ще"),
    "vi": ("xem thêm", "bài liên quan", "bài viết liên quan", "các bài liên quan", "liên kết liên quan"),
    "war": ("kitaa liwat", "kitaa gihapon"),
    "ar": ("انظر أيضا", "انظر أيضًا", "انظر أيضاً", "طالع أيضا", "طالع أيضًا", "طالع أيضاً", "اقرأ أيضا"),
    "pt": ("ver também", "veja também", "artigos relacionados"),
    "fa": ("جستارهای وابسته", "همچنین ببینید"),
    "ca": ("vegeu també", "vegi també"),
    "id": ("lihat pula", "lihat juga"),
    "sr": ("види још", "видети још", "vidi još", "videti još", "погледајте још"),
    "ko": ("같이 보기", "함께 보기", "관련 항목"),
    "no": ("se også",),
    "nb": ("se også",),
    "ce": ("хьажа иштта", "хьажа кхин а"),
    "fi": ("katso myös",),
    "tr": ("ayrıca bakınız", "ayrıca bakın", "ayrıca bakiniz", "ilgili maddeler"),
    "hu": ("lásd még", "kapcsolódó szócikkek"),
    "cs": ("související články", "viz též", "viz také"),
    "tt": ("шулай ук карагыз", "шулай ук кара"),
    "sh": ("vidi još", "također pogledajte", "takođe pogledajte"),
    "ro": ("vezi și", "vezi şi"),
    "eu": ("ikus, gainera", "ikus gainera"),
    "he": ("ראו גם", "ראה גם"),
    "ms": ("lihat juga", "lihat pula"),
    "hy": ("տես նաև",),
    "bn": ("আরও দেখুন", "আরো দেখুন"),
    "mr": ("हे सुद्धा पहा", "हेही पहा"),
    "da": ("se også",),
    "bg": ("вижте също",),
    "eo": ("vidu ankaŭ",),
    "el": (
        "δείτε επίσης",
        "δείτε ακόμη",
        "δείτε ακόμα",
        "βλέπε επίσης",
        "βλ. επίσης",
        "σχετικά άρθρα",
        "σχετικά λήμματα",
    ),
    "hi": ("इन्हें भी देखें", "यह भी देखें"),
    "th": ("ดูเพิ่ม",),
    "af": ("sien ook",),
    "nn": ("sjå òg", "sjå også"),
    "ltg": ("verīs taipoš",),
    "lv": ("skatīt arī",),
}
"""Built-in See also heading names per language code (compared case-insensitively). English is always on."""

# Templates whose first positional parameter is an article the section points to.
_TARGET_TEMPLATES = frozenset({"annotated link", "anl", "main", "further", "see also", "section link"})
_HEADING_KEY = re.compile(r"[\s_]+")


@functools.lru_cache(maxsize=1 << 14)
def heading_key(title: str) -> str:
    """A heading compared loosely: case-folded, white space folded, trailing punctuation (WikiExtractor's ".")
    and a trailing colon (also the full-width one) removed. Read once per spelling: most headings of a corpus are
    the same few ("References", "External links")."""
    return _HEADING_KEY.sub(" ", title).strip().rstrip(".:：").strip().casefold()


def see_also_names(language: str = "en", extra: tuple[str, ...] = ()) -> frozenset[str]:
    """The heading keys that mark the See also section for ``language`` (English always included; a variant
    such as ``zh-hant`` or ``zh-yue`` falls back to its base language)."""
    own = SEE_ALSO_TITLES.get(language) or SEE_ALSO_TITLES.get(language.split("-")[0], ())
    names = set(SEE_ALSO_TITLES["en"]) | set(own) | set(extra)
    return frozenset(heading_key(n) for n in names)


def knows_language(language: str) -> bool:
    """Whether the built-in table names the See also heading of ``language`` (or of its base language); only
    where it does not is the section found by its structure."""
    return language in SEE_ALSO_TITLES or language.split("-")[0] in SEE_ALSO_TITLES


def heading_lines(wikitext: str) -> list[re.Match]:
    """The `HEADING` matches of ``wikitext`` in order, as ``HEADING.finditer`` gives them: the pattern is tried only
    where a line starts with ``=`` (found by ``str.find``), not at every character of the page."""
    starts = [0] if wikitext.startswith("=") else []
    position = wikitext.find("\n=")
    while position >= 0:
        starts.append(position + 1)
        position = wikitext.find("\n=", position + 1)
    return [match for start in starts if (match := HEADING.match(wikitext, start))]


FOUND_BY_NAME, FOUND_BY_STRUCTURE = "name", "structure"


def find_see_also_sections(
    wikitext: str, names: frozenset[str], namespaces: Namespaces = ENGLISH, by_structure: bool = True
) -> tuple[list[str], str]:
    """The raw wikitext of the See also section(s) of a page (comments already removed), and how they were found:
    every section whose heading is one of ``names`` (`see_also_names`), with its subsections, and ``"name"``; else,
    ``by_structure``, at most one section found by `looks_like_see_also` and ``"structure"``; else ``([], "")``."""
    headings = heading_lines(wikitext)

    def body(i: int) -> str:
        """The text under heading ``i``, its subsections included."""
        level = len(headings[i].group(1))
        end = next((h.start() for h in headings[i + 1 :] if len(h.group(1)) <= level), len(wikitext))
        return wikitext[headings[i].end() : end]

    named = [body(i) for i, heading in enumerate(headings) if heading_key(heading.group(2)) in names]
    if named or not by_structure:
        return named, FOUND_BY_NAME if named else ""
    bodies = [(len(heading.group(1)), heading.group(2), body(i)) for i, heading in enumerate(headings)]
    top_level = min((level for level, _, _ in bodies), default=2)
    top = [(title, body) for level, title, body in bodies if level == top_level]
    before = prose_words(_prose(wikitext[: headings[0].start()])) if headings else 0
    for position, (title, body) in enumerate(top):
        later = [b for _, b in top[position + 1 :]]
        if before >= MIN_PROSE_BEFORE and looks_like_see_also(title, body, later, namespaces):
            return [body], FOUND_BY_STRUCTURE
        before += prose_words(_prose(_strip_lists(body)))  # prose of the article body, lists aside
    return [], ""


_LIST_ITEM = re.compile(r"^[ \t]*[*#]+[ \t]*(.*)$", re.M)
_LIST_MARKS = re.compile(r"^[*#:;]{2,}", re.M)
"""A nested list item's markers: mwparserfromhell makes a node of each, so a list nested thousands deep takes
seconds to parse; one marker holds the same links."""
_WIKILINK = re.compile(r"\[\[([^\[\]|]*)(?:\|[^\[\]]*)?\]\]")
_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
_TABLE = re.compile(r"^[ \t]*\{\|(?:(?!^[ \t]*\{\|).)*?^[ \t]*\|\}", re.M | re.S)
_REF_TAG = re.compile(r"<ref\b[^>]*?/\s*>|<ref\b[^>]*>.*?</ref\s*>", re.S | re.I)
_EXTERNAL = re.compile(r"\[(?:https?:)?//[^\]]*\]|https?://\S+")
_CITATION = re.compile(r"<ref|\{\{\s*(?:cite|citation|reflist|refbegin|references|literatur|lien web|ouvrage)", re.I)
_DIGIT = re.compile(r"\d")  # years, pages, editions: a list of works or sources
_LIST_TEMPLATE = re.compile(r"\{\{\s*(?:[^{}|]*col[^{}|]*|columns?-list|annotated link|anl)\s*[|}]", re.I)
_ALNUM = re.compile(r"[^\W_]")
_LEAD_IN = re.compile(r"[^\W\d_][^\S\n]*[:：][^\S\n]*$", re.M)  # "Born there:", "Sights:": a list of things
MAX_ITEM_WORDS = 12
"""Words of prose an entry may carry besides its link (``* [[X]] – a short description``)."""
MAX_PROSE_WORDS = 40
"""Words of prose outside the list that a See also section may hold (a hatnote, a sentence of introduction)."""
LATE_PROSE_WORDS = 80
"""A section with more prose than this after the candidate means the candidate is not in the end matter."""
MIN_PROSE_BEFORE = 25
"""Words of prose the article must have before the candidate (a disambiguation page is all lists)."""
MIN_ENTRIES = 1
"""Entries a section needs (many See also sections list one article)."""
MAX_ITEM_LINKS = 2
"""Article links an entry may hold (``* [[X]] and [[Y]]``); more is a list of forms or sources, not See also."""


def prose_words(text: str) -> int:
    """Words of prose: the words of :func:`~dataset_scripts.corpus.words.word_spans` (scripts without spaces
    count as BERT splits them) that hold a letter or a digit (a lone dash is none)."""
    return sum(1 for start, end in word_spans(text) if _ALNUM.search(text, start, end))


def _without_templates(text: str) -> str:
    """Templates and tables removed, innermost first, to any depth (an unclosed one stays as text)."""
    previous = None
    while previous != text:
        previous, text = text, _TABLE.sub(" ", _TEMPLATE.sub(" ", text))
    return text


def _prose(text: str) -> str:
    """Text a reader sees as prose: links, templates, tables, references, external links and markup removed."""
    text = _REF_TAG.sub(" ", _without_templates(text))
    return re.sub(r"<[^>]*>|'{2,}|[\[\]{}|=]", " ", _EXTERNAL.sub(" ", _WIKILINK.sub(" ", text)))


def looks_like_see_also(title: str, body: str, later: list[str], namespaces: Namespaces = ENGLISH) -> bool:
    """Whether a top-level section (its heading, at most 5 words, and its wikitext) has the structure of a See also
    section (see the module docstring); ``later``: the bodies of the top-level sections after it (each must have
    little prose)."""
    if prose_words(title) > 5 or _CITATION.search(body) or HEADING.search(body):
        return False
    if any(prose_words(_prose(_strip_lists(_without_templates(b)))) > LATE_PROSE_WORDS for b in later):
        return False
    items = [item for item in _LIST_ITEM.findall(_TABLE.sub(" ", body)) if item.strip()]  # tables: lists of data
    templated = bool(_LIST_TEMPLATE.search(body))
    if not items and not templated:
        return False
    entries = links = 0
    for item in items:
        articles = [t for t in _WIKILINK.findall(item) if classify_link(t, namespaces) == "article"]
        prose = _prose(item)
        # the entry's own link may hold digits ("[[1997 Asian financial crisis]]"); the rest may not ("(2009)")
        rest = _WIKILINK.sub(lambda m: m.group(0).strip("[]").split("|")[-1], _WIKILINK.sub(" ", item, count=1))
        if 0 < len(articles) <= MAX_ITEM_LINKS and prose_words(prose) <= MAX_ITEM_WORDS and not _DIGIT.search(rest):
            entries += 1
            links += len(articles)
        elif _EXTERNAL.search(item):
            return False  # an external-links list
    if items and (entries < 0.75 * len(items) or links > 1.5 * entries):
        return False
    outside = _strip_lists(_without_templates(body))
    if prose_words(_prose(outside)) > MAX_PROSE_WORDS or _LEAD_IN.search(_prose(outside)):
        return False
    return entries >= MIN_ENTRIES or len(see_also_targets(body, namespaces)) >= MIN_ENTRIES


def _strip_lists(body: str) -> str:
    return _LIST_ITEM.sub(" ", body)


def see_also_targets(section_wikitext: str, namespaces: Namespaces = ENGLISH) -> list[str]:
    """Article titles listed in the wikitext of a See also section, in order, without duplicates.

    Links nested in list templates count; links to files, categories, portals, other wikis, other languages
    and sections of the same page do not.
    """
    code = mwparserfromhell.parse(_LIST_MARKS.sub("*", section_wikitext))
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
