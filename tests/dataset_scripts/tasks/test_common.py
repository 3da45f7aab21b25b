from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wikiformer_kit.dataset_scripts.tasks.common import (
    LazyTaskRng,
    count_words,
    pick_negatives,
    task_rng,
    truncate_words,
)
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions


@given(text=st.text(alphabet="ab \n\t", max_size=60), budget=st.integers(0, 8))
def test_truncate_words_keeps_a_prefix_of_at_most_budget_words(text, budget):
    cut = truncate_words(text, budget)
    assert text.strip().startswith(cut)
    assert count_words(cut) == (count_words(text) if budget == 0 else min(budget, count_words(text)))


def test_truncate_words_keeps_newlines():
    assert truncate_words("one two\nthree four", 3) == "one two\nthree"


@given(
    candidates=st.lists(st.sampled_from(["", "a", "b", "c", "d", "e"]), max_size=12),
    positive=st.sampled_from(["a", "z"]),
    cap=st.integers(1, 4),
    seed=st.integers(0, 99),
)
def test_pick_negatives(candidates, positive, cap, seed):
    chosen = pick_negatives(candidates, positive, random.Random(seed), cap)
    distinct = {c for c in candidates if c and c != positive}
    assert len(chosen) == min(cap, len(distinct)) and set(chosen) <= distinct and len(set(chosen)) == len(chosen)
    assert chosen == sorted(chosen, key=candidates.index)  # document order kept


def test_task_rng_is_stable_and_keyed():
    assert task_rng(42, "srr", "12").random() == task_rng(42, "srr", "12").random()
    assert task_rng(42, "srr", "12").random() != task_rng(42, "rwi", "12").random()
    assert task_rng(42, "srr", "12").random() != task_rng(43, "srr", "12").random()
    # fixed across processes and machines (random hashes str seeds with SHA-512, not with hash())
    assert task_rng(42, "srr", "12").randrange(10**9) == 960044557


def test_lazy_task_rng_draws_as_task_rng_and_seeds_only_when_used():
    lazy, eager = LazyTaskRng(42, "rqp", "12"), task_rng(42, "rqp", "12")
    assert "_rng" not in vars(lazy)  # made, never drawn from: never seeded
    draws = [lazy.random(), lazy.randrange(1000), lazy.sample(range(50), 3), lazy.randbytes(4), lazy.random()]
    assert draws == [
        eager.random(),
        eager.randrange(1000),
        eager.sample(range(50), 3),
        eager.randbytes(4),
        eager.random(),
    ]
    assert vars(lazy)["random"] == vars(lazy)["_rng"].random  # later draws go straight to the seeded RNG
    with pytest.raises(AttributeError):
        lazy.no_such_method  # noqa: B018


def test_options_are_validated():
    with pytest.raises(ValueError, match="srr_variant"):
        TaskOptions(srr_variant="nope")
    with pytest.raises(ValueError, match="positives"):
        TaskOptions(positives="some")
    with pytest.raises(ValueError, match="negative"):
        TaskOptions(max_negatives=0)
