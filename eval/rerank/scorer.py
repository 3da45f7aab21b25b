"""Scoring (query, document) pairs with any sequence-classification checkpoint: a `WikiformerForRanking` folder
(remote code), a sentence-transformers CrossEncoder folder, or a `BertForSequenceClassification`."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

logger = logging.getLogger(__name__)


def _saved_max_length(model_path: str) -> int | None:
    # CrossEncoder (and Wikiformer, which writes CrossEncoder files too) records its pair length here
    # (``max_seq_length`` in sentence-transformers 6, ``max_length`` in older versions)
    config = Path(model_path) / "sentence_bert_config.json"
    if config.is_file():
        saved = json.loads(config.read_text(encoding="utf-8"))
        return saved.get("max_seq_length") or saved.get("max_length")
    return None


class PairScorer:
    """Loads a re-ranking checkpoint and scores pairs in length-sorted batches.

    Loading is `AutoModelForSequenceClassification` + `AutoTokenizer`, both with ``trust_remote_code=True`` (a
    Wikiformer checkpoint resolves to `WikiformerForRanking` through its ``auto_map``; CrossEncoder and plain BERT
    folders load as `BertForSequenceClassification`). The score is the single logit; a two-label classifier
    (monoBERT style) scores ``logit[1] - logit[0]``, which orders pairs as its softmax does.

    Args:
        model: a checkpoint folder or Hub id.
        max_length: pair length in tokens; default: the checkpoint's sentence-transformers ``max_seq_length``,
            else the tokenizer's ``model_max_length`` (where sentence-transformers 6 saves a CrossEncoder's), else
            ``min(512, max_position_embeddings)``.
        batch_size: pairs per forward pass.
        device: torch device (default: cuda when available, else cpu).

    Example::

        scorer = PairScorer("path/to/wikiformer-checkpoint", max_length=256)
        scores = scorer.score(["what is a statutory deed"] * 2, ["A deed is ...", "Statutes ..."])
    """

    def __init__(self, model: str, max_length: int | None = None, batch_size: int = 32, device: str | None = None):
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.model_path = str(model)
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.tokenizer = AutoTokenizer.from_pretrained(self.model_path, trust_remote_code=True)
        self.model = AutoModelForSequenceClassification.from_pretrained(self.model_path, trust_remote_code=True)
        self.model.to(self.device).eval()
        labels = self.model.config.num_labels
        if labels not in (1, 2):
            raise ValueError(f"{self.model_path}: a re-ranker needs 1 (or 2) labels, this checkpoint has {labels}")
        positions = getattr(self.model.config, "max_position_embeddings", 512)
        # sentence-transformers 6 saves a CrossEncoder's max length as the tokenizer's model_max_length
        tokenizer_length = self.tokenizer.model_max_length if self.tokenizer.model_max_length <= positions else None
        self.max_length = int(
            max_length or _saved_max_length(self.model_path) or tokenizer_length or min(512, positions)
        )
        self.batch_size = batch_size

    def _encode(self, queries: Sequence[str], documents: Sequence[str]):
        return self.tokenizer(
            list(queries),
            list(documents),
            truncation="longest_first",
            max_length=self.max_length,
            return_attention_mask=False,
        )

    @torch.inference_mode()
    def score(
        self,
        queries: Sequence[str],
        documents: Sequence[str],
        progress: Callable[[int], object] | None = None,
    ) -> list[float]:
        """Relevance scores of pairs, in input order.

        Pairs are sorted by token length and batched so that padding stays small; ``progress(n)`` is called after
        each batch with the number of pairs scored (e.g. ``tqdm.update``).

        Args:
            queries: one query per pair.
            documents: one document per pair.
            progress: optional callback receiving batch sizes.
        """
        if len(queries) != len(documents):
            raise ValueError(f"{len(queries)} queries for {len(documents)} documents")
        if not queries:
            return []
        encoded = self._encode(queries, documents)
        ids = encoded["input_ids"]
        types = encoded.get("token_type_ids")
        order = sorted(range(len(queries)), key=lambda i: len(ids[i]))
        # batches are built on the host (pinned on a GPU, copied without blocking) and the scores stay on the
        # device until the end: no host-device sync per batch
        pin = self.device.type == "cuda"
        pad_id = self.tokenizer.pad_token_id or 0
        scores = torch.empty(len(queries), dtype=torch.float32, device=self.device)
        for start in range(0, len(order), self.batch_size):
            batch_indices = order[start : start + self.batch_size]
            width = len(ids[batch_indices[-1]])
            input_ids = torch.full((len(batch_indices), width), pad_id, dtype=torch.long, pin_memory=pin)
            attention_mask = torch.zeros((len(batch_indices), width), dtype=torch.long, pin_memory=pin)
            token_type_ids = torch.zeros((len(batch_indices), width), dtype=torch.long, pin_memory=pin)
            for row, index in enumerate(batch_indices):
                length = len(ids[index])
                # the tokenizer's padding side (left for last-token classifiers)
                span = slice(width - length, width) if self.tokenizer.padding_side == "left" else slice(0, length)
                input_ids[row, span] = torch.tensor(ids[index])
                attention_mask[row, span] = 1
                if types is not None:
                    token_type_ids[row, span] = torch.tensor(types[index])
            batch = {"input_ids": input_ids, "attention_mask": attention_mask}
            if types is not None:
                batch["token_type_ids"] = token_type_ids
            batch = {key: value.to(self.device, non_blocking=True) for key, value in batch.items()}
            logits = self.model(**batch).logits.float()
            values = logits[:, 0] if logits.shape[-1] == 1 else logits[:, 1] - logits[:, 0]
            scores[torch.tensor(batch_indices, device=self.device)] = values
            if progress is not None:
                progress(len(batch_indices))
        return scores.cpu().tolist()
