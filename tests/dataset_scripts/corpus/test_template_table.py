"""Templates rendered by the table of data/mediawiki/templates.json, in every language, on real pages
(data/samples/wikipedia/templates), and the templates of running text counted in a build's statistics."""

from __future__ import annotations

import html
import json
import lzma
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.summary import corpus_summary, split_template_counts, templates_line
from wikiformer_kit.dataset_scripts.corpus.templates import CUT_KEY, in_running_text, renderer_for, shows_no_words
from wikiformer_kit.dataset_scripts.corpus.wikitext import _REF, parse_wikitext, strip_non_text
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions

PAGES = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "templates"


def page_wikitext(language: str, title: str) -> str:
    path = PAGES / language / f"{title}.wikitext"
    if path.exists():
        return path.read_text(encoding="utf-8")
    with lzma.open(path.with_name(path.name + ".xz"), "rt", encoding="utf-8") as file:
        return file.read()


def article_text(article) -> str:
    return "\n".join([article.abstract, *(section.text for section in article.sections)])


@pytest.mark.parametrize(
    ("language", "wikitext", "text"),
    [
        ("ja", "{{仮リンク|ドルリー・レーン王立劇場|en|Theatre Royal, Drury Lane}}", "ドルリー・レーン王立劇場"),
        ("ja", "{{ill2|エジプトの首相|en|Prime Minister of Egypt|label=首相}}", "首相"),
        (
            "ja",
            "{{仮リンク|ムスタファ・マドブーリー|ar|مصطفى مدبولي|en|Moustafa Madbouly}}",
            "ムスタファ・マドブーリー",
        ),
        ("ja", "{{読み仮名|'''物理学'''|ぶつりがく|{{Lang-en-short|physics}}}}", "'''物理学'''（ぶつりがく、physics）"),
        ("ja", "{{要出典範囲|CPU時間|date=2021年6月}}", "CPU時間"),
        ("ja", "{{interlang|en|E.U. (TV series)|E.U.}}", "E.U."),
        ("uk", "{{нп|Сьомий лист|Сьомому листі|en|Seventh Letter}}", "Сьомому листі"),
        ("uk", "{{нп|некомутативна геометрія||en|noncommutative geometry}}", "некомутативна геометрія"),
        ("uk", "{{не перекладено|Пашков дом|Пашковому домі|ru|Пашков дом}}", "Пашковому домі"),
        ("uk", "{{iw|Sybase SQL Server}}", "Sybase SQL Server"),
        ("uk", "{{nts|603700}}", "603700"),
        ("uk", "{{s|ISBN 5-308-01400-0}}", "ISBN 5-308-01400-0"),
        ("ru", "{{нп5|Баварский квартал |Баварский квартал |de|Bayerisches Viertel}}", "Баварский квартал"),
        ("fr", "{{s-|XIV}}", "XIVe siècle"),
        ("fr", "{{s|I}}", "Ier siècle"),
        ("fr", "{{-s-|III}}", "IIIe siècle av. J.-C."),
        ("fr", "{{XXe siècle}}", "XXe siècle"),
        ("fr", "{{84e|congrès}}", "84e congrès"),
        ("fr", "{{unité|3797|m}}", "3797 m"),
        ("fr", "{{langue|de|Österreich}}", "Österreich"),
        ("fr", "{{Lien|langue=en|trad=ASFINAG|fr=ASFINAG|texte=ASFINAG}}", "ASFINAG"),
        ("fr", "{{incise|après le [[congrès de Vienne]]}}", "— après le [[congrès de Vienne]] —"),
        ("en", "{{ill|Sverker Johansson|sv}}", "Sverker Johansson"),
        ("en", "{{ill|Local|de|Fremd|lt=Shown}}", "Shown"),
        ("en", "{{formatnum:1234}}", "1234"),
        ("vi", "{{zh|c=双子群礁|v=Song Tử quần tiêu}}", "双子群礁, Song Tử quần tiêu"),
        ("ltg", "Austreja ({{Vol-de|Österreich}}) — vaļsteiba Europā.", "Austreja (Österreich) — vaļsteiba Europā."),
        ("fr", "{{date de naissance|12|mars|1866}}", "12 mars 1866"),
        ("en", "{{s-|XIV}}", ""),  # no such template on the English Wikipedia: removed
    ],
)
def test_templates_render_by_their_rule_in_their_language(language, wikitext, text):
    assert strip_non_text(wikitext, language) == text


def test_a_language_entry_wins_over_every_wiki_and_a_dialect_falls_back_to_its_language():
    assert renderer_for("s", "uk")(["ISBN 1"], {}) == "ISBN 1"
    assert renderer_for("s", "fr")(["XII"], {}) == "XIIe siècle"
    assert renderer_for("нп", "") is None and renderer_for("仮リンク", "ja-x") is not None
    assert shows_no_words("sfn") and shows_no_words("要出典", "ja") and not shows_no_words("要出典", "en")
    assert shows_no_words("cite book") and shows_no_words("ja icon") and not shows_no_words("仮リンク", "ja")


@pytest.mark.parametrize(
    ("text", "template", "running"),
    [
        ("Площа становить {{nts|603700}} км²", "{{nts|603700}}", True),
        ("{{読み仮名|物理学|ぶつりがく}}は、自然科学", "{{読み仮名|物理学|ぶつりがく}}", True),
        ("* {{仮リンク|文学史|en|History of literature}}\n", "{{仮リンク|文学史|en|History of literature}}", True),
        ("{{Infobox country\n| name = X\n}} '''X''' is", "{{Infobox country\n| name = X\n}}", False),
        ("{{Short description|X}}\n'''X''' is", "{{Short description|X}}", False),
        ("{{Use dmy dates}}{{Redirect|X}}\n", "{{Redirect|X}}", False),
        ("a {{cn}} {{sfn|b}} c", "{{sfn|b}}", True),
    ],
)
def test_only_templates_of_running_text_are_counted(text, template, running):
    start = text.index(template)
    assert in_running_text(text, start, start + len(template)) is running


def test_the_words_of_japanese_interlanguage_links_are_kept_on_a_real_page():
    wikitext = page_wikitext("ja", "文学")
    counts: Counter = Counter()
    text = article_text(parse_wikitext("文学", wikitext, language="ja", template_counts=counts))
    shown = re.findall(r"\{\{仮リンク\|([^|{}\[\]]+)\|(?![^{}]*label=)", _REF.sub("", wikitext))
    assert len(shown) >= 20
    assert [word for word in shown if word.strip() not in text] == []
    assert not [key for key in counts if key.startswith(CUT_KEY)]


def test_a_japanese_lead_keeps_its_subject_and_reading():
    article = parse_wikitext("物理学", page_wikitext("ja", "物理学"), language="ja")
    assert article.abstract.startswith("物理学（ぶつりがく、physics）は、自然科学の一分野である。")


def test_the_words_of_ukrainian_interlanguage_links_and_numbers_are_kept_on_real_pages():
    wikitext = page_wikitext("uk", "Точка")
    text = article_text(parse_wikitext("Точка", wikitext, language="uk"))
    uses = re.findall(r"\{\{нп\|([^|{}]*)\|([^|{}]*)\|", wikitext)
    assert len(uses) == 3 and all((shown or title) in text for title, shown in uses)

    wikitext = page_wikitext("uk", "Україна")
    text = article_text(parse_wikitext("Україна", wikitext, language="uk"))
    assert "Площа становить 603700 км²" in text
    numbers = re.findall(r"\{\{nts\|([0-9]+)\}\}", _REF.sub("", wikitext))
    assert len(numbers) >= 20 and all(number in text for number in numbers)


def test_french_centuries_and_units_are_kept_on_a_real_page():
    counts: Counter = Counter()
    text = article_text(
        parse_wikitext("Autriche", page_wikitext("fr", "Autriche"), language="fr", template_counts=counts)
    )
    assert "Au XXIe siècle, on peut" in text and "dès le XIIe siècle" in text
    assert not {"s", "s-", "unité", "langue", "nombre"} & {key[len(CUT_KEY) :] for key in counts}
    assert counts["templates_rendered"] > 100


def test_the_statistics_keep_the_templates_cut_by_name_most_cut_first():
    stats = Counter({"articles": 2, "templates_rendered": 5, f"{CUT_KEY}b": 1, f"{CUT_KEY}a": 3, f"{CUT_KEY}c": 1})
    kept, cut = split_template_counts(stats)
    assert kept == {"articles": 2, "templates_rendered": 5, "templates_cut": 5}
    assert list(cut.items()) == [("a", 3), ("b", 1), ("c", 1)]
    assert templates_line(kept, cut).startswith(
        "templates in running text: 5 rendered, 0 without words removed, 5 cut with their words (a 3, b 1, c 1)"
    )


def test_a_build_reports_the_templates_it_cut(tmp_path):
    pages = [("fr", "Autriche"), ("ja", "文学")]
    body = "".join(
        f"<page><title>{html.escape(title)}</title><ns>0</ns><id>{number}</id><revision><text>"
        f"{html.escape(page_wikitext(language, title))}</text></revision></page>"
        for number, (language, title) in enumerate(pages, start=1)
    )
    dump = Path(tmp_path / "frwiki-pages.xml")
    dump.write_text(
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"><siteinfo><dbname>frwiki</dbname>'
        f"<base>https://fr.wikipedia.org/wiki/Main</base></siteinfo>{body}</mediawiki>",
        encoding="utf-8",
    )
    out = tmp_path / "corpus"
    stats = build_corpus([dump], out, executor=ExecutorOptions(num_proc=1))
    record = json.loads((out / "build_stats.json").read_text())
    assert record["templates_cut"]["souverain2"] == 1 and "s-" not in record["templates_cut"]
    assert record["statistics"]["templates_cut"] == sum(record["templates_cut"].values()) == stats["templates_cut"]
    assert record["statistics"]["templates_rendered"] > 100
    assert not any(key.startswith(CUT_KEY) for key in record["statistics"])
    line = next(line for line in corpus_summary(out) if "templates in running text" in line)
    assert "souverain2 1" in line


def test_tex_braces_and_parser_functions_are_not_reported_as_templates_cut():
    counts: Counter = Counter()
    strip_non_text("x <math>{{[H^+]^2} \\over {[H^+]^2 + K_1}}</math> y {{#tag:ref|z}} w {{Foo bar|v}}", "en", counts)
    assert {key for key in counts if key.startswith(CUT_KEY)} == {f"{CUT_KEY}foo bar"}
    assert counts["templates_without_words"] == 1
