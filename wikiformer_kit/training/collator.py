"""The group-wise collator: tokenizes groups into pairs with per-task lengths and pads dynamically."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from wikiformer_kit.training.data import Task
from wikiformer_kit.training.mlm import whole_word_mask


@dataclass
class GroupCollator:
    """Tokenizes groups into pairs with per-task lengths, pads dynamically and records the group layout.

    Pairs are the tokenizer's own pair layout (BERT and DeBERTa: ``[CLS] query [SEP] document [SEP]``; XLM-R and
    RoBERTa: ``<s> query </s></s> document </s>``); for a task whose candidates are queries (RWI) the pair is
    (candidate, fixed document). The query side is cut to its task's ``query_max_length`` tokens (at a token
    boundary), then ``tokenizer(queries, documents, truncation="only_second")`` lets the document fill the pair up to
    ``min(query_max_length + doc_max_length + special tokens, max_length)``. For LTM (255/255) with BERT's 512
    positions the document therefore keeps 254 tokens.

    Output: ``input_ids``/``attention_mask`` (and ``token_type_ids`` where the tokenizer makes them: not for XLM-R,
    RoBERTa or ModernBERT) ``[pairs, length]`` with the pairs of group 0 first (its positive first), then group 1,
    ...; ``group_mask`` ``[groups, group_size]`` (True where a candidate exists: a group with fewer negatives has
    False slots, never fake texts); ``task_ids`` ``[groups]``; with ``mlm_probability > 0`` also ``mlm_labels``
    (masked document tokens, -100 elsewhere; the tokenizer's own mask token, its special tokens never masked).

    With ``max_tokens``, the groups are split into micro-batches of at most that many tokens each (pairs x padded
    length; a group larger than that goes alone, whole: its softmax needs all its pairs), longest groups first:
    the output is then ``{"micro_batches": [batch, ...]}``, each batch as above, and the trainer runs a forward and
    backward pass per micro-batch before the one optimizer step. Peak memory then follows the budget, not the
    number of groups times the longest pair.

    ``tasks`` (lengths, pairing rule) are indexed by each group's ``task``; ``tokenizer`` is a fast one;
    ``whole_word_mask`` masks whole words, BERT's way (PROP/HARP: :mod:`training.mlm`), at most ``max_predictions``
    tokens per pair (0: no cap); ``max_tokens`` 0 puts the whole batch in one pass.
    """

    tokenizer: Any
    tasks: list[Task]
    group_size: int
    max_length: int = 512
    pad_to_multiple_of: int | None = None
    mlm_probability: float = 0.0
    whole_word_mask: bool = False
    max_predictions: int = 0
    max_tokens: int = 0

    def __post_init__(self):
        self.token_types = "token_type_ids" in getattr(self.tokenizer, "model_input_names", ["token_type_ids"])
        self.special_tokens = self.tokenizer.num_special_tokens_to_add(pair=True)
        if self.mlm_probability and self.tokenizer.mask_token_id is None:
            raise ValueError(
                f"{type(self.tokenizer).__name__} has no mask token: the joint MLM loss (--mlm_weight) needs a "
                "tokenizer with one (BERT's [MASK], XLM-R's <mask>, ...); set --mlm_weight 0 or give another tokenizer"
            )
        if self.max_tokens < 0:
            raise ValueError(f"--max_tokens_per_batch must be >= 0 (0 = no budget), got {self.max_tokens}")

    def truncate_queries(self, queries: list[str], max_tokens: int) -> list[str]:
        """Cut each query after its ``max_tokens``-th token, using the tokenizer's character offsets.

        A group repeats its query once per candidate: each distinct query is tokenized once.
        """
        unique = list(dict.fromkeys(queries))
        encoded = self.tokenizer(
            unique, add_special_tokens=False, truncation=True, max_length=max_tokens, return_offsets_mapping=True
        )
        cut = {
            query: query[: offsets[-1][1]] if offsets else query
            for query, offsets in zip(unique, encoded["offset_mapping"], strict=True)
        }
        return [cut[query] for query in queries]

    def __call__(self, groups: list[dict[str, Any]]) -> dict[str, Any]:
        for group in groups:
            count = len(group["candidates"])
            if not 2 <= count <= self.group_size:
                raise ValueError(f"a group needs 2..{self.group_size} candidates, got {count}")
        rows = self.encode(groups)
        if not self.max_tokens:
            return self.assemble(groups, rows)
        return {
            "micro_batches": [
                self.assemble([groups[g] for g in part], [rows[g] for g in part])
                for part in self.plan([[len(ids) for ids, _, _ in pairs] for pairs in rows])
            ]
        }

    def encode(self, groups: list[dict[str, Any]]) -> list[list[tuple[list[int], list[int], list]]]:
        """Per group, per candidate: ``(token ids, token type ids, maskable positions)`` of its pair."""
        rows: list[list] = [[None] * len(group["candidates"]) for group in groups]
        for task_index in sorted({group["task"] for group in groups}):
            task = self.tasks[task_index]
            queries, documents, slots = [], [], []
            for index, group in enumerate(groups):
                if group["task"] != task_index:
                    continue
                for offset, candidate in enumerate(group["candidates"]):
                    query, document = (
                        (candidate, group["fixed"]) if task.candidates_are_queries else (group["fixed"], candidate)
                    )
                    queries.append(query)
                    documents.append(document)
                    slots.append((index, offset))
            encoded = self.tokenizer(
                self.truncate_queries(queries, task.query_max_length),
                documents,
                truncation="only_second",
                max_length=min(task.query_max_length + task.doc_max_length + self.special_tokens, self.max_length),
                return_token_type_ids=self.token_types,
                return_attention_mask=False,
            )
            for position, (index, offset) in enumerate(slots):
                ids = encoded["input_ids"][position]
                types = encoded["token_type_ids"][position] if self.token_types else []
                maskable: list = []
                if self.mlm_probability and self.whole_word_mask:
                    maskable = [
                        w if s == 1 else None
                        for w, s in zip(encoded.word_ids(position), encoded.sequence_ids(position), strict=True)
                    ]
                elif self.mlm_probability:
                    maskable = [int(s == 1) for s in encoded.sequence_ids(position)]
                rows[index][offset] = (ids, types, maskable)
        return rows

    def plan(self, lengths: list[list[int]]) -> list[list[int]]:
        """Groups (by index) in micro-batches of at most ``max_tokens`` padded tokens, longest groups first."""
        order = sorted(range(len(lengths)), key=lambda g: -max(lengths[g]))
        parts: list[list[int]] = []
        pairs = width = 0
        for g in order:
            grown_width = self._padded(max(width, max(lengths[g])))
            if parts and (pairs + len(lengths[g])) * grown_width <= self.max_tokens:
                parts[-1].append(g)
                pairs, width = pairs + len(lengths[g]), grown_width
            else:
                parts.append([g])
                pairs, width = len(lengths[g]), self._padded(max(lengths[g]))
        return parts

    def _padded(self, width: int) -> int:
        multiple = self.pad_to_multiple_of
        return -(-width // multiple) * multiple if multiple else width

    def assemble(self, groups: list[dict[str, Any]], rows: list[list[tuple]]) -> dict[str, torch.Tensor]:
        """One batch of ``groups`` from their encoded pairs: padded, masked for MLM, with the group layout."""
        group_mask = torch.zeros(len(groups), self.group_size, dtype=torch.bool)
        for index, group in enumerate(groups):
            group_mask[index, : len(group["candidates"])] = True
        pairs = [pair for group_rows in rows for pair in group_rows]
        ids = [pair[0] for pair in pairs]
        doc_masks = [pair[2] for pair in pairs]
        batch = self.pad(ids, [pair[1] for pair in pairs] if self.token_types else None)
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
            maskable = torch.from_numpy(self._fill(doc_masks, batch["input_ids"].shape[1], 0)).bool()
            batch["input_ids"], batch["mlm_labels"] = self.mask_tokens(batch["input_ids"], maskable)
        batch["group_mask"] = group_mask
        batch["task_ids"] = torch.tensor([group["task"] for group in groups], dtype=torch.long)
        return batch

    def pad(self, ids: list[list[int]], types: list[list[int]] | None) -> dict[str, torch.Tensor]:
        """Right-pad token ids and segment ids (None: the tokenizer has none) into tensors (one vectorised fill, not a
        dict per pair)."""
        width = self._padded(max(map(len, ids)))
        batch = {"input_ids": torch.from_numpy(self._fill(ids, width, self.tokenizer.pad_token_id or 0))}
        if types is not None:
            batch["token_type_ids"] = torch.from_numpy(self._fill(types, width, self.tokenizer.pad_token_type_id))
        batch["attention_mask"] = torch.from_numpy(
            (np.arange(width) < np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))[:, None]).astype(np.int64)
        )
        return batch

    @staticmethod
    def _fill(rows: list[list[int]], width: int, value: int) -> np.ndarray:
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        out = np.full((len(rows), width), value, dtype=np.int64)
        # row-major order of the mask is the rows' own order: one assignment fills every row's prefix
        out[np.arange(width) < lengths[:, None]] = np.fromiter(
            itertools.chain.from_iterable(rows), dtype=np.int64, count=int(lengths.sum())
        )
        return out

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
