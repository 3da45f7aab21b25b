"""Each Wikipedia's own namespaces (``Portail:``, ``Портал:``, ``Anexo:``) are no articles, in every reader."""

from __future__ import annotations

import json

import pytest

from wikiformer_kit.dataset_scripts.corpus.formats import enterprise_html
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
from wikiformer_kit.dataset_scripts.corpus.titles import CATEGORY_KEY, ENGLISH, classify_link


@pytest.mark.parametrize(
    ("language", "target"),
    [
        ("fr", "Portail:Football"),
        ("fr", "Discussion Portail:Football"),
        ("fr", "Projet:Football"),
        ("ru", "Портал:Футбол"),
        ("es", "Anexo:Futbolistas de España"),
        ("es", "Wikiproyecto:Fútbol"),
        ("en", "Draft:Football"),
    ],
)
def test_a_wikis_own_namespace_is_no_article(language, target):
    assert classify_link(target, ENGLISH.with_aliases(namespace_names(language))) == "other"


def test_a_title_with_a_colon_that_names_no_namespace_stays_an_article():
    french = ENGLISH.with_aliases(namespace_names("fr"))
    assert classify_link("Star Wars : Un nouvel espoir", french) == "article"
    assert classify_link("Mission: Impossible", french) == "article"
    assert classify_link("Anexo:Futbolistas", french) == "article"  # Spanish, not French


def test_extra_names_join_the_core_ones_and_files_and_categories_stay_media():
    french = namespace_names("fr")
    assert french[100] == ("Portail",) and "Catégorie" in french[CATEGORY_KEY]
    russian = ENGLISH.with_aliases(namespace_names("ru"))
    assert classify_link("К:Футбол", russian) == "media"  # ruwiki's short alias of its Category namespace
    assert "к" in russian.category and "к" not in russian.other
    assert namespace_names("xx") == {}


def test_a_french_record_keeps_only_article_links_as_see_also_not_its_portal_banner(tmp_path):
    def link(title: str, text: str) -> str:
        return f'<a rel="mw:WikiLink" href="./{title.replace(" ", "_")}" title="{title}">{text}</a>'

    body = (
        f'<section data-mw-section-id="0"><p>Le {link("Football", "football")} se joue à onze.</p></section>'
        '<section data-mw-section-id="1"><h2 id="Voir_aussi">Voir aussi</h2>'
        f"<ul><li>{link('Football en France', 'Football en France')}</li>"
        f"<li>{link('Coupe du monde de football', 'Coupe du monde')}</li></ul>"
        '<ul id="bandeau-portail" class="bandeau-portail"><li><span class="bandeau-portail-element">'
        f'<span class="bandeau-portail-texte">{link("Portail:Football", "Portail du football")}</span></span></li>'
        f'<li><span class="bandeau-portail-element"><span class="bandeau-portail-texte">'
        f"{link('Portail:Sport', 'Portail du sport')}</span></span></li></ul></section>"
    )
    record = {
        "name": "Règles du football",
        "identifier": 7,
        "is_part_of": {"identifier": "frwiki"},
        "article_body": {"html": f"<!DOCTYPE html><html><head></head><body>{body}</body></html>"},
    }
    path = tmp_path / "part.ndjson"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (article,) = enterprise_html.read(path, ReaderOptions())
    assert article.language == "fr"
    assert article.see_also == ["Football en France", "Coupe du monde de football"]
    assert not any(link.target.startswith("Portail:") for link in article.links)
