"""Wikitext to Article: structure, text cleaning, links and See also, on hand-written pages."""

from __future__ import annotations

import re

from wikiformer_kit.dataset_scripts.corpus.extract import _namespaces
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import is_image_option, is_media_link
from wikiformer_kit.dataset_scripts.corpus.see_also import see_also_targets
from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH, classify_link, normalize_title
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext, redirect_target, strip_non_text

LEFTOVER = re.compile(r"\{\{|\}\}|\[\[|\]\]|'''|<ref|\{\||\|\}")

PAGE = """{{Infobox thing|name=Thing|image=[[File:Thing.png|thumb|A [[thing]]]]}}
'''Thing''' is a [[concept (philosophy)|concept]] in [[philosophy]].<ref>{{cite book|title=Things}}</ref> It is
studied by [[Aristotle]]'s followers &amp; others.<!-- hidden note -->

== History ==
Early history of [[Thing#Early|things]].
{| class="wikitable"
| a table cell with [[Table link]]
|}

==== Deep detail ====
A level jump, attached to History.

== Uses ==
Some uses.<ref name="x"/>
=== In science ===
[[Category:Things]] Science uses [[Special:Random|random pages]] and [[fr:Chose]].

==  see ALSO  ==
{{Portal|Philosophy}}
{{div col|colwidth=20em}}
* [[Idea]]
* [[object (philosophy)|Object]]
* {{annotated link|Concept}}
{{div col end}}
{{columns-list|2|
* [[Entity]]
* [[Idea]]
}}

== References ==
{{reflist}}
"""


def test_tree_levels_paths_and_level_jump():
    article = parse_wikitext("Thing", PAGE, page_id="7")
    titles = [(s.level, s.path, s.parent) for s in article.sections]
    assert titles == [
        (2, ["Thing", "History"], -1),
        (4, ["Thing", "History", "Deep detail"], 0),
        (2, ["Thing", "Uses"], -1),
        (3, ["Thing", "Uses", "In science"], 2),
        (2, ["Thing", "see ALSO"], -1),
        (2, ["Thing", "References"], -1),
    ]
    assert article.id == "7"
    assert article.children(-1) == [0, 2, 4, 5]
    assert article.depth(1) == 2


def test_text_is_plain():
    article = parse_wikitext("Thing", PAGE)
    assert article.abstract == ("Thing is a concept in philosophy. It is studied by Aristotle's followers & others.")
    assert article.sections[0].text == "Early history of things."
    assert article.sections[3].text == "Science uses random pages and ."
    assert article.sections[-1].text == ""  # empty sections are kept, never dropped
    for text in [article.abstract] + [s.text for s in article.sections]:
        assert not LEFTOVER.search(text)
        assert "Table link" not in text and "hidden" not in text and "Things" not in text


def test_links_have_anchor_target_sentence_and_section():
    article = parse_wikitext("Thing", PAGE)
    links = {(link.target, link.anchor, link.section) for link in article.links}
    assert ("Concept (philosophy)", "concept", -1) in links
    assert ("Aristotle", "Aristotle", -1) in links
    assert ("Thing", "things", 0) in links
    # files, categories, other namespaces and other languages are not article links
    assert not any(link.target.startswith(("File", "Category", "Special", "Fr:")) for link in article.links)
    aristotle = next(link for link in article.links if link.target == "Aristotle")
    assert aristotle.sentence == "It is studied by Aristotle's followers & others."


def test_see_also_any_spacing_and_case_piped_and_list_templates():
    article = parse_wikitext("Thing", PAGE)
    assert article.see_also == ["Idea", "Object (philosophy)", "Concept", "Entity"]


def test_see_also_per_language_and_configurable():
    page = "Teksts.\n== Verīs taipoš ==\n* [[Latgola]]\n[[Kategoreja:X]]\n"
    latgalian = ENGLISH.with_names({14: "Kategoreja"})  # as read from the dump's <siteinfo>
    assert parse_wikitext("A", page, language="ltg", namespaces=latgalian).see_also == ["Latgola"]
    assert parse_wikitext("A", page, language="ltg").see_also == ["Latgola", "Kategoreja:X"]
    assert parse_wikitext("A", page, language="en").see_also == []
    assert parse_wikitext("A", page, see_also_titles=("Verīs  Taipoš",), namespaces=latgalian).see_also == ["Latgola"]


def test_see_also_targets_skip_non_articles():
    section = "* [[:Category:Foo]]\n* [[#Local]]\n* [[wikt:word]]\n* [[Real_page#Part|x]]\n{{Portal|Y}}\n"
    assert see_also_targets(section) == ["Real page"]


def test_redirects_and_disambiguation():
    assert redirect_target("#REDIRECT [[Computer accessibility]] {{R from move}}") == "Computer accessibility"
    assert redirect_target("#redirect:[[foo_bar#x]]") == "Foo bar"
    assert redirect_target("'''Foo''' is") is None
    assert parse_wikitext(
        "Mercury", "'''Mercury''' may refer to:\n* [[Mercury (planet)]]\n{{disambiguation}}"
    ).is_disambiguation
    assert not parse_wikitext("Thing", PAGE).is_disambiguation
    # Latgalian Wikipedia's template (it adds __DISAMBIG__ itself), as on "Lītne" of the vendored ltgwiki sample
    latgalian = "'''Lītne''' var zeimuot:\n* [[Lītne (kimejā)|Lītne]] — cīts materials\n\n{{Zeimeibu škiršona}}"
    assert parse_wikitext("Lītne", latgalian, language="ltg").is_disambiguation


def test_deeply_nested_and_unbalanced_templates():
    nested = "{{a|" * 2000 + "x" + "}}" * 2000
    article = parse_wikitext("Deep", f"Before {nested} after.\n== S ==\nText.")
    assert article.abstract == "Before after."
    assert article.sections[0].text == "Text."
    # an unclosed template keeps the rest of the page rather than losing it
    article = parse_wikitext("Open", "Lead {{cite web|url=x\n== S ==\nStill here.")
    assert article.sections[0].title == "S" and article.sections[0].text == "Still here."


def test_deeply_nested_links_do_not_crash():
    article = parse_wikitext("Links", "[[" * 3000 + "x" + "]]" * 3000 + "\n== S ==\nok")
    assert article.sections[-1].text == "ok"
    assert not LEFTOVER.search(article.abstract)


def test_strip_non_text_keeps_text_between_templates():
    assert strip_non_text("a {{x|{{y}}}} b <ref>c</ref> d <!-- e --> f") == "a  b  d  f"


def test_titles():
    assert normalize_title("foo_bar%20baz#Sec") == "Foo bar baz"
    assert normalize_title(" :category talk:x ") == "Category talk:x"
    assert classify_link("File:X.png") == "media"
    assert classify_link(":Category:X") == "other"
    assert classify_link("de:Ding") == "interlanguage"
    assert classify_link("Star Wars: Episode I") == "article"


def test_localised_file_aliases_and_image_options_leave_no_caption_or_link():
    text = (
        "Sa Pa là một thị xã.\n[[Hình:Sapa.jpg|nhỏ|250px|trái|Một góc thị xã Sa Pa|thế=Sa Pa]]\n"
        "Thị xã thuộc tỉnh [[Lào Cai]].\n\n== Lịch sử ==\n[[Εικόνα:X.jpg|150px|right|thumb|Λεζάντα]]"
        "[[画像:Y.png|サムネイル|200ピクセル|説明文]][[Unknownprefix:Z.jpg|thumb|left|A caption]]Văn bản."
    )
    article = parse_wikitext("Sa Pa", text, language="vi", namespaces=_namespaces((), "vi"))
    plain = article.abstract + " ".join(s.text for s in article.sections)
    for debris in ("nhỏ", "250px", "trái", "Một góc", "thế=", "150px", "thumb", "Λεζάντα", "説明文", "A caption"):
        assert debris not in plain
    assert [link.target for link in article.links] == ["Lào Cai"]


def test_a_prefixed_link_without_image_options_stays_a_link():
    assert is_media_link("Foo:Bar.jpg", "thumb|caption") and not is_media_link("Foo:Bar", "Bar")
    assert not is_media_link("Paris", "left")  # no prefix: an article whose anchor is a word
    assert is_image_option("x200px") and is_image_option("upright=1.2") and not is_image_option("Left")


def test_debris_of_indented_tables_separators_and_see_also_category_lines():
    text = (
        'Лідер тексту.\n: {| style="border:1px solid #ddd;"\n|-\n| Клітинка || Друга\n|}\n'
        "[[Російська імперія]]{{•}}[[Боротьба]]\n\n== Народились ==\n"
        ": ''Дивись також'' [[:Категорія:Народились 1944]]\n* [[Ельфріде Єлінек]], письменниця\n"
    )
    article = parse_wikitext("1944", text, language="uk", namespaces=_namespaces((), "uk"))
    plain = article.abstract + "\n" + article.sections[0].text
    for debris in ("style=", "||", "|-", "{|", "Клітинка", "Категорія", "Дивись також"):
        assert debris not in plain
    assert "Російська імперія • Боротьба" in plain and "Ельфріде Єлінек, письменниця" in plain


def test_a_template_whose_last_parameter_line_is_empty_leaves_no_brace():
    # the climate box of the Ukrainian Wikipedia's page Берлін ends on a line "|}}": the template's last, empty
    # parameter and its end, not a table's end followed by a stray brace
    text = "Середньорічна температура 8,9 °C.\n{{Клімат міста\n|Місто_род=Берліна\n| Січ_сер=0.6\n|}}\n\nДалі."
    assert strip_non_text(text) == "Середньорічна температура 8,9 °C.\n\n\nДалі."
    table_in_template = "A\n{{Box|\n{|\n| cell\n|}}}\nB"
    assert strip_non_text(table_in_template) == "A\n\nB"
