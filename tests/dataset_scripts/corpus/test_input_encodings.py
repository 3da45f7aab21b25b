"""Inputs in another encoding or packing than the readers expect: a UTF-8 byte-order mark is read past, UTF-16 text
and a Parquet file with a damaged footer are refused naming what they are, a tar of gzipped NDJSON members is read,
whether the format is sniffed or given with ``--format``."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from wikiformer_kit.dataset_scripts.corpus.__main__ import main
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.formats.base import CorpusFormatError
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions

BOM = b"\xef\xbb\xbf"
STRUCTURED = SAMPLES / "enterprise" / "structured-contents-sample.ndjson"
HTML_DUMP = SAMPLES / "enterprise" / "wiki-NS0-sample-ENTERPRISE-HTML.json.tar.gz"


def structured_lines(count: int) -> bytes:
    """The vendored Structured Contents record ``count`` times, each with an id and a name of its own."""
    record = json.loads(STRUCTURED.read_text().splitlines()[0])
    return b"".join(
        json.dumps({**record, "name": f"Page {n}", "identifier": 1000 + n}).encode() + b"\n" for n in range(count)
    )


def html_lines() -> bytes:
    with tarfile.open(HTML_DUMP) as archive:
        return next(archive.extractfile(m).read() for m in archive if m.name.startswith("enwiki"))


INPUTS = {  # name: (file name, its bytes, its format)
    "structured-contents": ("part.ndjson", lambda: structured_lines(3), "structured-contents"),
    "enterprise-html": ("part.ndjson", html_lines, "enterprise-html"),
    "wikiextractor-json": ("wiki.jsonl", lambda: (SAMPLES / "wikiextractor" / "wiki_toy.jsonl").read_bytes(),
                           "wikiextractor-json"),
    "wikiextractor-text": ("wiki_00", lambda: (SAMPLES / "wikiextractor" / "wiki_00").read_bytes(),
                           "wikiextractor-text"),
    "wikitext": ("Alpha.wiki", lambda: b"'''Alpha''' is the first letter, before [[Beta]].\n", "wikitext"),
}  # fmt: skip


def build(path: Path, out: Path, fmt: str = "auto", processes: int = 1) -> tuple[dict, list[str]]:
    """The statistics and the article titles of a corpus built from ``path``."""
    stats = build_corpus([path], out, CorpusOptions(fmt=fmt), ExecutorOptions(num_proc=processes))
    return dict(stats), sorted(row["title"] for row in rows(out))


def rows(out: Path) -> list[dict]:
    import pyarrow.parquet as pq

    return [row for path in sorted((out / "data").glob("*.parquet")) for row in pq.read_table(path).to_pylist()]


@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_a_utf8_byte_order_mark_is_read_past(kind, tmp_path):
    name, data, fmt = INPUTS[kind]
    plain, marked = tmp_path / "plain" / name, tmp_path / "marked" / name
    for path, head in ((plain, b""), (marked, BOM)):
        path.parent.mkdir()
        path.write_bytes(head + data())
    expected = build(plain, tmp_path / "expected")
    assert expected[0]["articles"] >= 1
    assert not any(row["abstract"].startswith("\ufeff") for row in rows(tmp_path / "expected"))
    assert build(marked, tmp_path / "sniffed") == expected  # found by its content, first record kept
    assert rows(tmp_path / "sniffed") == rows(tmp_path / "expected")  # no mark left in a text
    assert build(marked, tmp_path / "given", fmt) == expected
    if kind in ("structured-contents", "enterprise-html"):  # a plain NDJSON file is cut into byte ranges
        assert build(marked, tmp_path / "ranges", processes=2) == expected


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("fmt", ["auto", "structured-contents", "wikitext"])
def test_utf16_text_is_refused_naming_its_encoding(encoding, fmt, tmp_path, capsys):
    path = tmp_path / "part.ndjson"
    path.write_bytes(structured_lines(2).decode().encode(encoding))
    out = tmp_path / "out"
    assert main([str(path), "--output-dir", str(out), "--format", fmt]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (
        f"error: {path}: UTF-16 text; the readers read UTF-8: re-encode it as UTF-8 (iconv -f UTF-16 -t UTF-8)"
    )
    assert not out.exists()


def test_a_utf16_file_in_a_folder_is_a_counted_skip(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.ndjson").write_bytes(structured_lines(2))
    (folder / "b.ndjson").write_bytes(structured_lines(2).decode().encode("utf-16"))
    stats, titles = build(folder, tmp_path / "out")
    assert titles == ["Page 0", "Page 1"] and stats["skipped:non-utf8-file"] == 1
    (folder / "a.ndjson").unlink()
    with pytest.raises(
        CorpusFormatError, match=r"nothing readable: .*b\.ndjson: UTF-16 text; .* re-encode it as UTF-8"
    ):
        build_corpus([folder], tmp_path / "again")


def gzipped_member_tar(path: Path) -> Path:
    lines = structured_lines(4).splitlines(keepends=True)
    with tarfile.open(path, "w") as archive:
        for name, part in (("wiki_0.ndjson.gz", lines[:2]), ("wiki_1.ndjson.gz", lines[2:])):
            data = gzip.compress(b"".join(part))
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("fmt", ["auto", "structured-contents"])
def test_a_tar_of_gzipped_ndjson_members_is_read_as_a_tar_of_ndjson_members(fmt, tmp_path):
    path = gzipped_member_tar(tmp_path / "dump.tar")
    for processes in (1, 2):
        stats, titles = build(path, tmp_path / f"out-{processes}", fmt, processes)
        assert titles == [f"Page {n}" for n in range(4)] and stats["articles"] == 4
        assert not [key for key in stats if key.startswith("skipped:")]


def damaged_footer_parquet(folder: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / "structured.parquet"
    pq.write_table(pa.table({"name": ["Page 0"], "identifier": [1000], "sections": ["[]"]}), path)
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    data[-8 - footer : -8] = b"\xff" * footer  # the pages intact, the footer (their index) not
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("fmt", ["auto", "structured-contents"])
def test_a_parquet_file_with_a_damaged_footer_is_named_so(fmt, tmp_path, capsys):
    path = damaged_footer_parquet(tmp_path)
    assert main([str(path), "--output-dir", str(tmp_path / "out"), "--format", fmt]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"error: {path}: a damaged Parquet file: its footer (the index of its rows) cannot be read")
    assert "download it again" in line and "not recognised" not in line


def test_a_damaged_parquet_file_in_a_folder_is_a_counted_skip(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    damaged_footer_parquet(folder)
    (folder / "a.ndjson").write_bytes(structured_lines(1))
    stats, titles = build(folder, tmp_path / "out")
    assert titles == ["Page 0"] and stats["skipped:damaged-file"] == 1
