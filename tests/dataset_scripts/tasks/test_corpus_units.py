"""Reading a unit's list-of-struct columns field by field, as the corpus's objects would give them."""

from __future__ import annotations

import pyarrow as pa

from wikiformer_kit.dataset_scripts.corpus.article import ARTICLE_SCHEMA, Article, Link, Section
from wikiformer_kit.dataset_scripts.tasks.corpus_units import Unit, list_fields, rank_units

ARTICLES = [
    Article(
        "1",
        "A",
        links=[Link("B", "b", "See b.", -1), Link("C", "c", "And c.", 0)],
        sections=[Section("S", 2, "x", ["A", "S"])],
    ),
    Article("2", "B"),
    Article("3", "C", links=[Link("A", "a", "a!", 1)]),
]


def test_list_fields_match_the_articles_even_for_a_slice():
    table = pa.Table.from_pylist([a.to_dict() for a in ARTICLES], schema=ARTICLE_SCHEMA)
    links = list_fields(table.column("links"), "section", "sentence", "anchor", "target")
    assert links == [[(k.section, k.sentence, k.anchor, k.target) for k in a.links] for a in ARTICLES]
    assert list_fields(table.column("sections"), "text") == [["x"], [], []]
    sliced = table.slice(1, 2)  # a unit inside a row group: offsets do not start at 0
    assert list_fields(sliced.column("links"), "target") == [[], ["A"]]


def test_units_read_their_rows_with_the_footer_parsed_once_per_file(tmp_path):
    import os

    import pyarrow.parquet as pq

    from wikiformer_kit.dataset_scripts.tasks import corpus_units
    from wikiformer_kit.dataset_scripts.tasks.corpus_units import plan_units, read_unit_table

    path = tmp_path / "00000.parquet"
    articles = [Article(str(i), f"T{i}") for i in range(7)]
    pq.write_table(pa.Table.from_pylist([a.to_dict() for a in articles], schema=ARTICLE_SCHEMA), path, row_group_size=2)
    corpus_units._footer.cache_clear()
    units = plan_units([path], 3)
    assert [read_unit_table(u, ["id"]).column("id").to_pylist() for u in units] == [
        ["0", "1", "2"],
        ["3", "4", "5"],
        ["6"],
    ]
    assert corpus_units._footer.cache_info().misses == 1  # one parse for the file's three units

    rewritten = [Article(str(i), f"T{i}") for i in range(10, 17)]
    pq.write_table(
        pa.Table.from_pylist([a.to_dict() for a in rewritten], schema=ARTICLE_SCHEMA), path, row_group_size=3
    )
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 1))  # a rewrite within the clock's tick
    assert read_unit_table(units[1], ["id"]).column("id").to_pylist() == ["13", "14", "15"]


def _units(sizes: list[int]) -> list[Unit]:
    return [Unit(number, f"f{number // 6}", 0, size) for number, size in enumerate(sizes)]


def test_rank_units_give_every_unit_once_and_balance_the_articles():
    # two files of 5,088 and 4,982 articles in units of 1,000: every other unit gave one process 5,982 articles
    # and the other 4,088
    units = _units([1000] * 5 + [88] + [1000] * 4 + [982])
    for world in (1, 2, 3, 4, 16):
        shares = [rank_units(units, rank, world) for rank in range(world)]
        assert sorted(u.number for share in shares for u in share) == list(range(len(units)))
        assert all(share == sorted(share, key=lambda u: u.number) for share in shares)
        loads = [sum(u.stop - u.start for u in share) for share in shares]
        assert max(loads) - min(loads) <= 1000  # within the largest unit
    assert [sum(u.stop - u.start for u in rank_units(units, r, 2)) for r in range(2)] == [5000, 5070]
    assert rank_units(units, 1, 2) == rank_units(list(units), 1, 2)  # every process computes the same split
