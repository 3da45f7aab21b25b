from __future__ import annotations

import random
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from dataset_scripts.tasks.see_also_graph import INDEX_SCHEMA, ArticleIndex, write_index

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
def test_release_pages_unmaps_what_was_read_and_rows_read_again(tmp_path):
    files, texts = _write_shards(tmp_path, shards=4)  # 16 MiB of text
    index = ArticleIndex(files)
    before = _mapped_file_kib()
    rows = index.rows(range(len(index)))
    after_reading = _mapped_file_kib()
    assert after_reading - before > 12 * 1024  # the texts' pages are now counted in RSS
    index.release_pages()
    assert after_reading - _mapped_file_kib() > 12 * 1024
    again = index.rows(range(0, len(index), 7))  # mapped again on demand, same bytes
    assert all(again[row][2] == texts[row] == rows[row][2] for row in again)
    assert [rows[row][0] for row in (0, 3_999)] == ["0", "3999"]
