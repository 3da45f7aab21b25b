"""Wikimedia Enterprise Structured Contents: nested sections and paragraph links as one Article, no See also."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile

from tests.conftest import PROJECT_ROOT, SAMPLES
from tests.dataset_scripts.corpus.formats.markup import HTML_TAG, assert_clean, split_records
from wikiformer_kit.dataset_scripts.corpus.formats import enterprise_html, structured_contents
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.sources import detect_format

SAMPLE = SAMPLES / "enterprise" / "structured-contents-sample.ndjson"
HTML_DUMP = SAMPLES / "enterprise" / "wiki-NS0-sample-ENTERPRISE-HTML.json.tar.gz"
OPTIONS = ReaderOptions()


def test_structured_contents_and_html_dumps_are_told_apart_by_content():
    assert detect_format(SAMPLE) is structured_contents
    assert detect_format(HTML_DUMP) is enterprise_html


def test_the_record_is_one_article_with_its_sections_and_links():
    (article,), skipped, _ = split_records(structured_contents.read(SAMPLE, OPTIONS))
    assert skipped == []
    assert (article.title, article.language, article.source) == ("Montreal", "en", "structured-contents")
    assert article.abstract.startswith("Montreal (CA: /ˌ m ʌ n t r i ˈ ɔː l / MUN -tree-AWL; French: Montréal)")
    sections = [(s.title, s.level, s.parent) for s in article.sections]
    assert sections[0] == ("Etymology and original names", 2, -1)
    assert ("Sister cities", 3, sections.index(("International relations", 2, -1))) in sections
    by_target = {link.target: link for link in article.links}
    canada = by_target["Canada"]
    assert canada.anchor == "Canada" and "second most populous city in Canada" in canada.sentence
    assert "Help:IPA/English" not in by_target  # another namespace: its text only
    assert not any(".mp3" in target or "upload.wikimedia.org" in target for target in by_target)
    assert article.see_also == []  # Structured Contents leaves See also out
    assert_clean(article, HTML_TAG)


def test_bad_records_are_counted_skips(tmp_path):
    good = SAMPLE.read_bytes().strip()
    path = tmp_path / "part.ndjson"
    path.write_bytes(b"\n".join([b"{", json.dumps({"name": "X", "identifier": 1}).encode(), good]) + b"\n")
    found, skipped, reasons = split_records(structured_contents.read(path, OPTIONS))
    assert [a.title for a in found] == ["Montreal"]
    assert reasons == {"bad-json": 1, "no-sections": 1}
    assert [s.record for s in skipped] == ["line 1", "line 2 (X)"]


def test_a_tar_gz_of_records_is_read_as_the_html_dumps_are(tmp_path):
    data = SAMPLE.read_bytes()
    path = tmp_path / "enwiki-NS0-structured.json.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("enwiki_namespace_0_0.ndjson")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    module = detect_format(path)  # the sections lie beyond the bytes sniffed: taken for an HTML dump
    assert module in (structured_contents, enterprise_html)
    (article,) = split_records(module.read(path, OPTIONS))[0]
    assert (article.title, article.source) == ("Montreal", "structured-contents")


def test_the_build_names_why_ltm_is_empty(tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, "-m", "dataset_scripts.build", "--input", str(SAMPLE), "--output-dir", str(out)]
    result = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "ltm: 0 rows: none of the 1 articles has a See also link (Wikimedia's Structured Contents leave the See also"
        " section out: build LTM from an XML or Enterprise HTML dump of the same wiki)" in result.stdout
    ), result.stdout
    for task in ("srr", "rwi", "ati"):
        assert f"{task}: 1 rows" in result.stdout, result.stdout
