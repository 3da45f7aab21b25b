from __future__ import annotations

import random
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from wikiformer_kit.dataset_scripts.tasks.see_also_graph import INDEX_SCHEMA, ArticleIndex, write_index

ARTICLES_PER_SHARD = 1_000
TEXT_BYTES = 4_096


def _mapped_file_kib() -> int:
    """Resident pages of files this process maps (``RssFile``), in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssFile:"):
            return int(line.split()[1])
    raise AssertionError("no RssFile line in /proc/self/status")


def _write_shards(folder: Path, shards: int) -> tuple[list[Path], list[str]]:
    rng = random.Random(7)
    files, texts = [], []
    for shard in range(shards):
        rows = range(shard * ARTICLES_PER_SHARD, (shard + 1) * ARTICLES_PER_SHARD)
        shard_texts = ["".join(rng.choices("abcdefgh ", k=TEXT_BYTES)) for _ in rows]
        table = pa.table(
            {
                "title": [f"article {row}" for row in rows],
                "article_id": [str(row) for row in rows],
                "display_title": [f"Article {row}" for row in rows],
                "text": shard_texts,
                "eligible": [True for _ in rows],
            },
            schema=INDEX_SCHEMA,
        )
        files.append(folder / f"{shard:05d}.arrow")
        write_index(table, files[-1])
        texts += shard_texts
    return files, texts


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_rows_leave_at_most_one_shard_mapped_and_read_the_same_bytes(tmp_path):
    files, texts = _write_shards(tmp_path, shards=4)  # 4 MiB of text a shard
    index = ArticleIndex(files)
    before = _mapped_file_kib()
    rows = index.rows(range(len(index)))
    assert _mapped_file_kib() - before < 6 * 1024  # not the 16 MiB it read
    assert [rows[row][2] for row in range(len(index))] == texts
    assert [rows[row][0] for row in (0, 3_999)] == ["0", "3999"]
    again = index.rows(range(0, len(index), 7))  # mapped again on demand
    assert all(again[row] == rows[row] for row in again)


def test_rows_are_read_from_any_shard_layout(tmp_path):
    """Rows come back the same from a shard written as one batch, as several, with a null, in any request order."""
    texts = ["Rēzekne ir piļsāta.", "", "東京は都市。", "Σίσυφος ΟΔΟΣ", "plain", "x" * 70_000]
    table = pa.table(
        {
            "title": [f"t{i}" for i in range(len(texts))],
            "article_id": [str(i) for i in range(len(texts))],
            "display_title": [f"T{i}" if i != 2 else None for i in range(len(texts))],
            "text": texts,
            "eligible": [True] * len(texts),
        },
        schema=INDEX_SCHEMA,
    )
    write_index(table.slice(0, 3), tmp_path / "00000.arrow")  # one batch, a null title
    write_index(pa.concat_tables([table.slice(3, 1), table.slice(4)]), tmp_path / "00001.arrow")  # two batches
    index = ArticleIndex([tmp_path / "00000.arrow", tmp_path / "00001.arrow"])
    assert index._shards[1].column("text").num_chunks == 2
    expected = {i: (str(i), f"T{i}" if i != 2 else None, text) for i, text in enumerate(texts)}
    assert index.rows([5, 0, 3, 3, 2, 1, 4]) == expected
    assert index.rows([]) == {}
    assert index.rows([4]) == {4: expected[4]}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_release_pages_unmaps_what_other_reads_touched(tmp_path):
    files, texts = _write_shards(tmp_path, shards=4)
    index = ArticleIndex(files)
    before = _mapped_file_kib()
    assert index.table.column("text").to_pylist() == texts  # every page of every shard
    touched = _mapped_file_kib()
    assert touched - before > 12 * 1024
    index.release_pages()
    assert touched - _mapped_file_kib() > 12 * 1024
    assert index.rows([5])[5][2] == texts[5]


def test_titles_normalised_over_arrow_equal_each_normalised_in_python():
    from wikiformer_kit.dataset_scripts.corpus.titles import normalize_title
    from wikiformer_kit.dataset_scripts.tasks.see_also_graph import normalize_titles

    titles = [
        "Riga", "riga", "Rīga_(city)", "AT&amp;T", "Caf%C3%A9", "Paris#History", " :Latgale ", "a  b", "x\u00a0y",
        "tab\tin", "line\u2028sep", "ǆungla", "ßtraße", "école", "İstanbul", "", "Ok", "ﬁsh", "\u200bzero width",
        "東京", "end ", ":", "100%", "Σίσυφος",
    ]  # fmt: skip
    expected = [normalize_title(t) for t in titles]
    assert normalize_titles(pa.array(titles)).to_pylist() == expected
    assert normalize_titles(pa.chunked_array([titles[:5], titles[5:]])).to_pylist() == expected
    assert expected[:4] == ["Riga", "Riga", "Rīga (city)", "AT&T"] and expected[11] == "Ǆungla"
