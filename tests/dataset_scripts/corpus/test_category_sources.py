"""What the corpus card says of the categories, by input format."""

from __future__ import annotations

from wikiformer_kit.dataset_scripts.corpus.category_sources import CATEGORY_SOURCES, categories_note
from wikiformer_kit.dataset_scripts.corpus.sources import FORMAT_NAMES


def test_every_named_format_exists():
    assert set(CATEGORY_SOURCES) <= set(FORMAT_NAMES)


def test_the_note_names_the_source_of_each_format_and_the_formats_without_categories():
    wikitext = categories_note(["mediawiki-xml"])
    assert "category links written in the wikitext" in wikitext and "templates add are not" in wikitext
    mixed = categories_note(["enterprise-html", "markdown", "enterprise-html"])
    assert "mw:PageProp/Category" in mixed and "the record's own `categories` list" in mixed
    assert mixed.endswith("markdown input has no categories: the list is empty.")
    assert "the records Wikimedia publishes have none" in categories_note(["structured-contents"])
    assert categories_note(["markdown", "html"]) == "markdown, html inputs have no categories: the list is empty."
