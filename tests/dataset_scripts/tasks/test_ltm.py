from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.tasks.ltm import materialise, plan_groups, sample_negative_rows
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import ArticleIndex, edge_table, index_table, write_index

from .trees import words

OPTIONS = TaskOptions(min_words=5, ltm_negatives=3)


def _doc(id_, title, text, see_also=(), **fields):
    return Article(id=id_, title=title, abstract=text, see_also=list(see_also), **fields)


@pytest.fixture
def corpus(tmp_path):
    """Two index shards, with redirects (a chain and a loop), a short article and a disambiguation page."""
    shard0 = [
        _doc("1", "Mars", words(10, "mars"), ["Red_planet", "Phobos (moon)#Orbit", "Nowhere", "Mars", "red planet"]),
        _doc("2", "Phobos (moon)", words(10, "phobos")),
        _doc("3", "Stub", "too short"),
    ]
    shard1 = [
        _doc("4", "Deimos", words(10, "deimos"), ["Loop A", "Stub", "Mars"]),
        _doc("5", "Mercury (planet)", words(10, "mercury")),
        _doc("6", "Mercury", words(10, "mercury")),  # same text as article 5
        _doc("7", "Venus", words(10, "venus")),
        _doc("8", "Jupiter", words(10, "jupiter")),
        _doc("9", "Saturn (disambiguation)", words(10, "saturn"), is_disambiguation=True),
    ]
    files = []
    for number, shard in enumerate([shard0, shard1]):
        files.append(tmp_path / f"{number}.arrow")
        write_index(index_table(shard, OPTIONS), files[-1])
    redirects = tmp_path / "redirects.parquet"
    pairs = [("Red planet", "Fourth planet"), ("Fourth planet", "Mars"), ("Loop A", "Loop B"), ("Loop B", "Loop A")]
    pq.write_table(pa.table({"source": [p[0] for p in pairs], "target": [p[1] for p in pairs]}), redirects)
    return ArticleIndex(files, [redirects]), [shard0, shard1]


def test_index_resolves_titles_fragments_and_redirect_chains(corpus):
    index, _ = corpus
    assert len(index) == 9 and list(index.offsets) == [0, 3, 9]
    assert index.resolve(["Red_planet", "phobos (moon)#Orbit", "Nowhere", "Loop A", "Deimos", "Stub"]) == [
        0,
        1,
        None,
        None,
        3,
        2,
    ]
    assert index.eligible.tolist() == [True, True, False, True, True, True, True, True, False]
    assert index.rows([3, 0])[3] == ("4", "Deimos", words(10, "deimos"))


def test_edges_keep_raw_targets_with_shard_positions(corpus):
    _, (shard0, _) = corpus
    edges = edge_table(shard0).to_pylist()
    assert edges[0] == {"source": 0, "target": "Red_planet"} and len(edges) == 5


def test_plan_counts_every_dropped_link(corpus):
    index, (shard0, shard1) = corpus
    targets = index.resolve(shard0[0].see_also)  # Mars -> Mars (redirect), Phobos, missing, itself, Mars again
    planned, out = plan_groups(0, targets, index, OPTIONS)
    assert [(p.source, p.target) for p in planned] == [(0, 1)]
    assert out.skipped == {"link-self": 3, "link-target-missing": 1}
    planned, out = plan_groups(3, index.resolve(shard1[0].see_also), index, OPTIONS)
    assert [(p.source, p.target) for p in planned] == [(3, 0)]
    assert out.skipped == {"link-target-missing": 1, "link-target-ineligible": 1}


def test_negatives_are_neither_the_source_nor_its_links(corpus):
    index, (shard0, _) = corpus
    targets = index.resolve(["Phobos (moon)", "Deimos"])
    planned, _ = plan_groups(0, targets, index, TaskOptions(min_words=5, ltm_negatives=10))
    for plan in planned:
        assert not {0, 1, 3} & set(plan.negatives)  # Mars, Phobos, Deimos
        assert set(plan.negatives) <= {4, 5, 6, 7}  # eligible others (not the stub, not the disambiguation page)
    rows = materialise(planned, index).groups
    phobos = rows[0]
    assert phobos["query"] == words(10, "mars") and phobos["positive"] == words(10, "phobos")
    assert phobos["positive_title"] == "Phobos (moon)" and phobos["title"] == "Mars"
    # Mercury and Mercury (planet) share a text: at most one of them is kept as a negative
    assert len(set(phobos["negatives"])) == len(phobos["negatives"]) == len(phobos["negative_titles"])
    assert sum(t.startswith("Mercury") for t in phobos["negative_titles"]) <= 1


def test_plan_is_deterministic_and_independent_of_other_edges(corpus):
    index, _ = corpus
    one, _ = plan_groups(0, [1], index, OPTIONS)
    assert one == plan_groups(0, [1], index, OPTIONS)[0] and one[0].negatives
    # the edge's RNG comes from the seed and both article ids, not from the edge's position among the links
    two, _ = plan_groups(0, [None, 1], index, OPTIONS)
    assert two == one
    other_seed, _ = plan_groups(0, [1], index, TaskOptions(min_words=5, ltm_negatives=3, seed=7))
    assert {p.target for p in other_seed} == {1}


@given(
    candidates=st.lists(st.integers(0, 30), max_size=20, unique=True),
    exclude=st.sets(st.integers(0, 30)),
    wanted=st.integers(1, 8),
    seed=st.integers(0, 1000),
)
def test_sample_negative_rows(candidates, exclude, wanted, seed):
    rows = sample_negative_rows(np.array(candidates, dtype=np.int64), exclude, random.Random(seed), wanted)
    assert len(rows) <= wanted and len(set(rows)) == len(rows)
    assert set(rows) <= set(candidates) - exclude
    if not set(candidates) - exclude:
        assert rows == []
