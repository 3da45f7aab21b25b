"""Every corpus reader on damaged copies of real sample files (see tests/fuzzing.py): truncated, with random bytes
spliced in, re-encoded, empty. A run ends with records and counted skips or a named CorpusFormatError, never
another exception, and no record that lies wholly before the damage is lost."""

from __future__ import annotations

import bz2
import io
import lzma
import tarfile
import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ENWIKI_SAMPLE, SAMPLES
from tests.fuzzing import CASES, FUZZ_SETTINGS, damaged, kept_before, record_ends
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.extract import read_articles
from wikiformer_kit.dataset_scripts.corpus.formats.base import CorpusFormatError, ReaderOptions, Redirect, Skipped
from wikiformer_kit.dataset_scripts.corpus.sources import detect_format, get_format


def small_enwiki_dump() -> bytes:
    """The siteinfo, the first 6 redirects and the first 6 articles under 30 kB of the vendored dump."""
    xml = bz2.open(ENWIKI_SAMPLE).read()
    header_end = xml.find(b"<page>")
    ends = [header_end, *record_ends(xml, b"</page>")]
    pages = [xml[start:end] for start, end in zip(ends, ends[1:], strict=False)]
    redirects = [p for p in pages if b"<redirect" in p][:6]
    articles = [p for p in pages if b"<redirect" not in p and len(p) < 30_000][:6]
    return xml[:header_end] + b"".join(redirects + articles) + b"\n</mediawiki>\n"


def jsonl_ends(data: bytes) -> list[int]:
    lines, ends, offset = data.split(b"\n"), [], 0
    for line in lines:
        offset += len(line) + 1
        if line.strip():
            ends.append(offset)
    return ends


def enterprise_member() -> bytes:
    """The English member of the vendored Enterprise HTML dump: two whole records, one a line."""
    with tarfile.open(SAMPLES / "enterprise" / "wiki-NS0-sample-ENTERPRISE-HTML.json.tar.gz") as archive:
        return archive.extractfile("enwiki_namespace_0_0.ndjson").read()


def tar_gz(data: bytes) -> bytes:
    """``data`` as the one NDJSON member of a .json.tar.gz, as Enterprise dumps are shipped."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("enwiki_namespace_0_0.ndjson")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


STRUCTURED = SAMPLES / "structured"
OTHER = SAMPLES / "wikipedia" / "other-languages"
# format -> (real sample bytes, file name, how to find where each record ends; None: one document per file)
SAMPLES_BY_FORMAT = {
    "mediawiki-xml": (small_enwiki_dump, "dump.xml", lambda data: record_ends(data, b"</page>")),
    "wikiextractor-text": (lambda: (SAMPLES / "wikiextractor" / "wiki_00").read_bytes(), "wiki_00", None),
    "wikiextractor-json": (lambda: (SAMPLES / "wikiextractor" / "wiki_toy.jsonl").read_bytes(), "w.jsonl", jsonl_ends),
    "enterprise-html": (enterprise_member, "part.ndjson", jsonl_ends),
    "structured-contents": (
        lambda: (SAMPLES / "enterprise" / "structured-contents-sample.ndjson").read_bytes() * 2,
        "part.ndjson",
        jsonl_ends,
    ),
    "xml-sections": (lambda: (STRUCTURED / "wikiformer-readme-example.xml").read_bytes(), "doc.xml", None),
    "html": (lambda: (STRUCTURED / "wikiformer-readme-example.html").read_bytes(), "doc.html", None),
    "latex": (lambda: (STRUCTURED / "wikiformer-readme-example.tex").read_bytes(), "doc.tex", None),
    "markdown": (lambda: (STRUCTURED / "wikiformer-readme-example.md").read_bytes(), "doc.md", None),
    "wikitext": (lambda: (OTHER / "zh" / "电信级NAT.wikitext").read_bytes(), "电信级NAT.txt", None),
}
ORIGINALS = {name: load() for name, (load, _, _) in SAMPLES_BY_FORMAT.items()}
# compressed copies: damage to the compressed bytes (a cut download, a flipped byte) must end as a counted skip
COMPRESSED = {
    "mediawiki-xml": ("dump.xml.bz2", bz2.compress),
    "wikiextractor-text": ("wiki_00.xz", lzma.compress),
    "enterprise-html": ("dump.json.tar.gz", tar_gz),
}
SAMPLES_BY_FORMAT["wikiextractor-text"] = (None, "wiki_00", lambda data: record_ends(data, b"\n</doc>\n"))


EXPECTED: dict[str, list] = {}


def identity(record) -> tuple[str, str]:
    if isinstance(record, Article):
        return "article", record.title
    if isinstance(record, Redirect):
        return "redirect", record.source
    return "skipped", record.reason + ":" + record.record


def read_all(fmt: str, path: Path) -> list | CorpusFormatError:
    """Every record the reader yields, or the CorpusFormatError it raised (which must name the file); the file is
    sniffed first, as a folder walk does (any answer but an exception)."""
    detect_format(path)
    try:
        records = list(read_articles(get_format(fmt), path, ReaderOptions()))
    except CorpusFormatError as error:
        assert str(path) in str(error) or path.name in str(error), error
        return error
    for record in records:
        assert isinstance(record, (Article, Redirect, Skipped)), record
        if isinstance(record, Skipped):
            assert record.reason and record.file == str(path), record
    return records


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.parametrize("fmt", sorted(SAMPLES_BY_FORMAT))
def test_the_undamaged_samples_are_read(fmt, workdir):
    _, name, _ = SAMPLES_BY_FORMAT[fmt]
    path = workdir / f"ok-{fmt}" / name
    path.parent.mkdir()
    path.write_bytes(ORIGINALS[fmt])
    records = read_all(fmt, path)
    assert not isinstance(records, CorpusFormatError) and any(isinstance(r, Article) for r in records)


@pytest.mark.parametrize("fmt", sorted(SAMPLES_BY_FORMAT))
@FUZZ_SETTINGS
@given(data=st.data())
def test_damaged_files_end_in_skips_or_named_errors_and_keep_earlier_records(fmt, workdir, data):
    original = ORIGINALS[fmt]
    damage = data.draw(damaged(original), label="damage")
    _, name, ends = SAMPLES_BY_FORMAT[fmt]
    path = workdir / uuid.uuid4().hex / name
    path.parent.mkdir()
    path.write_bytes(damage.data)
    CASES[fmt] += 1
    records = read_all(fmt, path)
    if ends is None or isinstance(records, CorpusFormatError):
        assert not (ends and damage.kind in ("truncate", "splice") and kept_before(ends(original), damage)), (
            "a stream reader refused a file whose first records were intact"
        )
        return
    if fmt not in EXPECTED:
        reference = path.with_name("reference-" + name)
        reference.write_bytes(original)
        EXPECTED[fmt] = [identity(r) for r in read_all(fmt, reference)]
    expected = EXPECTED[fmt]
    kept = kept_before(ends(original), damage)
    assert [identity(r) for r in records][:kept] == expected[:kept], damage


@pytest.mark.parametrize("fmt", sorted(COMPRESSED))
@FUZZ_SETTINGS
@given(data=st.data())
def test_damaged_compressed_files_end_in_skips_or_named_errors(fmt, workdir, data):
    name, compress = COMPRESSED[fmt]
    damage = data.draw(damaged(compress(ORIGINALS[fmt])), label="damage")
    path = workdir / uuid.uuid4().hex / name
    path.parent.mkdir()
    path.write_bytes(damage.data)
    CASES[f"{fmt} ({Path(name).suffix})"] += 1
    read_all(fmt, path)


def test_zz_cases_were_run():
    """Runs last in this module: every reader got its damaged cases (the count is printed with ``-s``)."""
    print(f"\ncorpus reader fuzz cases: {dict(CASES)} ({sum(CASES.values())} in all)")
    assert set(SAMPLES_BY_FORMAT) <= set(CASES) or not CASES  # empty when this test is selected alone
