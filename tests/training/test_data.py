"""Task loading (validation, schemas), the task mixture sampler and per-epoch negative sampling."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from wikiformer_kit.training.arguments import DataArguments
from wikiformer_kit.training.data import GroupDataset, TaskMixtureSampler, load_task, load_tasks


def groups(task):
    """Every (fixed, positive, negatives) of a task, read row by row from its Arrow table."""
    return [task.group(row) for row in range(len(task))]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_real_groups_load_unchanged(srr_groups_path):
    task = load_task(str(srr_groups_path), "srr", 30, 480)
    rows = [json.loads(line) for line in srr_groups_path.read_text().splitlines()]
    assert groups(task) == [(row["query"], row["positive"], row["negatives"]) for row in rows]
    assert not task.candidates_are_queries


def test_bad_rows_are_skipped_and_counted(tmp_path, caplog):
    path = write_jsonl(
        tmp_path / "groups.jsonl",
        [
            {"query": "q1", "positive": "p1", "negatives": ["n1", "", "p1", "n1", "n2"]},
            {"query": " ", "positive": "p2", "negatives": ["n"]},
            {"query": "q3", "positive": "", "negatives": ["n"]},
            {"query": "q4", "positive": "p4", "negatives": ["p4", ""]},
        ],
    )
    with caplog.at_level("WARNING"):
        task = load_task(str(path), "t", 30, 480)
    assert groups(task) == [("q1", "p1", ["n1", "n2"])]  # empty, duplicate and positive copies gone
    message = caplog.text
    assert "skipped 3 of 4 rows" in message and "'no usable negative': 1" in message and "'empty query': 1" in message


def test_rwi_and_triples_schemas(tmp_path):
    rwi = load_task(
        str(
            write_jsonl(
                tmp_path / "rwi.jsonl",
                [{"document": "text of a section", "positive": "Title Section", "negatives": ["Title Other"]}],
            )
        ),
        "rwi",
        30,
        480,
    )
    assert rwi.candidates_are_queries and groups(rwi)[0][0] == "text of a section"
    triples = load_task(
        str(
            write_jsonl(
                tmp_path / "triples.jsonl",
                [{"query": "what is a wiki", "positive": "A wiki is ...", "negative": "Paris is ..."}],
            )
        ),
        "marco",
        30,
        480,
    )
    assert groups(triples)[0][2] == ["Paris is ..."]


def test_missing_columns_name_the_file(tmp_path):
    path = write_jsonl(tmp_path / "wrong.jsonl", [{"question": "q", "answer": "a"}])
    with pytest.raises(ValueError, match=r"wrong\.jsonl: a task dataset needs"):
        load_task(str(path), "t", 30, 480)


def test_max_train_samples_and_per_task_lengths(srr_groups_path, tmp_path):
    other = write_jsonl(
        tmp_path / "wikiformer-ltm.jsonl",
        [{"query": f"article {i}", "positive": f"related {i}", "negatives": ["x", "y"]} for i in range(5)],
    )
    args = DataArguments(
        train_datasets=[str(srr_groups_path), str(other)],
        query_max_lengths=[30, 255],
        doc_max_lengths=[480, 255],
        max_train_samples=3,
    )
    srr, ltm = load_tasks(args)
    assert (srr.name, ltm.name) == ("srr_groups", "ltm")
    assert len(srr) == len(ltm) == 3
    assert (ltm.query_max_length, ltm.doc_max_length) == (255, 255)
    with pytest.raises(ValueError, match="query_max_lengths"):
        load_tasks(DataArguments(train_datasets=[str(srr_groups_path), str(other)], query_max_lengths=[1, 2, 3]))


def test_negatives_deterministic_per_seed_epoch_row(srr_groups_path):
    task = load_task(str(srr_groups_path), "srr", 30, 480)
    negatives_of = [negatives for _, _, negatives in groups(task)]
    row = next(i for i, negatives in enumerate(negatives_of) if len(negatives) >= 7)
    dataset = GroupDataset([task], group_size=3, seed=1)
    first = dataset[(0, 0, row)]
    assert first == GroupDataset([task], group_size=3, seed=1)[(0, 0, row)]
    assert first["candidates"][0] == task.group(row)[1] and len(first["candidates"]) == 3
    assert set(first["candidates"][1:]) <= set(negatives_of[row])
    epochs = {tuple(dataset[(epoch, 0, row)]["candidates"]) for epoch in range(10)}
    assert len(epochs) > 1  # resampled per epoch
    small = next(i for i, negatives in enumerate(negatives_of) if len(negatives) < 7)
    assert GroupDataset([task], 8, 1)[(3, 0, small)]["candidates"][1:] == negatives_of[small]  # all kept, masked later


def test_sampler_follows_weights_and_is_deterministic():
    sampler = TaskMixtureSampler([100, 10], weights=[1.0, 3.0], seed=5)
    sampler.set_epoch(2)
    keys = list(sampler)
    assert keys == list(sampler) and len(keys) == 110
    counts = Counter(task for _, task, _ in keys)
    assert abs(counts[1] / 110 - 0.75) < 0.1
    assert all(epoch == 2 for epoch, _, _ in keys)
    small_rows = [row for _, task, row in keys if task == 1]
    assert set(small_rows[:10]) == set(range(10))  # a permutation, cycled when the task is drawn again
    sampler.set_epoch(3)
    assert list(sampler) != keys
    with pytest.raises(ValueError):
        TaskMixtureSampler([1], [0.0], 0)


def test_proportional_mixture_shuffles_every_row_of_every_task_once():
    # HARP's Table 1 (RQP 6.28M, QDM 0.48M, RDP 6.49M, ACM 0.41M pairs... here 6 / 1 / 2 / 3 rows): each task appears
    # as often as it has rows, each row exactly once an epoch, whatever the weights say
    sampler = TaskMixtureSampler([6, 1, 2, 3], weights=[1, 1, 1, 1], seed=7, mixture="proportional")
    keys = list(sampler)
    assert len(keys) == 12 and Counter(task for _, task, _ in keys) == {0: 6, 1: 1, 2: 2, 3: 3}
    assert sorted((task, row) for _, task, row in keys) == [
        (0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)
    ]  # fmt: skip
    assert keys == list(sampler) and [t for _, t, _ in keys] != sorted(t for _, t, _ in keys)  # shuffled, seeded
    sampler.set_epoch(1)
    again = list(sampler)
    assert again != keys and Counter(t for _, t, _ in again) == {0: 6, 1: 1, 2: 2, 3: 3}
    with pytest.raises(ValueError, match="mixture"):
        TaskMixtureSampler([1], [1.0], 0, mixture="uniform")


def test_lengths_default_to_the_task_spec(srr_groups_path, tmp_path):
    other = write_jsonl(
        tmp_path / "wikiformer-ltm.jsonl",
        [{"query": f"article {i}", "positive": f"related {i}", "negatives": ["x", "y"]} for i in range(2)],
    )
    unknown, ltm = load_tasks(DataArguments(train_datasets=[str(srr_groups_path), str(other)]))
    assert (ltm.query_max_length, ltm.doc_max_length) == (255, 255)  # dataset_scripts/tasks/ltm.py's SPEC
    assert (unknown.query_max_length, unknown.doc_max_length) == (30, 480)
