"""Wikitext to an :class:`Article`: plain text, the Wiki Structure Tree, links and See also targets.

The parsing is mwparserfromhell's. Before it runs, the parts of a page that never become text (comments,
``<ref>`` footnotes, templates and tables, nested to any depth) are cut out with a linear scan: they are half
of a typical article's bytes and most of mwparserfromhell's time, so this doubles the throughput without
changing what is extracted. The See also section is read from the page before that cut, since its list often
sits inside a template (``{{columns-list|...}}``).
"""

from __future__ import annotations

import functools
import html
import re
from collections import Counter
from collections.abc import Callable

from mwparserfromhell.parser import tokens as T
from mwparserfromhell.parser import use_c

if use_c:
    from mwparserfromhell.parser._tokenizer import CTokenizer as _Tokenizer
else:  # pragma: no cover - pure-Python fallback when the C extension is not built
    from mwparserfromhell.parser.tokenizer import Tokenizer as _Tokenizer

from wikiformer_kit.dataset_scripts.corpus.article import ROOT, Article, Link
from wikiformer_kit.dataset_scripts.corpus.broken_markup import contain_broken_markup, unstyle
from wikiformer_kit.dataset_scripts.corpus.disambiguation import is_disambiguation as page_is_disambiguation
from wikiformer_kit.dataset_scripts.corpus.hatnotes import drop_hatnote_lines
from wikiformer_kit.dataset_scripts.corpus.leftovers import (
    FORMULA_TAGS,
    cut_braced_tags,
    formula_text,
    strip_stray_tags,
)
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import is_media_link
from wikiformer_kit.dataset_scripts.corpus.navigation import drop_navigation_lines
from wikiformer_kit.dataset_scripts.corpus.see_also import (
    find_see_also_sections,
    knows_language,
    see_also_names,
    see_also_targets,
)
from wikiformer_kit.dataset_scripts.corpus.sentences import BLANK_LINE, SentenceFinder
from wikiformer_kit.dataset_scripts.corpus.templates import count_template, render_template
from wikiformer_kit.dataset_scripts.corpus.titles import (
    ENGLISH,
    Namespaces,
    category_name,
    classify_link,
    normalize_title,
    shown_title,
)
from wikiformer_kit.dataset_scripts.corpus.tree import build_sections

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
# a <ref> never closed is shown as text by MediaWiki: only its opening tag goes (the rest of the page stays)
_REF = re.compile(r"<ref\b[^>]*?/\s*>|<ref\b[^>]*>(?:.*?</ref\s*>)?", re.S | re.I)
# Tables open and close only at the start of a line; "\n" anchors them (a ^ with re.M made this scan 4x slower).
# A table may also open after an indent (": {|", a table shown indented). A line "|}}" ends a template's last
# parameter (empty) and the template, as MediaWiki's preprocessor matches braces before tables are read; "|}}}"
# closes a table inside a template, then the template.
_NESTED = re.compile(r"\{\{|\}\}|\n[ \t:]*\{\||\n[ \t]*\|\}(?!\}(?!\}))")
_TABLE_OPENING = re.compile(r"\n[ \t:]*\{\|[^\n]*")
_MAGIC = re.compile(r"__[A-Z]+__")
_LEFTOVER = re.compile(r"\[\[|\]\]|\{\{|\}\}|\{\||\|\}|<\s*/?\s*ref\b[^>]*>?", re.I)
# What a removed template leaves behind: brackets with nothing or only punctuation in them, punctuation just
# inside a bracket, punctuation doubled, a space before a comma (``Azerbaijan ({{lang-az|...}}, ...)``).
_DEBRIS = (
    (re.compile(r"[ \t]*[(\[][ \t]*(?:[,;:][ \t]*)*[)\]]"), ""),
    (re.compile(r"\([ \t]*(?:[,;:][ \t]*)+"), "("),
    (re.compile(r"(?:[ \t]*[,;:])+[ \t]*\)"), ")"),
    (re.compile(r"[,;:](?:[ \t]*[,;])+"), lambda m: m.group()[0]),
    (re.compile(r"(?<=\w)[ \t]+(?=[,;)](?:\s|$))"), ""),
    (re.compile(r"(?<=\()[ \t]+"), ""),
)
# Two characters that every piece of debris above holds (an opening bracket or a blank or punctuation before a
# closing bracket, a blank or punctuation before a comma or semicolon, a blank or punctuation after an opening
# bracket): most paragraphs have none, and one scan for them costs a tenth of the six passes. A pattern added above
# must only match where this does (tests/dataset_scripts/corpus/test_debris.py checks it).
_DEBRIS_HINT = re.compile(r"[)\],;](?<=[(\[ \t,;:][)\]]|[ \t,;:][,;])|\([ \t,;:]")
_REDIRECT = re.compile(r"^\s*#\s*(?:redirect|weiterleitung|redirection)\s*:?\s*\[\[([^\]|]+)", re.I)

DROPPED_TAGS = frozenset(
    {
        "ref", "references", "gallery", "score", "timeline", "imagemap", "graph",
        "mapframe", "maplink", "templatestyles", "table", "syntaxhighlight", "source", "pre", "includeonly",
        "hiero", "inputbox", "categorytree", "charinsert", "indicator", "section", "style", "script",
    }
)  # fmt: skip
BREAK_TAGS = frozenset({"br", "li", "dt", "dd", "hr", "p", "div", "tr", "blockquote"})
_TOKENIZER = _Tokenizer()
_LINK_TARGET_END = (T.WikilinkSeparator, T.WikilinkClose)
_TAG_OPENING_END = (T.TagCloseOpen, T.TagCloseSelfclose)
_SKIPPED = {T.TemplateOpen: T.TemplateClose, T.ArgumentOpen: T.ArgumentClose, T.CommentStart: T.CommentEnd}


def redirect_target(wikitext: str) -> str | None:
    """The target title if the wikitext is a redirect page (``#REDIRECT [[Target]]``), else None."""
    match = _REDIRECT.match(wikitext)
    return normalize_title(match.group(1)) if match else None


def strip_non_text(wikitext: str, language: str = "", template_counts: Counter | None = None) -> str:
    """Cut comments, references, templates and tables (nested to any depth) out of wikitext.

    Inline templates that carry text (``{{convert}}``, ``{{lang}}``, ``{{nowrap}}``, ``{{仮リンク}}`` ...: the
    table of :mod:`~dataset_scripts.corpus.templates`, ``language``'s entry first) are replaced by the wikitext
    they render to instead. ``template_counts``, given, counts the templates of running text: rendered, known to
    show no words, and cut by name (:func:`~dataset_scripts.corpus.templates.count_template`).

    An unclosed ``{{`` or ``{|`` keeps the text after it rather than losing the rest of the page.
    """
    if "{" not in wikitext and "}" not in wikitext and "<" not in wikitext:
        return wikitext  # nothing to cut, as in most parameters of a rendered template
    if "<!--" in wikitext:
        wikitext = _COMMENT.sub("", wikitext)
    if "<ref" in wikitext or "<REF" in wikitext or "<Ref" in wikitext:
        wikitext = _REF.sub("", wikitext)
    wikitext = "\n" + cut_braced_tags(wikitext)  # so that a table on the first line starts after a newline too
    out: list[str] = []
    depth, kept_from, opened_at, template_start = 0, 0, 0, -1
    for match in _NESTED.finditer(wikitext):
        opening = match.group()[-1] in "{|"
        if opening:
            if depth == 0:
                out.append(wikitext[kept_from : match.start()])
                opened_at = match.end()
                template_start = match.start() if match.group() == "{{" else -1
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                kept_from = match.end()
                if template_start >= 0 and match.group() == "}}":
                    rendered = render_template(
                        wikitext[template_start:kept_from],
                        lambda value: strip_non_text(value, language, template_counts),
                        language,
                    )
                    if rendered:
                        out.append(rendered)
                    if template_counts is not None:
                        count_template(template_counts, wikitext, template_start, kept_from, rendered, language)
    if depth and template_start < 0:  # an unclosed table: the lines that open tables hold attributes, not text
        line_end = wikitext.find("\n", opened_at)
        out.append(_TABLE_OPENING.sub("", wikitext[len(wikitext) if line_end < 0 else line_end :]))
    else:
        out.append(wikitext[opened_at if depth else kept_from :])
    return "".join(out).removeprefix("\n")


class _Buffer:
    """The plain text of one section being written, and the links in it with their offsets.

    Not :class:`~.formats._builder.TextBlock`, which folds white space as it is written and breaks paragraphs
    where the reader says: wikitext's paragraphs are blank lines and its leftover markup spans writes, so this
    keeps the raw text and cleans it once the section is complete (links' sentences are cut from the raw text).
    """

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.links: list[tuple[int, str, str]] = []  # (offset, target, anchor)

    def write(self, text: str) -> None:
        if text:
            self.parts.append(text)
            self.length += len(text)

    def finish(self, section: int) -> tuple[str, list[Link]]:
        """The section's clean text and its links with the sentence each stands in."""
        raw = "".join(self.parts)
        if not self.links:
            return _clean(raw), []
        finder = SentenceFinder(raw, BLANK_LINE)
        links, sentences = [], {}
        for offset, target, anchor in self.links:
            span = finder.around(offset, offset + max(len(anchor) - 1, 0))  # an anchor with a stop in it
            sentence = sentences.get(span)
            if sentence is None:
                sentence = sentences[span] = _clean(raw[span[0] : span[1]])
            links.append(Link(target=target, anchor=anchor, sentence=sentence, section=section))
        return _clean(raw), links


class _TokenWalker:
    """Writes plain text from mwparserfromhell's token stream.

    The tokenizer (C) is mwparserfromhell's; its tree builder (pure Python) cost twice as much as the
    tokenizer and built objects this walk would only read once, so the walk consumes the tokens directly. The
    stream is well nested by construction: every open token has its close.
    """

    def __init__(self, wikitext: str, namespaces: Namespaces):
        self.tokens = _TOKENIZER.tokenize(wikitext, 0, True)
        self.pos = 0
        self.namespaces = namespaces
        self.read_link = _link_reader(namespaces)
        self.categories: list[str] = []  # the category links met, in page order (repeats included)

    def peek(self) -> type:
        return type(self.tokens[self.pos])

    def until(self, buffer: _Buffer, stop: tuple[type, ...], record_links: bool = True) -> None:
        """Write tokens until one of type ``stop`` at this nesting level (left unconsumed) or the end."""
        tokens, count = self.tokens, len(self.tokens)
        while self.pos < count:
            token = tokens[self.pos]
            kind = type(token)
            if kind in stop:
                return
            if kind is T.Text and "''" not in (text := token["text"]) and "__" not in text:
                buffer.parts.append(text)  # the common case, inlined: most tokens are plain text
                buffer.length += len(text)
                self.pos += 1
            elif kind is T.WikilinkOpen:
                self._wikilink(buffer, record_links)
            else:
                self.one(buffer, record_links)

    def one(self, buffer: _Buffer, record_links: bool = True) -> None:
        """Write one token or one whole nested structure."""
        token = self.tokens[self.pos]
        kind = type(token)
        if kind is T.Text:
            text = token["text"]
            if "''" in text:
                text = unstyle(text)
            if "__" in text:
                text = _MAGIC.sub("", text)
            buffer.write(text)
            self.pos += 1
        elif kind is T.WikilinkOpen:
            self._wikilink(buffer, record_links)
        elif kind is T.TagOpenOpen:
            self._tag(buffer, record_links)
        elif kind is T.HTMLEntityStart:
            self._entity(buffer)
        elif kind is T.ExternalLinkOpen:
            self.pos += 1
            while self.peek() not in (T.ExternalLinkSeparator, T.ExternalLinkClose):
                self.pos += 1  # the URL
            if self.peek() is T.ExternalLinkSeparator:
                self.pos += 1
                self.until(buffer, (T.ExternalLinkClose,), record_links)
            self.pos += 1
        elif kind is T.HeadingStart:  # a heading nested in markup: its text only
            self.pos += 1
            buffer.write("\n\n")
            self.until(buffer, (T.HeadingEnd,), record_links)
            buffer.write("\n\n")
            self.pos += 1
        elif kind in _SKIPPED:
            self._skip(kind, _SKIPPED[kind])
        else:
            self.pos += 1

    def _skip(self, open_kind: type, close_kind: type, depth: int = 0) -> None:
        """Skip to the close of a nested structure: from its open token, or from inside it with ``depth`` 1."""
        while True:
            kind = type(self.tokens[self.pos])
            self.pos += 1
            depth += (kind is open_kind) - (kind is close_kind)
            if depth == 0:
                return

    def _entity(self, buffer: _Buffer) -> None:
        raw = ["&"]
        self.pos += 1
        while type(token := self.tokens[self.pos]) is not T.HTMLEntityEnd:
            kind = type(token)
            if kind is T.HTMLEntityNumeric:
                raw.append("#")
            elif kind is T.HTMLEntityHex:
                raw.append(token.get("char", "x"))
            raw.append(token.get("text") or "")
            self.pos += 1
        self.pos += 1
        buffer.write(html.unescape("".join(raw) + ";"))

    def _wikilink(self, buffer: _Buffer, record_links: bool) -> None:
        tokens = self.tokens
        self.pos += 1
        token = tokens[self.pos]
        if (
            type(token) is T.Text
            and type(tokens[self.pos + 1]) in _LINK_TARGET_END
            and "''" not in (raw_target := token["text"])
            and "__" not in raw_target
        ):
            self.pos += 1  # a plain target, as most are: what the walk below would write
        else:
            target_buffer = _Buffer()
            self.until(target_buffer, _LINK_TARGET_END, record_links=False)
            raw_target = "".join(target_buffer.parts)
        kind, target = self.read_link(raw_target)
        if kind == "media" and (category := category_name(raw_target, self.namespaces)):
            self.categories.append(category)
        if kind in ("media", "interlanguage") or ":" in raw_target and self._has_image_options(raw_target):
            self._skip(T.WikilinkOpen, T.WikilinkClose, depth=1)  # the rest of the link, a caption's links included
            return
        after_target = type(tokens[self.pos])
        if kind == "other" and after_target is T.WikilinkClose and _is_shown_media(raw_target, self.namespaces):
            self.pos += 1  # "[[:Category:X]]" unpiped: a pointer to a category or file, no words of the text
            return
        start, first_part = buffer.length, len(buffer.parts)
        piped = after_target is T.WikilinkSeparator
        if piped:
            self.pos += 1
            self.until(buffer, (T.WikilinkClose,), record_links=False)
        self.pos += 1
        anchor = "".join(buffer.parts[first_part:])  # the text written since ``start``
        if not anchor.strip():
            # a colon link or the pipe trick shows the title without its prefixes; "[[wikt:word]]" shows as written
            named = kind != "article" and (piped or raw_target.lstrip().startswith(":"))
            shown = shown_title(raw_target, self.namespaces) if named else raw_target.strip().lstrip(":")
            buffer.write(unstyle(shown))
            anchor = "".join(buffer.parts[first_part:])
        if record_links and kind == "article":
            folds = "  " in anchor or "\n" in anchor or not anchor.isprintable()
            anchor = " ".join(anchor.split()) if folds else anchor.strip()
            if target and anchor:
                buffer.links.append((start, target, anchor))

    def _has_image_options(self, raw_target: str) -> bool:
        """Whether the link's parameters are image options: a file link under a prefix no table names."""
        if self.peek() is not T.WikilinkSeparator:
            return False
        texts, position = [], self.pos + 1
        while position < len(self.tokens) and type(self.tokens[position]) is T.Text:
            texts.append(self.tokens[position]["text"])
            position += 1
        return is_media_link(raw_target, "".join(texts))

    def _tag(self, buffer: _Buffer, record_links: bool) -> None:
        self.pos += 1
        name_token = self.tokens[self.pos]
        name = name_token["text"].strip().lower() if type(name_token) is T.Text else ""
        tokens = self.tokens
        while type(tokens[self.pos]) not in _TAG_OPENING_END:
            self.pos += 1  # the attributes
        breaks = name in BREAK_TAGS
        if breaks:
            buffer.write("\n\n")
        if self.peek() is T.TagCloseSelfclose:
            self.pos += 1
            return
        self.pos += 1
        target = _Buffer() if name in DROPPED_TAGS or name in FORMULA_TAGS else buffer
        self.until(target, (T.TagOpenClose,), record_links)
        if name in FORMULA_TAGS:
            buffer.write(formula_text("".join(target.parts)))
        while self.peek() is not T.TagCloseClose:
            self.pos += 1  # the closing tag's name
        self.pos += 1
        if breaks:
            buffer.write("\n\n")


@functools.lru_cache(maxsize=8)
def _link_reader(namespaces: Namespaces) -> Callable[[str], tuple[str, str]]:
    """A link target's kind (:func:`~.titles.classify_link`) and the title it resolves to, under ``namespaces``:
    many links of a corpus point at the same pages (countries, years), so each spelling is read once; the reader
    is keyed by the target alone, as hashing the namespaces on every link cost as much as a lookup."""

    @functools.lru_cache(maxsize=1 << 16)
    def read_link(raw_target: str) -> tuple[str, str]:
        return classify_link(raw_target, namespaces), normalize_title(raw_target)

    return read_link


def _is_shown_media(raw_target: str, namespaces: Namespaces) -> bool:
    """Whether a link is a category or file link shown as a link (``[[:Category:X]]``)."""
    stripped = raw_target.strip()
    return stripped.startswith(":") and classify_link(stripped[1:], namespaces) == "media"


@functools.lru_cache(maxsize=64)
def _see_also_pointer(names: frozenset[str], media: frozenset[str]) -> re.Pattern:
    """A line that only says "see also" and links a category or file (``: ''See also'' [[:Category:X]]``)."""
    said = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in sorted(names, key=len, reverse=True))
    prefixes = "|".join(re.escape(n).replace(r"\ ", r"[\s_]+") for n in sorted(media, key=len, reverse=True))
    link = rf"\[\[\s*:\s*(?:{prefixes})\s*:[^\[\]]*\]\]"
    return re.compile(rf"^[:*# \t']*(?:{said})[\s'.:：]*(?:{link}[\s',;.]*)+$", re.M | re.I)


def clean_debris(text: str) -> str:
    """Remove the debris removed templates leave: empty or punctuation-only brackets, punctuation just inside a
    bracket, doubled commas or semicolons, a space before a comma, semicolon or closing bracket."""
    if not _DEBRIS_HINT.search(text):
        return text
    for pattern, replacement in _DEBRIS:
        text = pattern.sub(replacement, text)
    return text


def _clean(text: str) -> str:
    """Paragraphs (wikitext's blank-line breaks) one per line; a single newline is a space, as rendered."""
    if "[" in text or "{" in text or "}" in text or "<" in text or "|" in text:
        text = strip_stray_tags(_LEFTOVER.sub("", text))
    if "\n" not in text:  # one paragraph, as most sentences are: str.split folds any white space, in C
        return _paragraph(text)
    return "\n".join(p for p in (_paragraph(p) for p in BLANK_LINE.split(text)) if p)


def _paragraph(text: str) -> str:
    """One paragraph with its white space folded and its template debris cleaned."""
    text = " ".join(text.split())
    return clean_debris(text) if "(" in text or "[" in text or "," in text or ";" in text else text


def parse_wikitext(
    title: str,
    wikitext: str,
    *,
    page_id: str = "",
    url: str = "",
    language: str = "en",
    namespaces: Namespaces = ENGLISH,
    see_also_titles: tuple[str, ...] = (),
    source: str = "wikitext",
    template_counts: Counter | None = None,
) -> Article:
    """Parse one page of wikitext into an Article.

    ``page_id`` (the title when empty), ``url``, ``language`` and ``source`` are stored as they are; ``language``
    also picks the See also heading names, to which ``see_also_titles`` adds (given, they replace the detection of
    the section by its structure: see :mod:`.see_also`). ``template_counts``: see :func:`strip_non_text`.

    The abstract is the text before the first heading (headings inside templates are not headings of the page).
    The categories are those of the category links written in the page, each once; those a template adds (an
    infobox's, ``{{Authority control}}``'s) are not in the wikitext: only the rendered page (Parsoid HTML) has them.
    """
    names = see_also_names(language, see_also_titles)
    if "<!--" in wikitext:  # once, for both the See also scan and the text
        wikitext = _COMMENT.sub("", wikitext)
    is_disambiguation = page_is_disambiguation(wikitext, language)
    # a disambiguation page is lists throughout; given heading names replace the structural guess, and so do the
    # built-in names of the language (a known language's See also has its name: a guess there is a wrong section)
    by_structure = not see_also_titles and not is_disambiguation and not knows_language(language)
    sections, found_by = find_see_also_sections(wikitext, names, namespaces, by_structure=by_structure)
    see_also = list(dict.fromkeys(t for s in sections for t in see_also_targets(_REF.sub("", s), namespaces)))

    if "[[:" in wikitext:
        wikitext = _see_also_pointer(names, namespaces.media).sub("", wikitext)
    text, _ = drop_navigation_lines(strip_non_text(wikitext, language, template_counts), language)
    text, _ = drop_hatnote_lines(text, language)
    walker = _TokenWalker(contain_broken_markup(text), namespaces)
    headings: list[tuple[int, str, str]] = []
    links: list[Link] = []
    buffer = _Buffer()
    abstract = ""
    pending: tuple[int, str] | None = None  # (level, title) of the heading whose text is being written

    def close_section() -> None:
        nonlocal abstract
        index = len(headings) if pending else ROOT
        text, section_links = buffer.finish(index)
        links.extend(section_links)
        if pending is None:
            abstract = text
        else:
            headings.append((pending[0], pending[1], text))

    while True:
        walker.until(buffer, (T.HeadingStart,))
        if walker.pos >= len(walker.tokens):
            break
        token = walker.tokens[walker.pos]
        close_section()
        walker.pos += 1
        heading = _Buffer()
        walker.until(heading, (T.HeadingEnd,), record_links=False)
        walker.pos += 1
        pending = (token.level, _clean("".join(heading.parts)).replace("\n", " "))
        buffer = _Buffer()
    close_section()

    return Article(
        id=page_id or title,
        title=title,
        abstract=abstract,
        sections=build_sections(title, headings),
        links=links,
        see_also=see_also,
        see_also_found_by=found_by if see_also else "",
        url=url,
        source=source,
        language=language,
        is_disambiguation=is_disambiguation,
        categories=list(dict.fromkeys(walker.categories)),
    )
