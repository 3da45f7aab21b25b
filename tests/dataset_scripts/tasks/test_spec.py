"""The task-spec contract: every registered task's rows, features, skip reasons and card agree with its spec."""

from __future__ import annotations

import random

import datasets
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikiformer_kit.dataset_scripts.tasks.card import render_card
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.registry import ALL_TASKS, DEFAULT_TASKS, SPECS, get_task, parse_tasks
from wikiformer_kit.dataset_scripts.tasks.spec import TEXT, TEXTS, Features, TaskSpec
from wikiformer_kit.dataset_scripts.tasks.stats import TaskStats

from .trees import articles

ARTICLE_TASKS = [spec for spec in SPECS if spec.sampler is not None]


@settings(max_examples=60, deadline=None)
@given(doc=articles(), seed=st.integers(0, 10**6), min_words=st.integers(1, 4))
def test_sampled_rows_have_exactly_the_spec_columns_and_reasons(doc, seed, min_words):
    options = TaskOptions(min_words=min_words)
    for spec in ARTICLE_TASKS:
        out = spec.sampler(doc, random.Random(seed), options)
        assert all(tuple(row) == spec.columns for row in out.groups), spec.name
        assert set(out.skipped) <= set(spec.skip_reasons), spec.name
        if out.groups:  # the rows fit the declared Parquet schema
            datasets.Dataset.from_list(out.groups, features=spec.hf_features)


def test_registry_order_names_and_lookup():
    assert ALL_TASKS == ("srr", "rwi", "ati", "ltm", "prop", "rqp", "qdm", "rdp", "acm")
    assert DEFAULT_TASKS == ("srr", "rwi", "ati", "ltm")
    assert [spec.name for spec in SPECS] == list(ALL_TASKS)
    assert parse_tasks("LTM, srr") == ("srr", "ltm")
    assert parse_tasks("harp,prop") == ("prop", "rqp", "qdm", "rdp", "acm")
    with pytest.raises(KeyError, match="known tasks: srr, rwi, ati, ltm, prop"):
        get_task("nope")
    assert (get_task("ltm").query_max_length, get_task("ltm").doc_max_length) == (255, 255)
    assert get_task("rwi").fixed_side == "document" and get_task("ltm").sampler is None
    # SRR, RWI and ATI read only the tree, so the build reads their units without links; a new task reads all
    assert {spec.name: spec.reads_links for spec in SPECS} == {
        "srr": False,
        "rwi": False,
        "ati": False,
        **{name: True for name in ALL_TASKS[3:]},
    }
    assert TaskSpec("x", "X", get_task("ati").features, "query", "", "", {}, None).reads_links


def test_a_spec_must_hold_its_group_columns():
    features = Features({"query": TEXT, "positive": TEXT, "negatives": TEXTS})
    with pytest.raises(ValueError, match="features lack the group column"):
        TaskSpec("x", "X", features, "document", "", "", {}, None)
    with pytest.raises(ValueError, match="fixed_side"):
        TaskSpec("x", "X", features, "passage", "", "", {}, None)


@pytest.mark.parametrize("task", ALL_TASKS)
def test_arrow_schema_is_the_one_datasets_writes(task):
    """The shards' schema is built without importing ``datasets``; its bytes (types, order, the ``huggingface``
    metadata that load_dataset reads back) must stay those of ``datasets.Features.arrow_schema``."""
    spec = get_task(task)
    expected = datasets.Features({name: column.to_datasets() for name, column in spec.features.items()})
    assert spec.hf_features == expected
    assert spec.arrow_schema.equals(expected.arrow_schema, check_metadata=True)
    assert datasets.Features.from_arrow_schema(spec.arrow_schema) == expected


@pytest.mark.parametrize("task", ALL_TASKS)
def test_card_is_written_from_the_spec(task):
    spec = get_task(task)
    stats = TaskStats(rows=3)
    reason = next(iter(spec.skip_reasons))
    stats.skipped[reason] = 2
    statistics = {"articles": 5, "see_also": {"articles": 4, "links": 6}}
    card = str(render_card(task, stats, statistics, {"options": TaskOptions().to_dict(), "source": "x.xml"}))
    method = spec.origin.name if spec.origin else "Wikiformer"
    assert f"# {method} {spec.title}" in card and spec.pairing in card and spec.choices in card
    assert (spec.origin.citation if spec.origin else "su2024wikiformer") in card
    assert ", ".join(f"`{c}`" for c in spec.columns) in card
    assert f"| `{reason}` | {spec.skip_reasons[reason]} | 2 |" in card
    assert ("See Also Graph: 6 links from 4 articles." in card) == (task == "ltm")
