"""The dump a source file's name names, as the cards state it."""

from __future__ import annotations

from wikiformer_kit.dataset_scripts.corpus.dump_identity import dump_identity


def test_xml_dumps_and_enterprise_dumps_are_named_with_their_date():
    assert dump_identity("enwiki-20240601-pages-articles.xml.bz2") == "Wikimedia dump `enwiki` of 2024-06-01"
    assert dump_identity("frwiki-NS0-20240601-ENTERPRISE-HTML.json.tar.gz") == (
        "Wikimedia Enterprise HTML dump `frwiki`, namespace 0, of 2024-06-01"
    )
    assert dump_identity("wiki-NS0-sample-ENTERPRISE-HTML.json.tar.gz") == "dump name and date not in the file name"
