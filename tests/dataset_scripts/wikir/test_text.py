"""Cleaning in any script, the body of an article, and where its links stand."""

from __future__ import annotations

from wikiformer_kit.dataset_scripts.corpus.article import Article, Link, Section
from wikiformer_kit.dataset_scripts.wikir.text import Body, LinkLocator, clean


def test_clean_keeps_letters_digits_and_marks_of_every_script():
    assert clean("Reiga – Latvejis golvysmīsts (1201).", 10) == "Reiga Latvejis golvysmīsts 1201"
    assert clean("Москва́ — столица России!", 10) == "Москва́ столица России"
    assert clean("हिन्दी भाषा, भारत", 10) == "हिन्दी भाषा भारत"  # vowel signs (marks) stay with their letters
    assert clean("Earth's largest_continent", 10) == "Earth s largest continent"  # the original's [^a-zA-Z0-9]


def test_clean_options():
    assert clean("The Atlantic Ocean, second-largest", 3, lowercase=True) == "the atlantic ocean"
    assert clean("The Atlantic Ocean, second-largest", 10, keep_non_alphanumeric=True) == (
        "The Atlantic Ocean, second-largest"
    )


def _article() -> Article:
    sentence_1 = "Transport in Angola is by road."
    sentence_2 = "The Angolan army, in Angola, moves by rail."
    return Article(
        id="1",
        title="Transport in Angola",
        abstract=f"{sentence_1} {sentence_2}",
        sections=[Section("Railways", 2, "The Benguela Railway runs east.", ["Transport in Angola", "Railways"])],
        links=[
            Link("Angola", "Angola", sentence_1),
            Link("Angola", "Angola", sentence_2),
            Link("Benguela Railway", "Benguela Railway", "The Benguela Railway runs east.", section=0),
        ],
    )


def test_body_parts_words_and_first_sentence():
    body = Body.of(_article())
    assert body.parts == [_article().abstract, "Railways", "The Benguela Railway runs east."]
    assert body.first_words == [0, 14, 15] and body.words == 20
    assert body.first_sentence() == (0, 0, len("Transport in Angola is by road. "))  # the space goes with it
    assert body.text(without=body.first_sentence()).startswith("The Angolan army")


def test_links_are_located_as_whole_words_in_their_sentence():
    article = _article()
    locator = LinkLocator(Body.of(article))
    places = [locator.locate(link.section, link.sentence, link.anchor) for link in article.links]
    # "Angola" of the second sentence is the word after "in", not the start of "Angolan"
    assert places == [(0, 13), (0, article.abstract.index("in Angola,") + 3), (2, 4)]
    assert [locator.word_position(*p) for p in places] == [2, 10, 16]
    assert locator.locate(0, "a sentence that is not there", "nowhere") is None
    assert locator.locate(5, "no such section", "x") is None


def _first_sentence(title: str, wikitext: str, language: str) -> str:
    from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext

    body = Body.of(parse_wikitext(title, wikitext, language=language))
    part, start, end = body.first_sentence()
    return body.parts[part][start:end].strip()


def test_hatnotes_are_never_the_first_sentence():
    from tests.conftest import SAMPLES

    pages = SAMPLES / "wikipedia" / "other-languages" / "ltg"
    # a real Latgalian section opening with ":''Golvonais rakstīņs: [[Latgolys geografeja]].''" ("Main article")
    doba = (pages / "Latgolys doba.wikitext").read_text()
    assert _first_sentence("Latgolys doba", doba, "ltg").startswith("Geografiskai Latgola izalikaliejuse iz")
    # a real abstract opening with ":''Najaukt ar [[Latvejis karūgs|...]]...''" ("Not to be confused with")
    flag = (pages / "Latgolys karūgs.wikitext").read_text()
    assert _first_sentence("Latgolys karūgs", flag, "ltg").startswith("Latgolys karūgs aba latgaļu karūgs")
    # the reported Latgola page (dump sample): its only text opens with ":''Golvanīs rakstīņs [[Latgolys doba]]''"
    latgola = "== Doba ==\n:''Golvanīs rakstīņs [[Latgolys doba]]''\n\nGeografiskai Latgola izalikaliejuse iz [[X]]."
    assert _first_sentence("Latgola", latgola, "ltg") == "Geografiskai Latgola izalikaliejuse iz X."
    english = ":''Main article: [[History of Alabama]]''\nAlabama is a state in the Southeastern United States."
    assert _first_sentence("Alabama", english, "en") == "Alabama is a state in the Southeastern United States."
    # an indented italic quotation is prose, not a hatnote
    quote = ":''For we all agree that the most excellent man should rule.''\nAristotle wrote it."
    assert _first_sentence("Aristotle", quote, "en").startswith("For we all agree")
