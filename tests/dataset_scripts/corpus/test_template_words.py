"""Templates read as MediaWiki reads them, on the uses of real pages where their words were lost: a first
parameter given by number (``1=``), parser functions that show their argument, wrappers that carry the text they
flag, and the count of what was rendered and what was cut, each direction on its own."""

from __future__ import annotations

from collections import Counter

import pytest

from wikiformer_kit.dataset_scripts.corpus.templates import CUT_KEY, render_template
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext, strip_non_text


def _text_and_counts(wikitext: str, language: str) -> tuple[str, Counter]:
    counts: Counter = Counter()
    return strip_non_text(wikitext, language, counts), counts


@pytest.mark.parametrize(
    "language, wikitext, shown",
    [
        # bg "Anno Domini": the Latin holds an equals sign, so the page names the parameter
        ("bg", "„AD“ ({{lang-la|1=Anno Domini = Лето Господне}}), но също така", "Anno Domini = Лето Господне"),
        ("bg", "или {{lang-en|1=Common Era}}, тоест", "Common Era"),
        # el formulas: an equals sign inside nowrap
        ("el", "η σχέση {{nowrap|1=E = mc²}} ισχύει", "E = mc²"),
    ],
)
def test_a_first_parameter_given_by_number_is_rendered(language, wikitext, shown):
    text, counts = _text_and_counts(wikitext, language)
    assert shown in text
    assert counts["templates_rendered"] == 1 and not any(key.startswith(CUT_KEY) for key in counts)


def test_numbered_and_unnamed_parameters_are_numbered_as_mediawiki_numbers_them():
    def render(wikitext: str) -> str | None:
        return render_template(wikitext, lambda value: value)

    assert render("{{nowrap|a|1=b}}") == "b"  # of two values for one number, the later wins
    assert render("{{nowrap|1=a|b}}") == "b"
    assert render("{{lang|2=texte|1=fr}}") == "texte"
    assert render("{{lang|fr|2= texte }}") == "texte"


def test_parser_functions_that_show_their_argument_render_it():
    text, counts = _text_and_counts("岩手県の面積は{{formatnum:15275.01}}平方キロメートルである。", "ja")
    assert text == "岩手県の面積は15275.01平方キロメートルである。" and counts["templates_rendered"] == 1
    text, counts = _text_and_counts("the {{lc:RIVER}} and {{ucfirst:paris}} and {{uc:nasa}}", "en")
    assert text == "the river and Paris and NASA" and counts["templates_rendered"] == 3


def test_a_template_that_renders_no_words_is_counted_as_cut_not_as_rendered():
    # ja 岩手県: formatnum of a value that comes from a template the kit does not render
    text, counts = _text_and_counts("岩手県の面積は{{formatnum:{{#expr:15275.01}}}}平方キロメートルである。", "ja")
    assert text == "岩手県の面積は平方キロメートルである。"
    assert counts["templates_rendered"] == 0 and counts[CUT_KEY + "formatnum:"] == 1


@pytest.mark.parametrize(
    "language, wikitext, kept",
    [
        # ja 哲学 › 概要: the flagged range is the sentence itself
        ("ja", "哲学は{{要出典|範囲=多くの意味を持つ多義語である|date=2020年1月}}。", "多くの意味を持つ多義語である"),
        ("fr", "Il est {{référence souhaitée|le premier à le dire}}.", "le premier à le dire"),
        ("en", "It was {{citation needed span|text=the first bridge|date=May 2020}}.", "the first bridge"),
        # a colour key's label: ko 베를린 › 정치 lists the parties' results so
        ("ko", "* {{범례|#EB001F|[[독일 사회민주당|사회민주당]] (21.6%, 38석)}}", "사회민주당]] (21.6%, 38석)"),
        ("en", "* {{legend|#FFD700|Sun Belt states}}", "Sun Belt states"),
        # ja P2P, テレビ局 and 日本語 pages: a "when?" range, a block kept together, an accent mark over a kana
        ("ja", "また{{いつ範囲| date=2020年5月|ここ数年}}、商用的にも", "またここ数年、商用的にも"),
        ("ja", "- {{inline-block|加盟は[[久光製薬]]の本社がある}}", "加盟は[[久光製薬]]の本社がある"),
        ("ja", "「た{{下げ核|ま}}ごが」のように", "「たまごが」のように"),
    ],
)
def test_a_wrapper_keeps_the_text_it_flags(language, wikitext, kept):
    text, counts = _text_and_counts(wikitext, language)
    assert kept in text and counts["templates_rendered"] == 1


@pytest.mark.parametrize(
    "language, wikitext",
    [
        ("ja", "哲学は多義語である{{要出典|date=2020年1月}}。"),
        ("en", "the {{Color box|#FF0000}} line"),
        ("en", "a {{shy}}word"),
        ("hy", "{{Դրոշ|Արցախ}} [[Արցախ]]"),  # the flag alone: the name is the link beside it
        ("hy", "անհայտ է{{Ն|Թումանյանի ընտանիքի արխիվում}}։"),  # a footnote
        ("bn", "দেখুন {{বই উদ্ধৃতি|title=x|year=2001}} এখানে"),
        ("mr", "यातूनच topology{{मराठी शब्द सुचवा}} आणि"),
    ],
)
def test_a_template_that_shows_no_words_is_not_reported_as_cut(language, wikitext):
    _, counts = _text_and_counts(wikitext, language)
    assert counts["templates_without_words"] == 1
    assert counts["templates_rendered"] == 0 and not any(key.startswith(CUT_KEY) for key in counts)


@pytest.mark.parametrize(
    "language, wikitext, shown",
    [
        # uk "Солт-Лейк-Сіті": a country template in a sentence; el and ja member lists
        ("uk", "з мером міста [[Солт-Лейк-Сіті]] ({{USA}})&nbsp;— ''Лоуелом Тернером''", "(Сполучені Штати)"),
        ("el", "* {{GRE}} [[Αθήνα]]", "Ελλάδα"),
        ("ja", "{{JPN}}の選手", "日本の選手"),
        # IOC codes where ISO reads another country: BRN is Bahrain, BRU Brunei
        ("el", "{{BRN}}, {{BRU}}", "Μπαχρέιν, Μπρουνέι"),
        ("hy", "{{DEU}}", "Գերմանիա"),  # an ISO 3166-1 alpha-3 code
        # uk dates of birth and death, vi "as of", el IPA, uk genealogy names
        (
            "uk",
            "Високович ({{ДН|14|3|1854|2}}, Гайсин — {{ДС|26|5|1912|13}})",
            "(14 березня 1854, Гайсин — 26 травня 1912)",
        ),
        ("vi", "{{Tính đến|2019|October|21}}, dân số", "Tính đến 21 tháng 10 năm 2019, dân số"),
        ("vi", "{{Tính đến|2006}}, thành phố", "Tính đến năm 2006, thành phố"),
        ("el", "το {{ΔΦΑ|/pʰ/}} είναι", "το /pʰ/ είναι"),
        ("uk", "син {{ГР|Вишеслав Вол}}", "син Вишеслав Вол"),
        # bn, hy and mr, from their dumps: an area, a sound, member lists, a quotation
        ("bn", "এই শহরের মোট আয়তন {{রূপান্তর|306|km2|sqmi|lk=out|abbr=}}।", "মোট আয়তন 306 km2।"),
        ("bn", "ব্যঞ্জন {{আধ্বব|[ɕ]}}-এর জন্য", "ব্যঞ্জন [ɕ]-এর জন্য"),
        ("bn", "* {{পতাকা|ফিজি}}", "ফিজি"),
        ("hy", "Հյուսիս-արևելք՝ {{Դրոշավորում|Վրաստան}}", "Վրաստան"),
        # ko and fa Berlin: the name in German, and a sister city's country
        ("ko", "베를린({{llang|de|Berlin}} {{소리|de-Berlin.ogg}})은", "베를린(Berlin )은"),
        ("ko", "* {{국기나라|영국}} 런던 (2000년)", "영국 런던"),
        ("fa", "برلیناله {{آلمانی|Berlinale}} است", "برلیناله Berlinale است"),
        ("hy", "գրում է․{{Քաղվածք|Հավլաբարում բազազ Մուրադյանի|}}", "գրում է․Հավլաբարում բազազ Մուրադյանի"),
    ],
)
def test_country_date_and_sound_templates_render_their_words(language, wikitext, shown):
    text, counts = _text_and_counts(wikitext, language)
    assert shown in text
    assert not any(key.startswith(CUT_KEY) for key in counts)


@pytest.mark.parametrize("wikitext", ["{{IPA}}", "{{URL}}", "{{usa}}", "{{Usa}}"])
def test_only_a_country_code_in_capitals_is_a_country(wikitext):
    assert not render_template(wikitext, lambda value: value, "uk")


def test_a_country_in_a_language_without_names_is_still_cut():
    assert render_template("{{GER}}", lambda value: value, "war") is None


def test_a_french_chemical_formula_renders_whole():
    text, counts = _text_and_counts("L'eau ({{fchim|H|2|O}}) et le {{fchim|CO|2}}.", "fr")
    assert text == "L'eau (H2O) et le CO2." and counts["templates_rendered"] == 2


@pytest.mark.parametrize(
    "language, wikitext, shown",
    [
        ("ja", "{{col-list|7.5em|\n*[[氷ノ山]]\n*[[高御位山]]\n}}", "*[[氷ノ山]]\n*[[高御位山]]"),
        ("uk", "{{columns-list|2|\n* [[Літературні енциклопедії]]\n* [[Довідники]]}}", "* [[Довідники]]"),
        ("vi", "{{plainlist|'''Theo chủng tộc:'''\n* 76,3% [[Người Mỹ da trắng|người da trắng]]}}", "* 76,3%"),
        ("vi", "{{unbulleted list\n  | 66,0% [[Phật giáo]]\n  | 30,7% Tín ngưỡng dân gian}}", "30,7% Tín ngưỡng"),
    ],
)
def test_lists_in_column_templates_are_text(language, wikitext, shown):
    text, counts = _text_and_counts(wikitext, language)
    assert shown in text and not any(key.startswith(CUT_KEY) for key in counts)


def test_sections_inside_a_two_column_template_are_sections():
    # ja "新潟県" (jawiki, 2023): {{表2列|…|…}} holds the sections of works set in the prefecture
    wikitext = (
        "== 新潟県を舞台とした作品 ==\n{{表2列|\n=== 小説 ===\n* [[雪国 (小説)|雪国]]\n* [[沈める滝]]\n|\n"
        "=== 楽曲 ===\n* [[新潟ブルース]]（[[美川憲一]]）\n}}\n== 交通 ==\n鉄道。"
    )
    article = parse_wikitext("新潟県", wikitext, language="ja")
    assert [(s.title, s.text) for s in article.sections] == [
        ("新潟県を舞台とした作品", ""),
        ("小説", "雪国\n沈める滝"),
        ("楽曲", "新潟ブルース（美川憲一）"),
        ("交通", "鉄道。"),
    ]
