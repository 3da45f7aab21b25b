"""Hatnotes: the notes at the top of a section that send the reader elsewhere ("Main article: X", "Див. також X",
"Κύριο λήμμα: X", "Bài chính: X"). They are not the section's text: kept, they glue "Κύριο λήμμα Συνθήκη της
Λωζάνης" to the paragraph after it.

Most hatnotes are templates (``{{Main}}``, ``{{Див. також}}``, ``{{Κύριο λήμμα}}``, ``{{Bài chính}}``): templates
are cut with everything that is not text (:func:`~dataset_scripts.corpus.wikitext.strip_non_text`), and
:data:`HATNOTE_TEMPLATES` names those a renderer must never render. Others are written by hand, a line that holds
the words of :data:`HATNOTE_PHRASES` and links and nothing else (in italics, indented, in a ``<div>``):
:func:`drop_hatnote_lines` removes those lines, or the italic note that opens a line before its paragraph.
"""

from __future__ import annotations

import re
from functools import lru_cache

HATNOTE_PHRASES: dict[str, tuple[str, ...]] = {
    "en": ("main article", "main articles", "see also", "further information", "further", "for more details see",
           "for more information see", "see", "details"),
    "de": ("hauptartikel", "siehe auch", "siehe", "weitere informationen", "ausführlicher artikel"),
    "fr": ("article détaillé", "articles détaillés", "article principal", "articles principaux", "voir aussi",
           "voir", "pour plus de détails, voir"),
    "es": ("artículo principal", "artículos principales", "véase también", "véase", "ver también", "ver"),
    "it": ("voce principale", "voci principali", "lo stesso argomento in dettaglio", "vedi anche", "vedi"),
    "nl": ("hoofdartikel", "zie ook", "zie"),
    "pt": ("artigo principal", "artigos principais", "ver artigo principal", "ver também", "veja também", "ver"),
    "ru": ("основная статья", "основные статьи", "см. также", "см.", "смотри также", "подробнее"),
    "uk": ("основна стаття", "основні статті", "див. також", "див.", "дивись також", "докладніше", "детальніше",
           "докладніше в статті", "докладніше в статтях", "детальніше в статті", "детальніше в статтях"),
    "el": ("κύριο λήμμα", "κύρια λήμματα", "κύριο άρθρο", "κύρια άρθρα", "δείτε επίσης", "δείτε ακόμα", "δείτε",
           "βλέπε επίσης", "βλέπε", "βλ. επίσης", "βλ.", "περισσότερα"),
    "vi": ("bài chính", "các bài chính", "xem thêm", "xem", "chi tiết"),
    "bg": ("основна статия", "вижте също", "вижте", "виж също", "виж"),
    "pl": ("osobny artykuł", "osobne artykuły", "główny artykuł", "zobacz też", "zobacz także", "zobacz"),
    "cs": ("hlavní článek", "podrobnější informace naleznete v článku", "podrobnější informace naleznete v článcích",
           "související informace naleznete také v článku", "viz též", "viz také", "viz"),
    "sv": ("huvudartikel", "huvudartiklar", "se även", "se också", "se"),
    "no": ("hovedartikkel", "utdypende artikkel", "se også"),
    "nb": ("hovedartikkel", "utdypende artikkel", "se også"),
    "fi": ("pääartikkeli", "katso myös", "katso"),
    "ca": ("article principal", "vegeu també", "vegeu"),
    "id": ("artikel utama", "lihat pula", "lihat juga", "lihat"),
    "tr": ("ana madde", "ana maddeler", "ayrıca bakınız", "ayrıca bakın"),
    "hu": ("bővebben", "lásd még", "lásd", "részletesen"),
    "sr": ("главни чланак", "види још", "види такође", "види", "glavni članak", "vidi još", "vidi"),
    "ja": ("詳細は", "詳しくは", "主要記事"),
    "zh": ("主条目", "主條目", "参见", "參見", "另见", "另見", "参看", "參看"),
    "ko": ("같이 보기", "주 문서", "본문"),
    "ar": ("مقالة مفصلة", "مقالات مفصلة", "مقال مفصل", "المقالة الرئيسية", "انظر أيضا", "انظر أيضًا", "طالع أيضا"),
    "fa": ("مقاله اصلی", "مقالهٔ اصلی", "نوشتار اصلی", "همچنین ببینید"),
    "he": ("ערך מורחב", "ראו גם"),
    "ltg": ("golvonais rakstīņs", "golvanīs rakstīņs"),
    "hy": ("հիմնական հոդված", "հիմնական հոդվածը", "հիմնական հոդվածներ", "տես նաև", "տե՛ս նաև"),
    "bn": ("মূল নিবন্ধ", "আরও দেখুন", "আরো দেখুন"),
    "mr": ("मुख्य लेख", "हे सुद्धा पहा", "हेही पहा"),
}  # fmt: skip
"""The words a hand-written hatnote opens with, per language code (English's are always included)."""

HATNOTE_TEMPLATES: dict[str, tuple[str, ...]] = {
    "en": ("main", "main article", "see also", "further", "further information", "details", "about", "for",
           "other uses", "redirect", "distinguish", "hatnote", "rellink", "broader", "see"),
    "de": ("hauptartikel", "siehe auch", "dieser artikel", "begriffsklärungshinweis", "weiterleitungshinweis"),
    "fr": ("article détaillé", "article principal", "voir aussi", "autres projets", "homonymie", "confusion"),
    "es": ("ap", "artículo principal", "véase también", "otros usos", "distinguir"),
    "it": ("vedi anche", "s", "torna a", "nota disambigua"),
    "ru": ("основная статья", "главная", "см. также", "другие значения", "о", "не путать", "подробнее"),
    "uk": ("основна стаття", "див. також", "докладніше", "інші значення", "main", "not to be confused"),
    "el": ("κύριο λήμμα", "κύριο", "δείτε επίσης", "βλέπε", "άλλεςχρήσεις", "άλλες χρήσεις", "για"),
    "vi": ("bài chính", "xem thêm", "chính", "đổi hướng", "về", "những người khác"),
    "bg": ("основна", "основна статия", "вижте също", "други значения", "към пояснение"),
    "ja": ("main", "see also", "詳細記事", "otheruses", "混同", "further"),
    "zh": ("main", "主条目", "see also", "seealso", "otheruses", "about"),
    "pl": ("osobny artykuł", "zobacz też", "inne znaczenia"),
    "pt": ("ver artigo principal", "artigo principal", "ver também", "outrosusos", "desambiguação"),
}  # fmt: skip
"""Hatnote templates per language code (lower case, ``_`` as a space): cut with the other templates, never
rendered, whatever a template table says."""

_HEAD = 300
"""Characters of a line in which a hatnote's words and first link must stand."""
# an indented line in italics from end to end ("::''See also: [[Software patents]] for an overview.''"): a note
_INDENTED_ITALIC = re.compile(r":+[ \t]*''(?!')[^\n]*\[\[[^\n]*''[ \t]*")
_LINK = r"'{0,3}[「『]?\[\[[^\[\]\n]+\]\][」』]?'{0,3}"
_JOINER = r"(?:\s*(?:,|;|/|&|、|\band\b|\bor\b|\bund\b|\bet\b|\by\b|\be\b|\bи\b|\bі\b|\bта\b|\bили\b|\bабо\b|\bκαι\b|\bή\b|\bvà\b|\bhoặc\b|\bi\b|\boraz\b|\ba\b)\s*|\s+)"  # noqa: E501


@lru_cache(maxsize=64)
def hatnote_phrases(language: str) -> tuple[str, ...]:
    """The hatnote words of ``language`` (``el-polyton``: ``el``) and of English, longest first."""
    own = HATNOTE_PHRASES.get(language) or HATNOTE_PHRASES.get(language.split("-")[0], ())
    return tuple(sorted(set(HATNOTE_PHRASES["en"]) | set(own), key=len, reverse=True))


@lru_cache(maxsize=64)
def _hatnote(language: str) -> re.Pattern:
    said = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in hatnote_phrases(language))
    return re.compile(
        rf"[:*#;]*[ \t]*(?:<div[^>\n]*>[ \t]*)?(?P<italic>'{{2,3}})?[ \t]*(?i:{said})[ \t]*[:：՝`]?[ \t]*(?P<closed>'{{2,3}})?[ \t]*[:：.,՝`-]?[ \t]*"
        rf"(?:{_LINK})(?:{_JOINER}(?:{_LINK}))*[ \t]*(?:を参照|も参照)?(?:のこと)?[ \t]*[.。]?[ \t]*(?(closed)'{{0,3}}|(?(italic)(?:'{{2,3}}|(?![^\n]*''))|'{{0,3}}))[ \t]*"
        rf"(?:</div>)?(?P<rest>.*)$",
        re.S,
    )


@lru_cache(maxsize=64)
def _line_opening(language: str) -> re.Pattern:
    """A line that opens with a hatnote's words (after indents, quotes or a ``<div>``): one scan of the page finds
    them (the pattern opens with a line break, which the scan looks for first)."""
    said = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in hatnote_phrases(language))
    return re.compile(rf"\n[:*#;' \t]*(?:<div[^>\n]*>[:*#;' \t]*)?(?i:{said})")


_NOTE_END = " \t.;:,"
_FIRST_LINES = re.compile(r"(?:\A|\n=[^\n]*=[ \t]*\n)\s*(?=:)")
"""Where a section's (or the page's) first line starts, when it is indented: a note in italics there is a hatnote
whatever its words ("Bài này viết về …, xem [[…]]")."""


def drop_hatnote_lines(wikitext: str, language: str = "en") -> tuple[str, int]:
    """``wikitext`` (templates already cut) without its hand-written hatnotes, and how many there were.

    A line is a hatnote when it holds the words of :func:`hatnote_phrases`, then one or more links, and nothing
    else; when the note is in italics and a paragraph goes on after it on the same line, only the note goes.
    """
    if "[[" not in wikitext:
        return wikitext, 0
    padded = "\n" + wikitext
    pattern = _hatnote(language)
    pieces, kept_from, count = [], 0, 0
    starts = {opening.start() + 1 for opening in _line_opening(language).finditer(padded)}
    starts.update(first.end() + 1 for first in _FIRST_LINES.finditer(wikitext))
    for start in sorted(starts):
        if start < kept_from:
            continue
        end = padded.find("\n", start)
        end = len(padded) if end < 0 else end
        line = padded[start:end]
        if "[[" not in line[:_HEAD]:
            continue
        match = pattern.match(line)
        if match is None:
            if not _INDENTED_ITALIC.fullmatch(line):
                continue
            replacement = ""
        elif not match.group("rest").strip(_NOTE_END):  # the note's own full stop, outside its italics
            replacement = ""
        elif match.group("italic"):
            replacement = match.group("rest").lstrip()
        else:
            continue  # the words and a link open a sentence that goes on: prose
        pieces += [padded[kept_from:start], replacement]
        kept_from = end
        count += 1
    if not count:
        return wikitext, 0
    pieces.append(padded[kept_from:])
    return "".join(pieces)[1:], count
