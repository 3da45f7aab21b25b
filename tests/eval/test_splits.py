"""The query parts of eval/splits.py: zero-shot dev/test, fine-tuning train/dev/heldout, and their overlaps."""

from __future__ import annotations

import pytest

from wikiformer_kit.eval.collections import Collection
from wikiformer_kit.eval.splits import (
    PARTS,
    fine_tuning_part,
    parts_overlap,
    query_part,
    same_source,
    select_part,
    split_spec,
)

IDS = [str(i) for i in range(1, 301)]


def _collection() -> Collection:
    return Collection(
        name="c",
        documents={"d1": "a", "d2": "b"},
        queries={q: f"query {q}" for q in IDS},
        qrels={q: {"d1": 1} for q in IDS},
        runs={"bm25": {q: {"d1": 2.0, "d2": 1.0} for q in IDS}},
    )


def test_fine_tuning_parts_split_test_and_keep_dev():
    for qid in IDS:
        part = fine_tuning_part(qid)
        assert (part == "dev") == (query_part(qid) == "dev")
        assert part in ("train", "dev", "heldout")
    counts = {part: sum(fine_tuning_part(q) == part for q in IDS) for part in ("train", "dev", "heldout")}
    assert all(60 <= count <= 140 for count in counts.values()), counts


def test_no_query_is_in_two_fine_tuning_parts_and_test_is_train_plus_heldout():
    collection = _collection()
    parts = {part: select_part(collection, part) for part in PARTS}
    train, dev, heldout = (set(parts[p].queries) for p in ("train", "dev", "heldout"))
    assert not train & dev and not train & heldout and not dev & heldout
    assert train | dev | heldout == set(IDS)
    assert set(parts["test"].queries) == train | heldout
    assert set(parts["train"].qrels) == train and set(parts["train"].runs["bm25"]) == train
    assert parts["heldout"].name == "c-heldout"


@pytest.mark.parametrize(
    ("a", "b", "overlap"),
    [
        ("train", "dev", False),
        ("train", "heldout", False),
        ("dev", "heldout", False),
        ("dev", "test", False),
        ("train", "test", True),
        ("heldout", "test", True),
        ("train", None, True),
        ("train", "train", True),
    ],
)
def test_parts_overlap(a, b, overlap):
    assert parts_overlap(a, b) is overlap
    assert parts_overlap(b, a) is overlap


def test_same_source_and_split_spec(tmp_path):
    assert split_spec(f"{tmp_path}#heldout") == (str(tmp_path), "heldout")
    assert not same_source(f"{tmp_path}#train", f"{tmp_path}#dev")
    assert same_source(f"{tmp_path}#train", f"{tmp_path}#test")
    with pytest.raises(ValueError, match="#heldout"):
        split_spec(f"{tmp_path}#validation")
