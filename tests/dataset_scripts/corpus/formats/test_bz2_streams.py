"""bz2 input, a whole file (``open_binary``) and a multistream dump's byte ranges (``_bz2_streams``): the bz2 module's
bytes, the same pages from the ranges as from the whole file, the bz2 module's errors on damaged input, progress
reported."""

from __future__ import annotations

import bz2
import re
from itertools import pairwise

import pytest

from wikiformer_kit.dataset_scripts.corpus.formats import _bz2_streams, mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.formats.base import RawPage, Skipped, open_binary


@pytest.fixture(scope="module")
def multistream(enwiki_sample, tmp_path_factory):
    """The real sample as a multistream dump: a header stream, 20 pages a stream, a footer stream; with the offset
    of every stream and each stream's decompressed text."""
    xml = bz2.decompress(enwiki_sample.read_bytes())
    first = xml.index(b"  <page>")
    pages = re.findall(rb"  <page>\n.*?</page>\n", xml, re.S)
    texts = [xml[:first]] + [b"".join(pages[i : i + 20]) for i in range(0, len(pages), 20)] + [b"</mediawiki>\n"]
    path = tmp_path_factory.mktemp("multistream") / "enwiki-sample-multistream.xml.bz2"
    offsets, data = [], b""
    for text in texts:
        offsets.append(len(data))
        data += bz2.compress(text)
    path.write_bytes(data)
    return path, offsets, texts


def test_a_whole_file_gives_the_bz2_module_s_bytes_and_reports_its_size(enwiki_sample):
    seen = []
    with open_binary(enwiki_sample, seen.append) as stream:
        data = stream.read()
    assert data == bz2.decompress(enwiki_sample.read_bytes())
    assert sum(seen) == enwiki_sample.stat().st_size


def test_a_byte_range_gives_its_streams_and_nothing_more(multistream):
    path, offsets, texts = multistream
    with _bz2_streams.open_bz2_streams(path, offsets[1], offsets[4]) as stream:
        assert stream.read() == b"".join(texts[1:4])
    seen = []
    with _bz2_streams.open_bz2_streams(path, offsets[-3], -1, seen.append) as stream:
        assert stream.read() == b"".join(texts[-3:])
    assert sum(seen) == path.stat().st_size - offsets[-3]
    assert _bz2_streams.open_bz2_streams(path, offsets[2], offsets[2]).read() == b""


def test_multistream_ranges_give_the_same_pages_both_ways_as_the_whole_file(multistream, monkeypatch):
    path, offsets, _ = multistream
    whole = list(mediawiki_xml.read_raw(path))
    cuts = [offsets[1], offsets[3], offsets[5], -1]
    monkeypatch.setattr(mediawiki_xml, "_CHUNK", 7)  # the closing tag split between chunks is still removed
    ranged = [record for byte_range in pairwise(cuts) for record in mediawiki_xml.read_raw(path, byte_range=byte_range)]
    assert ranged == whole and sum(isinstance(r, RawPage) for r in ranged) == 106


def test_a_truncated_file_raises_eof_after_its_whole_blocks(enwiki_sample, tmp_path):
    data = enwiki_sample.read_bytes()
    cut = tmp_path / "cut.xml.bz2"
    cut.write_bytes(data[: len(data) // 2])
    read = bytearray()
    with pytest.raises(EOFError), open_binary(cut) as stream:
        while chunk := stream.read(1 << 16):
            read += chunk
    assert len(read) > 1 << 20 and bz2.decompress(data).startswith(read)


def test_damaged_or_empty_or_not_bz2_data_raises_what_the_bz2_module_raises(enwiki_sample, tmp_path):
    data = bytearray(enwiki_sample.read_bytes())
    data[len(data) // 3] ^= 0xFF
    cases = {
        "flipped.bz2": (bytes(data), OSError),
        "empty.bz2": (b"", EOFError),
        "plain.bz2": (b"<mediawiki>", OSError),
    }
    for name, (content, error) in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(error), open_binary(tmp_path / name) as stream:
            while stream.read(1 << 20):
                pass


def test_a_range_ending_inside_a_stream_is_a_counted_skip_naming_the_file(multistream):
    path, offsets, _ = multistream
    records = list(mediawiki_xml.read_raw(path, byte_range=(offsets[1], offsets[3] - 100)))
    last = records[-1]
    assert isinstance(last, Skipped) and last.reason == "truncated-file" and last.file == str(path)
    assert sum(isinstance(r, RawPage) for r in records) >= 1
