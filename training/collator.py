"""The group-wise collator: tokenizes groups into pairs with per-task lengths and pads dynamically."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from .data import Task
from .mlm import whole_word_mask


@dataclass
class GroupCollator:
    """Tokenizes groups into pairs with per-task lengths, pads dynamically and records the group layout.

    Pairs are ``[CLS] query [SEP] document [SEP]``; for a task whose candidates are queries (RWI) the pair is
    (candidate, fixed document). The query side is cut to its task's ``query_max_length`` tokens (at a token
    boundary), then ``tokenizer(queries, documents, truncation="only_second")`` lets the document fill the pair up to
    ``min(query_max_length + doc_max_length + 3, max_length)``. For LTM (255/255) with BERT's 512 positions the
    document therefore keeps 254 tokens.

    Output: ``input_ids``/``attention_mask``/``token_type_ids`` ``[pairs, length]`` with the pairs of group 0 first
    (its positive first), then group 1, ...; ``group_mask`` ``[groups, group_size]`` (True where a candidate exists:
    a group with fewer negatives has False slots, never fake texts); ``task_ids`` ``[groups]``; with
    ``mlm_probability > 0`` also ``mlm_labels`` (masked document tokens, -100 elsewhere).

    Args:
        tokenizer: a fast tokenizer.
        tasks: the tasks (for lengths and pairing rule), indexed by each group's ``task``.
        group_size: slots per group.
        max_length: the model's maximum pair length.
        pad_to_multiple_of: pad lengths to a multiple of this (tensor cores).
        mlm_probability: share of document tokens to mask for the joint MLM loss (0 = no MLM).
        whole_word_mask: mask whole words, BERT's way (PROP/HARP; see :mod:`training.mlm`), instead of tokens.
        max_predictions: with ``whole_word_mask``, at most this many masked tokens per pair (0 = no cap).
    """

    tokenizer: Any
    tasks: list[Task]
    group_size: int
    max_length: int = 512
    pad_to_multiple_of: int | None = None
    mlm_probability: float = 0.0
    whole_word_mask: bool = False
    max_predictions: int = 0

    def truncate_queries(self, queries: list[str], max_tokens: int) -> list[str]:
        """Cut each query after its ``max_tokens``-th token, using the tokenizer's character offsets."""
        encoded = self.tokenizer(
            queries, add_special_tokens=False, truncation=True, max_length=max_tokens, return_offsets_mapping=True
        )
        return [
            query[: offsets[-1][1]] if offsets else query
            for query, offsets in zip(queries, encoded["offset_mapping"], strict=True)
        ]

    def __call__(self, groups: list[dict[str, Any]]) -> dict[str, torch.Tensor]:
        features: list[dict[str, list[int]] | None] = []
        group_mask = torch.zeros(len(groups), self.group_size, dtype=torch.bool)
        spans = []
        for index, group in enumerate(groups):
            count = len(group["candidates"])
            if not 2 <= count <= self.group_size:
                raise ValueError(f"a group needs 2..{self.group_size} candidates, got {count}")
            group_mask[index, :count] = True
            spans.append((len(features), count))
            features.extend([None] * count)
        doc_masks: list[list[int] | None] = [None] * len(features)
        for task_index in sorted({group["task"] for group in groups}):
            task = self.tasks[task_index]
            queries, documents, slots = [], [], []
            for group, (start, _count) in zip(groups, spans, strict=True):
                if group["task"] != task_index:
                    continue
                for offset, candidate in enumerate(group["candidates"]):
                    query, document = (
                        (candidate, group["fixed"]) if task.candidates_are_queries else (group["fixed"], candidate)
                    )
                    queries.append(query)
                    documents.append(document)
                    slots.append(start + offset)
            encoded = self.tokenizer(
                self.truncate_queries(queries, task.query_max_length),
                documents,
                truncation="only_second",
                max_length=min(task.query_max_length + task.doc_max_length + 3, self.max_length),
            )
            for position, slot in enumerate(slots):
                features[slot] = {key: values[position] for key, values in encoded.items()}
                if self.mlm_probability and self.whole_word_mask:
                    doc_masks[slot] = [
                        w if s == 1 else None
                        for w, s in zip(encoded.word_ids(position), encoded.sequence_ids(position), strict=True)
                    ]
                elif self.mlm_probability:
                    doc_masks[slot] = [int(s == 1) for s in encoded.sequence_ids(position)]
        batch = self.tokenizer.pad(
            features, padding=True, pad_to_multiple_of=self.pad_to_multiple_of, return_tensors="pt"
        )
        if self.mlm_probability and self.whole_word_mask:
            width = batch["input_ids"].shape[1]
            batch["input_ids"], batch["mlm_labels"] = whole_word_mask(
                batch["input_ids"],
                [words + [None] * (width - len(words)) for words in doc_masks],
                self.tokenizer.mask_token_id,
                len(self.tokenizer),
                self.mlm_probability,
                self.max_predictions,
            )
        elif self.mlm_probability:
            width = batch["input_ids"].shape[1]
            maskable = torch.tensor([mask + [0] * (width - len(mask)) for mask in doc_masks], dtype=torch.bool)
            batch["input_ids"], batch["mlm_labels"] = self.mask_tokens(batch["input_ids"], maskable)
        batch["group_mask"] = group_mask
        batch["task_ids"] = torch.tensor([group["task"] for group in groups], dtype=torch.long)
        return dict(batch)

    def mask_tokens(self, input_ids: torch.Tensor, maskable: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """BERT's masking on the document tokens: pick ``mlm_probability`` of them; 80% [MASK], 10% random, 10% kept."""
        labels = input_ids.clone()
        picked = torch.bernoulli(torch.full(input_ids.shape, self.mlm_probability)).bool() & maskable
        labels[~picked] = -100
        masked = input_ids.clone()
        to_mask = torch.bernoulli(torch.full(input_ids.shape, 0.8)).bool() & picked
        masked[to_mask] = self.tokenizer.mask_token_id
        to_random = torch.bernoulli(torch.full(input_ids.shape, 0.5)).bool() & picked & ~to_mask
        masked[to_random] = torch.randint(len(self.tokenizer), input_ids.shape)[to_random]
        return masked, labels
