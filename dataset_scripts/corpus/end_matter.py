"""End matter: the sections at the foot of an article that list sources and links rather than say anything.

References, External links, Further reading, Bibliography, Notes and See also are lists of citations, link
titles or article names. As task nodes they make rows whose query path ends in "External links" and whose positive
is a list of link titles; WikiExtractor, which made the paper's data, drops such list-only sections. The task
samplers leave them out by default (``--keep-sections`` keeps them); See also targets are read separately and still
feed LTM.

The names are compared as :func:`~dataset_scripts.corpus.see_also.heading_key` compares headings (case, spacing,
WikiExtractor's trailing "."), per language, the language's See also names included.
"""

from __future__ import annotations

from wikiformer_kit.dataset_scripts.corpus.see_also import heading_key, see_also_names

END_MATTER_TITLES: dict[str, tuple[str, ...]] = {
    "en": (
        "references", "reference", "notes", "note", "footnotes", "citations", "sources", "source", "bibliography",
        "select bibliography", "selected bibliography", "further reading", "external links", "external link",
        "notes and references", "references and notes", "notes and citations", "notes and sources",
        "references and sources", "references and further reading", "sources and further reading", "works cited",
        "cited works", "cited sources", "general references", "general sources", "primary sources",
        "secondary sources", "explanatory notes", "online sources", "web sources",
        "external links and references", "further reading and external links",
    ),
    "de": ("einzelnachweise", "anmerkungen", "literatur", "weblinks", "quellen", "belege", "fußnoten"),
    "fr": ("notes et références", "références", "notes", "bibliographie", "liens externes", "sources"),
    "es": ("referencias", "notas", "bibliografía", "enlaces externos", "fuentes", "notas y referencias"),
    "it": ("note", "bibliografia", "collegamenti esterni", "fonti", "altri progetti"),
    "nl": ("referenties", "bronnen", "externe links", "externe link", "literatuur", "noten", "voetnoten"),
    "pt": ("referências", "notas", "bibliografia", "ligações externas", "fontes", "notas e referências"),
    "af": ("verwysings", "bronne", "eksterne skakels", "notas"),
    "nn": ("kjelder", "referansar", "bakgrunnsstoff", "litteratur", "eksterne lenkjer"),
    "no": ("referanser", "kilder", "eksterne lenker", "litteratur", "noter"),
    "sv": ("referenser", "källor", "noter", "externa länkar", "litteratur", "vidare läsning"),
    "ltg": ("nūruodis", "nūruodis i olūti", "literatura", "teiklavītys"),
    "lv": ("atsauces", "ārējās saites", "literatūra", "piezīmes", "avoti"),
    "ru": ("примечания", "комментарии", "сноски", "литература", "источники", "ссылки", "библиография",
           "внешние ссылки"),
    "uk": ("примітки", "виноски", "джерела", "література", "посилання", "бібліографія", "зовнішні посилання",
           "джерела та література"),
    "el": ("παραπομπές", "σημειώσεις", "πηγές", "βιβλιογραφία", "εξωτερικοί σύνδεσμοι", "εξωτερικές συνδέσεις"),
    "pl": ("przypisy", "bibliografia", "linki zewnętrzne"),
    "cs": ("reference", "poznámky", "literatura", "externí odkazy"),
    "ja": ("脚注", "注釈", "出典", "参考文献", "参考資料", "外部リンク", "脚注・出典"),
    "zh": ("参考文献", "參考文獻", "参考资料", "參考資料", "外部链接", "外部連結", "外部鏈接", "注释", "註釋", "脚注",
           "腳註", "延伸阅读", "延伸閱讀"),
    "ko": ("각주", "참고 문헌", "외부 링크"),
    "vi": ("tham khảo", "chú thích", "ghi chú", "liên kết ngoài", "đọc thêm", "thư mục"),
}  # fmt: skip
"""End-matter heading names per language code (the language's See also names are added). English is always on."""


def end_matter_names(language: str = "en", see_also_titles: tuple[str, ...] = ()) -> frozenset[str]:
    """The heading keys of end-matter sections for ``language`` (English always included), See also included."""
    own = END_MATTER_TITLES.get(language) or END_MATTER_TITLES.get(language.split("-")[0], ())  # zh-hant: zh
    names = set(END_MATTER_TITLES["en"]) | set(own)
    return frozenset(heading_key(n) for n in names) | see_also_names(language, see_also_titles)


def is_end_matter(path: list[str], names: frozenset[str]) -> bool:
    """Whether a section with this title path (article title first) is end matter or lies inside end matter."""
    return any(heading_key(title) in names for title in path[1:])
