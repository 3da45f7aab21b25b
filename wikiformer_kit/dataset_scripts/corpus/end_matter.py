"""End matter: the sections at the foot of an article that list sources and links rather than say anything.

References, External links, Further reading, Bibliography, Notes and See also are lists of citations, link
titles or article names. As task nodes they make rows whose query path ends in "External links" and whose positive
is a list of link titles; WikiExtractor, which made the paper's data, drops such list-only sections. The task
samplers leave them out by default (``--keep-sections`` keeps them); See also targets are read separately and still
feed LTM.

Whatever it is called, a section whose lines are nearly all references is end matter too
(:func:`reference_list_sections`): citations (an ISBN, DOI or URL; a year with pages, or a place, publisher and year)
and external link titles (a domain name). The task samplers count the sections this rule finds apart from those
found by name.

The names are compared as :func:`~dataset_scripts.corpus.see_also.heading_key` compares headings (case, spacing,
WikiExtractor's trailing "."), per language, the language's See also names included.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from wikiformer_kit.dataset_scripts.corpus.article import ROOT, Article, Section
from wikiformer_kit.dataset_scripts.corpus.see_also import heading_key, see_also_names

END_MATTER_TITLES: dict[str, tuple[str, ...]] = {
    "en": (
        "references", "reference", "notes", "note", "footnotes", "citations", "sources", "source", "bibliography",
        "select bibliography", "selected bibliography", "further reading", "external links", "external link",
        "notes and references", "references and notes", "notes and citations", "notes and sources",
        "references and sources", "references and further reading", "sources and further reading", "works cited",
        "cited works", "cited sources", "general references", "general sources", "primary sources",
        "secondary sources", "explanatory notes", "online sources", "web sources",
        "external links and references", "further reading and external links", "bibliography and further reading",
    ),
    "ceb": ("mga pakisayran", "pakisayran", "mga sumpay sa gawas", "gikan sa gawas nga sumpay", "mga tinubdan"),
    "war": ("mga kasarigan", "kasarigan", "mga sumpay ha gawas", "mga tinikangan"),
    "de": ("einzelnachweise", "anmerkungen", "literatur", "weblinks", "quellen", "belege", "fußnoten", "nachweise",
           "referenzen", "quellen und einzelnachweise", "anmerkungen und einzelnachweise", "literatur und weblinks",
           "weiterführende literatur", "weblink"),
    "fr": ("notes et références", "références", "notes", "bibliographie", "liens externes", "lien externe", "sources",
           "références et notes", "notes et sources", "pour approfondir", "webographie", "sources et bibliographie"),
    "sv": ("referenser", "källor", "noter", "externa länkar", "extern länk", "litteratur", "vidare läsning",
           "fotnoter", "tryckta källor", "webbkällor", "källförteckning"),
    "nl": ("referenties", "bronnen", "externe links", "externe link", "literatuur", "noten", "voetnoten",
           "bronvermelding", "bronnen, noten en/of referenties", "noten en referenties", "bronnen en referenties"),
    "ru": ("примечания", "комментарии", "сноски", "литература", "источники", "ссылки", "библиография",
           "внешние ссылки", "литература и ссылки", "источники и литература", "дополнительная литература",
           "рекомендуемая литература", "ссылки и литература", "примечания и источники"),
    "es": ("referencias", "notas", "bibliografía", "enlaces externos", "enlace externo", "fuentes",
           "notas y referencias", "referencias y notas", "lecturas adicionales", "lectura adicional",
           "bibliografía adicional", "enlaces"),
    "it": ("note", "bibliografia", "collegamenti esterni", "fonti", "altri progetti", "riferimenti",
           "note e riferimenti", "ulteriori letture"),
    "pl": ("przypisy", "bibliografia", "linki zewnętrzne", "literatura", "źródła", "uwagi", "przypisy i bibliografia"),
    "arz": ("مصادر", "المصادر", "مراجع", "وصلات برانيه", "لينكات برانيه"),
    "zh": ("参考文献", "參考文獻", "参考资料", "參考資料", "外部链接", "外部連結", "外部鏈接", "外部連接", "注释", "註釋",
           "注解", "註解", "脚注", "腳註", "延伸阅读", "延伸閱讀", "扩展阅读", "擴展閱讀", "参考来源", "參考來源", "来源",
           "來源", "书目", "書目", "参考", "參考"),
    "ja": ("脚注", "注釈", "出典", "参考文献", "参考資料", "外部リンク", "脚注・出典", "出典・脚注", "注釈・出典", "注",
           "関連文献", "関連書籍", "日本語文献", "外国語文献", "英語文献", "参考書籍", "参考リンク", "関連資料", "文献"),
    "uk": ("примітки", "виноски", "джерела", "література", "посилання", "бібліографія", "зовнішні посилання",
           "джерела та література", "джерела і література", "література та джерела", "примітки та джерела",
           "рекомендована література", "додаткова література", "посилання та джерела"),
    "vi": ("tham khảo", "chú thích", "ghi chú", "liên kết ngoài", "liên kết bên ngoài", "đọc thêm", "thư mục",
           "sách tham khảo", "nguồn tham khảo", "tài liệu tham khảo", "chú giải", "nguồn"),
    "ar": ("المراجع", "مراجع", "مصادر", "المصادر", "وصلات خارجية", "روابط خارجية", "الهوامش", "هوامش",
           "قراءات إضافية", "قراءة إضافية", "مراجع وهوامش"),
    "pt": ("referências", "notas", "bibliografia", "ligações externas", "links externos", "fontes",
           "notas e referências", "leitura adicional", "leituras adicionais", "referências bibliográficas"),
    "fa": ("منابع", "پانویس", "پانوشت", "پیوند به بیرون", "پیوندهای بیرونی", "یادداشت‌ها", "کتاب‌شناسی",
           "منابع و پانویس", "مطالعهٔ بیشتر", "برای مطالعهٔ بیشتر"),
    "ca": ("referències", "notes", "bibliografia", "enllaços externs", "notes i referències", "fonts"),
    "id": ("referensi", "catatan kaki", "pranala luar", "bacaan lebih lanjut", "daftar pustaka", "catatan",
           "sumber", "rujukan"),
    "sr": ("референце", "литература", "спољашње везе", "извори", "напомене", "reference", "literatura",
           "spoljašnje veze", "izvori", "napomene"),
    "ko": ("각주", "참고 문헌", "참고문헌", "참고 자료", "외부 링크", "더 읽어보기", "출처", "주석"),
    "no": ("referanser", "kilder", "eksterne lenker", "litteratur", "noter", "fotnoter", "videre lesning"),
    "ce": ("билгалдахарш", "хьосташ", "литература", "хьажоргаш"),
    "fi": ("lähteet", "viitteet", "aiheesta muualla", "kirjallisuutta", "kirjallisuus", "huomautukset"),
    "tr": ("kaynakça", "kaynaklar", "dış bağlantılar", "notlar", "dipnotlar", "ek okumalar", "ileri okumalar"),
    "hu": ("források", "jegyzetek", "további információk", "külső hivatkozások", "irodalom", "szakirodalom",
           "hivatkozások", "további irodalom"),
    "cs": ("reference", "poznámky", "literatura", "externí odkazy", "odkazy", "prameny", "zdroje"),
    "tt": ("искәрмәләр", "чыганаклар", "әдәбият", "сылтамалар", "тышкы сылтамалар"),
    "bg": ("източници", "външни препратки", "бележки", "литература", "библиография", "допълнителна литература",
           "използвана литература", "външни връзки", "бележки и източници"),
    "el": ("παραπομπές", "σημειώσεις", "πηγές", "βιβλιογραφία", "εξωτερικοί σύνδεσμοι", "εξωτερικές συνδέσεις",
           "προτεινόμενη βιβλιογραφία", "επιπλέον βιβλιογραφία", "περαιτέρω ανάγνωση", "σύνδεσμοι",
           "χρήσιμοι εξωτερικοί σύνδεσμοι", "άλλες πηγές", "δικτυογραφία", "περαιτέρω βιβλιογραφία"),
    "he": ("הערות שוליים", "קישורים חיצוניים", "לקריאה נוספת", "ביבליוגרפיה", "מקורות"),
    "af": ("verwysings", "bronne", "eksterne skakels", "notas"),
    "nn": ("kjelder", "referansar", "bakgrunnsstoff", "litteratur", "eksterne lenkjer"),
    "nb": ("referanser", "kilder", "eksterne lenker", "litteratur", "noter", "fotnoter", "videre lesning"),
    "ltg": ("nūruodis", "nūruodis i olūti", "literatura", "teiklavītys"),
    "hy": ("ծանոթագրություններ", "արտաքին հղումներ", "նշումներ", "գրականություն", "աղբյուրներ"),
    "bn": ("তথ্যসূত্র", "বহিঃসংযোগ", "আরও পড়ুন", "আরো পড়ুন", "পাদটীকা", "গ্রন্থপঞ্জি", "টীকা", "উৎস"),
    "mr": ("संदर्भ", "बाह्य दुवे", "बाह्यदुवे", "संदर्भ आणि नोंदी"),
    "th": ("อ้างอิง", "แหล่งข้อมูลอื่น", "เชิงอรรถ", "หนังสืออ่านเพิ่มเติม"),
    "lv": ("atsauces", "ārējās saites", "literatūra", "piezīmes", "avoti"),
}  # fmt: skip
"""End-matter heading names per language code (the language's See also names are added). English is always on."""


def end_matter_names(language: str = "en", see_also_titles: tuple[str, ...] = ()) -> frozenset[str]:
    """The heading keys of end-matter sections for ``language`` (English always included), See also included."""
    own = END_MATTER_TITLES.get(language) or END_MATTER_TITLES.get(language.split("-")[0], ())  # zh-hant: zh
    names = set(END_MATTER_TITLES["en"]) | set(own)
    return frozenset(heading_key(n) for n in names) | see_also_names(language, see_also_titles)


def is_end_matter(path: list[str], names: frozenset[str]) -> bool:
    """Whether a section with this title path (article title first) is end matter or lies inside end matter, by
    its names alone (:func:`end_matter_by_name` also reads the place of a name that is a content word)."""
    return any(heading_key(title) in names for title in path[1:])


CONTENT_WORD_NAMES: frozenset[str] = frozenset(
    heading_key(name)
    for name in (
        # literature: a bibliography at the foot, an art in a country's Culture section
        "literatur", "литература", "література", "literatura", "litteratur", "literatuur", "literatūra", "irodalom",
        "kirjallisuus", "әдәбият",
        # sources: of references, or of a river; notes: of references, or of music
        "sources", "source", "quellen", "fonti", "fontes", "fuentes", "fonts", "bronnen", "kilder", "källor",
        "kjelder", "prameny", "zdroje", "izvori", "извори", "източници", "источники", "джерела", "πηγές", "nguồn",
        "sumber", "来源", "來源", "notes", "note", "noten", "notas", "noter", "գրականություն", "աղբյուրներ", "টীকা",
        "উৎস",
    )
)  # fmt: skip
"""End-matter names that are also content words: end matter only by their place (:func:`end_matter_by_name`)."""


def end_matter_by_name(article: Article, names: frozenset[str]) -> set[int]:
    """Indices of the article's sections that are end matter by their heading (``names``), and their subsections.

    A name that is also a content word (:data:`CONTENT_WORD_NAMES`: "Література" under "Культура" is the country's
    literature) is end matter only inside end matter, or at the top level in the article's closing run: every
    top-level section after it is end matter too (by name or as a reference list), or has no text.
    """
    sections = article.sections
    found: set[int] = set()
    placed: set[int] = set()  # top-level sections named by a content word: decided once the closing run is known
    for index, section in enumerate(sections):
        key = heading_key(section.title)
        if section.parent in found or (key in names and key not in CONTENT_WORD_NAMES):
            found.add(index)
        elif key in names and section.parent == ROOT:
            placed.add(index)
    if not placed:
        return found
    texts, _ = _texts_by_top_level(sections)
    run = _closing_run(sections, texts, lambda i: i in found or i in placed or is_reference_list(sections[i].text))
    found |= placed & run
    for index, section in enumerate(sections):
        if section.parent in found:
            found.add(index)
    return found


def _texts_by_top_level(sections: list[Section]) -> tuple[list[list[str]], list[int]]:
    """For each section, the texts of its subtree if it is top-level (its own first); and each section's top-level
    section (-1 for the lead)."""
    texts: list[list[str]] = [[section.text] if section.text.strip() else [] for section in sections]
    top_of = [index if section.parent == ROOT else -1 for index, section in enumerate(sections)]
    for index, section in enumerate(sections):  # a subsection comes after its parent
        if section.parent != ROOT:
            top_of[index] = top_of[section.parent]
            if texts[index] and top_of[index] >= 0:
                texts[top_of[index]].extend(texts[index])
    return texts, top_of


def _closing_run(sections: list[Section], texts: list[list[str]], ends: Callable[[int], bool]) -> set[int]:
    """The article's closing run: the top-level sections, from the last one back, that end an article (``ends``) or
    hold no text, up to the first that holds text and does not."""
    run: set[int] = set()
    for index in reversed([i for i, s in enumerate(sections) if s.parent == ROOT]):
        if texts[index] and not ends(index):
            break
        run.add(index)
    return run


REFERENCE_SHARE = 0.8
"""A section is a reference list when at least this share of its lines (and two of them) are references."""
_IDENTIFIER = re.compile(r"\b(?:ISBN|ISSN|DOI|OCLC|PMID|PMC|LCCN|JSTOR|Bibcode|arXiv|ББК|УДК)\b|\bdoi:")
_ADDRESS = re.compile(
    r"https?://|\bwww\.|\b[\w-]{2,}\.(?:com|org|net|edu|gov|int|info)\b|\b[\w-]{2,}\.[a-z]{2}(?:/|\b(?!\.))"
)
MAX_ADDRESS_LINE = 250
"""Characters: an external link's title is short; a longer line that names an address is prose about it."""
_YEAR = re.compile(r"(?<!\d)(?:1[5-9]\d\d|20\d\d)(?!\d)")
# pages ("pp. 12", "S. 4", "с. 300", "σελ. 5", never a year: Vietnamese "(s. 1732)" is "born 1732"), a place, its
# publisher and the year ("London: Penguin, 1999", "М.: Наука, 1985"; no figure before the year: "Release Date:
# August 16, 2005" is a date), an edition or an editor. A Japanese title in 『』 is no mark: prose names works so.
_BOOK_MARK = re.compile(
    r"(?:^|[\s(,;–—-])(?:pp?|S|s|с|С|σ|σσ|σελ|str|tr|vol|Vol|Bd|т|Т|No|Nr|№)\.\s*(?!(?:1[5-9]|20)\d\d(?!\d))\d"
    r"|\b[A-ZА-ЯΑ-Ω][\w.-]*\s?:\s?[^:,\d]{2,60},\s*(?:1[5-9]|20)\d\d(?!\d)"
    r"|\b(?:eds?|Hrsg|изд|éd|red)\.|\((?:eds?|Hrsg|ed)\.?\)"
)


_IDENTIFIER_WORDS = ("ISBN", "ISSN", "DOI", "OCLC", "PMID", "PMC", "LCCN", "JSTOR", "Bibcode", "arXiv", "ББК", "УДК", "doi:")  # fmt: skip
_DOMAIN_DOT = re.compile(r"\.[a-z]")
"""What a line holds whenever :data:`_ADDRESS` matches it (a dot before a domain's letter): looked for first, since
the full pattern costs a search per word of a prose paragraph."""


def is_reference_line(line: str) -> bool:
    """Whether one line reads as a reference: an identifier (ISBN, DOI, ...), an address (a URL or domain name: an
    external link's title) on a short line, or a year with a book's marks (pages, place and publisher, an editor)."""
    if any(word in line for word in _IDENTIFIER_WORDS) and _IDENTIFIER.search(line):
        return True
    if len(line) <= MAX_ADDRESS_LINE and _DOMAIN_DOT.search(line) and _ADDRESS.search(line):
        return True
    return bool(_YEAR.search(line) and _BOOK_MARK.search(line))


def is_reference_list(text: str) -> bool:
    """Whether a section's text (one paragraph or list item a line) is a list of references: at least two lines,
    and :data:`REFERENCE_SHARE` of them references (:func:`is_reference_line`)."""
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < 2:
        return False
    # stop at the first line past the share of other lines a list may hold: prose is given up after a line or two
    others_allowed = len(lines) - REFERENCE_SHARE * len(lines)
    others = 0
    for line in lines:
        if not is_reference_line(line):
            others += 1
            if others > others_allowed:
                return False
    return True


def reference_list_sections(article: Article, exclude: set[int] = frozenset()) -> set[int]:
    """Indices of the sections at the article's foot that read as reference lists, whatever their heading, and
    their subsections: a top-level section whose texts (its own and its subsections') are all lists of references
    (:func:`is_reference_list`), after which every top-level section is end matter (``exclude``, found by name),
    another such list, or has no text. A list in the body, whatever its shape, is content (a writer's works with
    their ISBNs, a film's releases)."""
    sections = article.sections
    texts, top_of = _texts_by_top_level(sections)
    run = _closing_run(sections, texts, lambda i: i in exclude or all(is_reference_list(t) for t in texts[i]))
    found_tops = {index for index in run if texts[index] and index not in exclude}
    return {index for index in range(len(sections)) if top_of[index] in found_tops and index not in exclude}
