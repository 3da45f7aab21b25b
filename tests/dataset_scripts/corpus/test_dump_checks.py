"""A multistream index that does not match its dump and a part missing from a multi-file dump are named errors,
raised before any work starts; a complete multi-part dump reads as byte ranges of each part."""

from __future__ import annotations

import bz2
import shutil
from pathlib import Path

import pytest

from wikiformer_kit.benchmarks.big_dump import write_dump
from wikiformer_kit.dataset_scripts.build import main
from wikiformer_kit.dataset_scripts.corpus.dump_checks import MissingPartError, MultistreamIndexError
from wikiformer_kit.dataset_scripts.corpus.sources import plan_shards


@pytest.fixture(scope="module")
def parts(tmp_path_factory) -> list[Path]:
    """The dump sample as a 3-part multistream dump (206 pages, 100 a stream), each part with its index."""
    return write_dump(tmp_path_factory.mktemp("parts"), articles=1, parts=3, workers=1)


def index_of(part: Path) -> Path:
    return next(part.parent.glob(part.name.replace(".xml-", ".txt-").replace("multistream", "multistream-index")))


def copy_with_index(part: Path, folder: Path, index_lines: list[str]) -> Path:
    folder.mkdir()
    dump = folder / "x-pages-articles-multistream.xml.bz2"
    shutil.copy(part, dump)
    (folder / "x-pages-articles-multistream-index.txt.bz2").write_bytes(bz2.compress("".join(index_lines).encode()))
    return dump


def index_lines(part: Path) -> list[str]:
    return bz2.decompress(index_of(part).read_bytes()).decode().splitlines(keepends=True)


def test_a_complete_multi_part_dump_is_read_as_byte_ranges_of_each_part(parts):
    shards, skipped = plan_shards([parts[0].parent], streams_per_shard=1)
    assert not skipped
    assert [Path(s.path) for s in shards] == [parts[0], parts[1], parts[2]]  # one stream of 100 pages per part
    assert all(s.multistream for s in shards)


def test_a_missing_part_is_named(parts, tmp_path, capsys):
    with pytest.raises(MissingPartError, match=r"the part with pages \d+-\d+ is missing .*multistream1.*multistream3"):
        plan_shards([parts[0], parts[2]])
    out = tmp_path / "out"
    assert main(["--input", str(parts[0]), str(parts[2]), "--output-dir", str(out)]) == 2
    assert "is missing" in capsys.readouterr().err
    assert not (out / "corpus" / "data").exists()  # refused before any work


def test_an_index_with_offsets_past_the_dump_is_refused(parts, tmp_path):
    lines = index_lines(parts[0]) + [f"{10**9}:999999:Far away\n"]
    dump = copy_with_index(parts[0], tmp_path / "d", lines)
    with pytest.raises(MultistreamIndexError, match="past the end of the dump"):
        plan_shards([dump])


def test_an_index_whose_offsets_start_no_stream_is_refused(parts, tmp_path):
    shifted = [f"{int(o) + 7}:{rest}" for o, rest in (line.split(":", 1) for line in index_lines(parts[0]))]
    dump = copy_with_index(parts[0], tmp_path / "d", shifted)
    with pytest.raises(MultistreamIndexError, match=r"no bz2 stream starts at offset \d+"):
        plan_shards([dump])


def test_an_index_of_another_dump_with_the_same_offsets_is_refused(parts, tmp_path):
    other = [
        f"{o}:{i}:{title} (other dump)\n"
        for o, i, title in (line.rstrip("\n").split(":", 2) for line in index_lines(parts[0]))
    ]
    dump = copy_with_index(parts[0], tmp_path / "d", other)
    with pytest.raises(MultistreamIndexError, match=r"starts with page 'AccessibleComputing', the index says"):
        plan_shards([dump])


def test_an_empty_index_is_refused(parts, tmp_path):
    dump = copy_with_index(parts[0], tmp_path / "d", [])
    with pytest.raises(MultistreamIndexError, match="lists no stream"):
        plan_shards([dump])
