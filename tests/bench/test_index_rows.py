"""bench/index_rows.py: the index's row reads against the peer that takes per shard."""

from __future__ import annotations

from bench.index_rows import take_per_shard, write_shards
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import ArticleIndex


def test_the_peer_reads_what_rows_reads(tmp_path):
    index = ArticleIndex(write_shards(tmp_path, shards=5, rows_per_shard=7))
    wanted = [34, 0, 8, 8, 20, 6]
    assert take_per_shard(index, wanted) == index.rows(wanted)
    assert set(index.rows(wanted)) == {0, 6, 8, 20, 34}
