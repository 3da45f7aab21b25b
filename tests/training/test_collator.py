"""The group collator's output, checked token by token on hand-made groups."""

from __future__ import annotations

import torch

from wikiformer_kit.training.collator import GroupCollator
from wikiformer_kit.training.data import Task


def make_tasks() -> list[Task]:
    srr = Task("srr", None, candidates_are_queries=False, query_max_length=3, doc_max_length=5)
    rwi = Task("rwi", None, candidates_are_queries=True, query_max_length=3, doc_max_length=5)
    return [srr, rwi]


GROUPS = [
    {
        "task": 0,
        "fixed": "The history of Paris France",
        "candidates": ["Paris is the capital of France and a city", "London is large"],
    },
    {
        "task": 1,
        "fixed": "A document about cats and dogs living together",
        "candidates": ["cats dogs", "birds", "fish tanks"],
    },
]


def expected_pair(tokenizer, query: str, document: str, query_max: int, pair_max: int) -> tuple[list[int], list[int]]:
    query_ids = tokenizer(query, add_special_tokens=False)["input_ids"][:query_max]
    document_ids = tokenizer(document, add_special_tokens=False)["input_ids"][: pair_max - 3 - len(query_ids)]
    ids = [tokenizer.cls_token_id, *query_ids, tokenizer.sep_token_id, *document_ids, tokenizer.sep_token_id]
    return ids, [0] * (len(query_ids) + 2) + [1] * (len(document_ids) + 1)


def test_pairs_order_truncation_padding_and_masks(minilm_tokenizer):
    batch = GroupCollator(minilm_tokenizer, make_tasks(), group_size=3)(GROUPS)
    pairs = [  # group 0: query side fixed; group 1 (RWI): candidates are the queries, the document is fixed
        (GROUPS[0]["fixed"], GROUPS[0]["candidates"][0]),
        (GROUPS[0]["fixed"], GROUPS[0]["candidates"][1]),
        *[(candidate, GROUPS[1]["fixed"]) for candidate in GROUPS[1]["candidates"]],
    ]
    expected = [expected_pair(minilm_tokenizer, query, doc, 3, 3 + 5 + 3) for query, doc in pairs]
    width = max(len(ids) for ids, _ in expected)
    assert batch["input_ids"].shape == (5, width)
    for row, (ids, types) in enumerate(expected):
        padding = width - len(ids)
        assert batch["input_ids"][row].tolist() == ids + [minilm_tokenizer.pad_token_id] * padding
        assert batch["token_type_ids"][row].tolist() == types + [0] * padding
        assert batch["attention_mask"][row].tolist() == [1] * len(ids) + [0] * padding
    # the first pair's query was cut to 3 tokens and its document to 5 (3 + 5 + 3 = 11 tokens in all)
    assert len(expected[0][0]) == 11 and expected[0][1].count(1) == 6
    assert minilm_tokenizer.decode(expected[0][0]) == "[CLS] the history of [SEP] paris is the capital of [SEP]"
    assert batch["group_mask"].tolist() == [[True, True, False], [True, True, True]]
    assert batch["task_ids"].tolist() == [0, 1]
    assert "mlm_labels" not in batch


def test_pair_length_capped_by_model_positions(minilm_tokenizer):
    tasks = [Task("ltm", None, False, query_max_length=255, doc_max_length=255)]
    long_text = " ".join(["wikipedia"] * 600)
    group = {"task": 0, "fixed": long_text, "candidates": [long_text, "short text"]}
    batch = GroupCollator(minilm_tokenizer, tasks, group_size=2, max_length=512)([group])
    assert batch["input_ids"].shape == (2, 512)
    assert (batch["token_type_ids"][0] == 0).sum() == 255 + 2  # the long query side keeps 255 tokens
    assert batch["attention_mask"][1].sum() == 255 + 2 + 2 + 1  # "short text" is two tokens


def test_group_too_large_is_an_error(minilm_tokenizer):
    import pytest

    with pytest.raises(ValueError, match="2..2 candidates"):
        GroupCollator(minilm_tokenizer, make_tasks(), group_size=2)([GROUPS[1]])


def test_mlm_masks_only_document_tokens(minilm_tokenizer):
    torch.manual_seed(0)
    collator = GroupCollator(minilm_tokenizer, make_tasks(), group_size=3, mlm_probability=0.5)
    plain = GroupCollator(minilm_tokenizer, make_tasks(), group_size=3)(GROUPS)
    batch = collator(GROUPS)
    labels = batch["mlm_labels"]
    predicted = labels != -100
    assert predicted.any()
    # only document tokens (segment 1, not the final [SEP], not padding) are ever predicted, with their true id
    document = (plain["token_type_ids"] == 1) & (plain["input_ids"] != minilm_tokenizer.sep_token_id)
    assert not (predicted & ~document).any()
    assert torch.equal(labels[predicted], plain["input_ids"][predicted])
    # outside the predicted positions the input is untouched
    assert torch.equal(batch["input_ids"][~predicted], plain["input_ids"][~predicted])
    changed = batch["input_ids"] != plain["input_ids"]
    assert changed.any() and not (changed & ~predicted).any()


def test_mlm_replacement_shares(minilm_tokenizer):
    torch.manual_seed(1)
    collator = GroupCollator(minilm_tokenizer, make_tasks(), group_size=3, mlm_probability=1.0)
    ids = torch.randint(1000, 2000, (64, 200))
    masked, labels = collator.mask_tokens(ids, torch.ones_like(ids, dtype=torch.bool))
    assert torch.equal(labels, ids)
    share_mask = (masked == minilm_tokenizer.mask_token_id).float().mean().item()
    share_kept = (masked == ids).float().mean().item()
    assert abs(share_mask - 0.8) < 0.02 and abs(share_kept - 0.1) < 0.02
