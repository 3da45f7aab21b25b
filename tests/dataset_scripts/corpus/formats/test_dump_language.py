"""The language of a MediaWiki dump when its header has no ``<dbname>`` (dumps of about 2015 and older): its root's
``xml:lang``, else its ``<base>`` host, else its file name; ``--language`` over all of them; the build says which
gave it."""

from __future__ import annotations

import pytest

from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.extract import read_articles
from wikiformer_kit.dataset_scripts.corpus.folder import read_build_record
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions
from wikiformer_kit.dataset_scripts.corpus.summary import corpus_summary

FIREFOX = (
    "'''Mozilla Firefox''' ist ein freier Webbrowser des Mozilla-Projektes. Er wurde im September 2002 "
    "veröffentlicht. Firefox ist einer der meistgenutzten Webbrowser der Welt.\n\n"
    "== Geschichte ==\nDer Browser ging aus der Mozilla Application Suite hervor und hieß zunächst Phoenix.\n\n"
    "== Siehe auch ==\n* [[Liste von Webbrowsern]]\n* [[Mozilla Thunderbird]]\n\n"
    "== Weblinks ==\n* [https://www.mozilla.org Offizielle Website]\n"
)


def _dump(path, root_attributes: str = "", siteinfo: str = "<sitename>Wikipedia</sitename>"):
    path.write_text(
        f'<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10"{root_attributes}>'
        f"<siteinfo>{siteinfo}</siteinfo>"
        "<page><title>Mozilla Firefox</title><ns>0</ns><id>1</id><revision><text>"
        f"{FIREFOX.replace('&', '&amp;').replace('<', '&lt;')}</text></revision></page></mediawiki>",
        encoding="utf-8",
    )
    return path


def _articles(path, options: ReaderOptions = ReaderOptions()):
    return [a for a in read_articles(mediawiki_xml, path, options) if hasattr(a, "see_also")]


def test_a_dump_without_dbname_is_read_in_the_language_of_its_xml_lang(tmp_path):
    dump = _dump(tmp_path / "pages.xml", ' xml:lang="de"', "<sitename>Wikipedia</sitename><base>x</base>")
    (article,) = _articles(dump)
    assert article.language == "de"
    assert article.see_also == ["Liste von Webbrowsern", "Mozilla Thunderbird"]
    assert article.see_also_found_by == "name"


@pytest.mark.parametrize(
    "name, root, siteinfo, language, source",
    [
        ("pages.xml", ' xml:lang="en"', "<dbname>dewiki</dbname>", "de", "<dbname>"),
        ("pages.xml", "", "<base>https://de.wikipedia.org/wiki/Wikipedia:Hauptseite</base>", "de", "<base>"),
        ("dewiki-20150301-pages-articles.xml", "", "<base>http://x.org/wiki/Main</base>", "de", "file name"),
        ("pages.xml", "", "<base>https://commons.wikimedia.org/wiki/Main</base>", "en", "default"),
    ],
)
def test_the_language_comes_from_the_first_source_that_names_one(tmp_path, name, root, siteinfo, language, source):
    dump = _dump(tmp_path / name, root, siteinfo)
    assert [a.language for a in _articles(dump)] == [language]
    info = mediawiki_xml.read_siteinfo(dump)
    assert (info["language"], info["language_source"]) == (language, source)


def test_language_given_on_the_command_line_overrides_the_dump(tmp_path):
    dump = _dump(tmp_path / "pages.xml", ' xml:lang="en"', "<dbname>enwiki</dbname>")
    options = ReaderOptions(language="de", language_given=True)
    assert [a.language for a in _articles(dump, options)] == ["de"]
    assert [a.see_also for a in _articles(dump, options)] == [["Liste von Webbrowsern", "Mozilla Thunderbird"]]
    assert mediawiki_xml.read_siteinfo(dump, options=options)["language_source"] == "--language"
    # not given, the reader's language is only the last resort
    assert [a.language for a in _articles(dump, ReaderOptions(language="de"))] == ["en"]


def test_the_build_says_where_each_dump_language_came_from(tmp_path):
    dump = _dump(tmp_path / "pages.xml", ' xml:lang="de"')
    build_corpus([dump], tmp_path / "corpus", CorpusOptions())
    assert read_build_record(tmp_path / "corpus")["language_sources"] == {"pages.xml": ["de", "xml:lang"]}
    assert corpus_summary(tmp_path / "corpus")[0].endswith(" (language 'de' of pages.xml from xml:lang)")
