"""Template parameters split without mwparserfromhell's parse are the ones its parse gives."""

from __future__ import annotations

import random
import re

import mwparserfromhell

from wikiformer_kit.dataset_scripts.corpus.formats.base import RawPage
from wikiformer_kit.dataset_scripts.corpus.formats.mediawiki_xml import read_raw
from wikiformer_kit.dataset_scripts.corpus.templates import template_parameters


def parsed_parameters(wikitext: str):
    templates = mwparserfromhell.parse(wikitext).filter_templates(recursive=False)
    if not templates:
        return None
    return [(p.showkey, str(p.name) if p.showkey else "", str(p.value)) for p in templates[0].params]


def test_random_templates_split_as_mwparserfromhell_parses_them():
    rng = random.Random(0)
    alphabet = list("ab1 =|&;:'\".,-#_\t~*/%!?()") + ["&nbsp;", "''", "é", "{{x}}", "[[a|b]]", "<br/>", "\n", "\r"]
    alphabet += ["http://x", "__TOC__", "&#", "\x00", "\u00a0"]
    for _ in range(4000):
        name = rng.choice(["convert", "lang", "nbsp", " Nowrap ", "=", "!", "val"])
        body = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        wikitext = "{{" + name + ("|" if rng.random() < 0.8 else "") + body + "}}"
        assert template_parameters(wikitext) == parsed_parameters(wikitext), wikitext


def test_the_templates_of_a_real_dump_split_as_mwparserfromhell_parses_them(enwiki_sample):
    innermost = re.compile(r"\{\{(?:(?!\{\{|\}\}).)*\}\}", re.S)
    checked = 0
    for page in read_raw(enwiki_sample):
        if isinstance(page, RawPage):
            for wikitext in innermost.findall(page.wikitext)[:40]:
                assert template_parameters(wikitext) == parsed_parameters(wikitext), wikitext
                checked += 1
    assert checked > 1000
