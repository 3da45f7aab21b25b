"""The licence a card states follows the corpus's input formats: Wikipedia, MS MARCO, anything else."""

from __future__ import annotations

from wikiformer_kit.dataset_scripts.corpus.source_license import MSMARCO_TERMS, WIKIPEDIA_TEXT, source_license


def test_wikipedia_formats_are_cc_by_sa_with_attribution():
    for formats in (["mediawiki-xml"], ["wikiextractor-json", "wikiextractor-text"], ["wikitext"]):
        licence = source_license(formats, "x.xml.bz2")
        assert licence.card_data() == {"license": "cc-by-sa-4.0"}
        assert licence.paragraphs == (WIKIPEDIA_TEXT,) and "Wikipedia contributors" in WIKIPEDIA_TEXT


def test_msmarco_documents_carry_microsofts_non_commercial_terms():
    licence = source_license(["msmarco-tsv"], "msmarco_toy.tsv")
    assert licence.card_data() == {"license": "other", "license_name": "ms-marco-terms", "license_link": MSMARCO_TERMS}
    text = " ".join(licence.paragraphs)
    assert "non-commercial research" in text and "MS MARCO" in text and "CC BY-SA" not in text


def test_other_and_mixed_inputs_name_the_input_corpus():
    licence = source_license(["html"], "pages.zip")
    assert licence.license == "other" and "input corpus (pages.zip)" in licence.paragraphs[0]
    assert "CC BY-SA" not in licence.paragraphs[0]
    mixed = source_license(["mediawiki-xml", "msmarco-tsv"], "a.xml, b.tsv")
    assert mixed.license == "other" and len(mixed.paragraphs) == 2
    assert "CC BY-SA 4.0" in mixed.paragraphs[0] and "non-commercial" in mixed.paragraphs[1]
    unknown = source_license(None, "old-corpus")
    assert unknown.license == "other" and "did not record the input formats" in unknown.paragraphs[0]
