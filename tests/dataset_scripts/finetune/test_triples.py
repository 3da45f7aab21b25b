"""MS MARCO triples grouped by query and positive, in one partition or many."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.finetune import triples
from wikiformer_kit.dataset_scripts.finetune.__main__ import main
from wikiformer_kit.dataset_scripts.finetune.sources import is_triples_file, load_source

LINES = [
    "what is a cone\tA cone is a solid.\tA plate is flat.",
    "what is a cone\tA cone is a solid.\tA jet is fast.",
    "what is a cone\tA cone is a solid.\tA plate is flat.",  # a duplicate negative
    "what is a cone\tA cone is a solid.\tA cone is a solid.",  # the positive again
    "mach number\tThe Mach number is a ratio.\tA vortex spins.",
    "mach number\tThe Mach number is a ratio.\tA shell buckles.",
    "mach number\tMach one is the speed of sound.\tA wing lifts.",  # a second positive: a second group
    "a line without tabs",
    "heat transfer\tHeat flows from hot to cold.\tHeat transfer\tan extra field",
]


def _rows(folder):
    files = sorted((folder / "data").glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def test_triples_are_grouped_by_query_and_positive(tmp_path, capsys):
    path = tmp_path / "triples.train.small.tsv"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    assert is_triples_file(path) and load_source(str(path)).triples == path
    assert main(["--collection", str(path), "--output-dir", str(tmp_path / "out")]) == 0
    rows = {(r["query"], r["positive"]): r for r in _rows(tmp_path / "out")}
    assert rows[("what is a cone", "A cone is a solid.")]["negatives"] == ["A plate is flat.", "A jet is fast."]
    assert rows[("mach number", "The Mach number is a ratio.")]["negatives"] == ["A vortex spins.", "A shell buckles."]
    assert rows[("mach number", "Mach one is the speed of sound.")]["negatives"] == ["A wing lifts."]
    assert len(rows) == 3
    row = rows[("what is a cone", "A cone is a solid.")]
    assert row["query_id"] == triples.text_id("what is a cone")
    assert row["negative_ids"] == [triples.text_id(n) for n in row["negatives"]]
    assert "line not query<TAB>positive<TAB>negative 2" in capsys.readouterr().out
    card = (tmp_path / "out" / "README.md").read_text()
    assert "MS MARCO's triples" in card and "| duplicate negative | 1 |" in card
    assert not list((tmp_path / "out" / ".work" / "triples").glob("part-*.tsv"))  # removed when all shards are done


def test_many_partitions_give_the_same_groups(tmp_path, monkeypatch):
    path = tmp_path / "triples.tsv"
    lines = [f"query {q}\tpassage {q}\tpassage {q + n + 1}" for q in range(30) for n in range(4)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["--collection", f"triples:{path}", "--output-dir", str(tmp_path / "one")]) == 0
    monkeypatch.setattr(triples, "PARTITION_BYTES", 300)
    assert triples.partition_count(path) > 3
    assert main(["--collection", f"triples:{path}", "--output-dir", str(tmp_path / "many")]) == 0
    key = lambda r: r["query"]  # noqa: E731
    one, many = sorted(_rows(tmp_path / "one"), key=key), sorted(_rows(tmp_path / "many"), key=key)
    assert one == many and len(one) == 30
    assert len(list((tmp_path / "many" / "data").glob("*.parquet"))) > 3
