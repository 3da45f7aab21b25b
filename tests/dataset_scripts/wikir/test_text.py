"""Cleaning in any script, the body of an article, and where its links stand."""

from __future__ import annotations

from dataset_scripts.corpus.article import Article, Link, Section
from dataset_scripts.wikir.text import Body, LinkLocator, clean


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
