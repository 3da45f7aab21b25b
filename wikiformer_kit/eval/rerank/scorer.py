"""Scoring (query, document) pairs with any sequence-classification checkpoint: a `WikiformerForRanking` folder
(remote code), a sentence-transformers CrossEncoder folder, or a `BertForSequenceClassification`."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

from wikiformer_kit.modeling_wikiformer import DEFAULT_ALPHA, score_pairs

logger = logging.getLogger(__name__)

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
"""The weight dtypes a scorer loads a checkpoint in (``auto``: the checkpoint's stored dtype)."""
DTYPE_CHOICES = ("auto", *DTYPES)
BUDGET_LENGTH = 512
"""Pairs longer than this are batched by tokens: a batch holds at most ``batch_size`` x 512 tokens, so scoring
whole long documents (ModernBERT's 8,192 tokens) needs no more memory than a batch of 512-token pairs."""


def load_dtype(dtype: str, device: torch.device) -> torch.dtype | str:
    """The ``dtype`` to pass to ``from_pretrained``: ``"auto"`` (the stored dtype) or a torch dtype.

    Raises:
        ValueError: an unknown name, float16 on a CPU (slow or unsupported there: use bfloat16 or float32), or
            bfloat16 on a GPU without bfloat16 support.
    """
    if dtype not in DTYPE_CHOICES:
        raise ValueError(f"dtype {dtype!r}: choose one of {', '.join(DTYPE_CHOICES)}")
    if dtype == "float16" and device.type == "cpu":
        raise ValueError(
            "dtype float16 on a CPU: many CPU kernels lack float16 (slow or unsupported); use bfloat16 or float32 "
            "(or a GPU)"
        )
    if dtype == "bfloat16" and device.type == "cuda" and not torch.cuda.is_bf16_supported():
        raise ValueError(f"dtype bfloat16: {torch.cuda.get_device_name(device)} does not support it; use float16")
    return dtype if dtype == "auto" else DTYPES[dtype]


def _saved_max_length(model_path: str) -> int | None:
    # CrossEncoder (and Wikiformer, which writes CrossEncoder files too) records its pair length here
    # (``max_seq_length`` in sentence-transformers 6, ``max_length`` in older versions)
    config = Path(model_path) / "sentence_bert_config.json"
    if config.is_file():
        saved = json.loads(config.read_text(encoding="utf-8"))
        return saved.get("max_seq_length") or saved.get("max_length")
    return None


class ModelScorer:
    """Scores pairs with a sequence-classification model of one (or two) labels already in memory (training's
    evaluation; `PairScorer` loads one from a folder)."""

    def __init__(self, model, tokenizer, max_length: int = 512, batch_size: int = 16):
        self.model, self.tokenizer, self.max_length, self.batch_size = model, tokenizer, max_length, batch_size
        self.model_path = getattr(model, "name_or_path", "") or type(model).__name__

    @property
    def dtype(self) -> str:
        """The model's weight dtype, e.g. ``"float32"`` (recorded with a resumable run's settings)."""
        return str(next(self.model.parameters()).dtype).removeprefix("torch.")

    @property
    def fusion(self) -> tuple[str, float] | None:
        """The fusion stored in the checkpoint's ``config.json`` (``fusion_method``, ``fusion_alpha``), or None."""
        method = getattr(self.model.config, "fusion_method", None)
        alpha = getattr(self.model.config, "fusion_alpha", None)
        return (method, float(alpha if alpha is not None else DEFAULT_ALPHA)) if method else None

    def score(
        self,
        queries: Sequence[str],
        documents: Sequence[str],
        progress: Callable[[int], object] | None = None,
    ) -> list[float]:
        """Relevance scores of (query, document) pairs, in input order (`modeling_wikiformer.score_pairs`, the kit's
        one scorer); ``progress`` receives batch sizes (e.g. ``tqdm.update``)."""
        if len(queries) != len(documents):
            raise ValueError(f"{len(queries)} queries for {len(documents)} documents")
        scores = score_pairs(
            self.model,
            self.tokenizer,
            list(queries),
            list(documents),
            batch_size=self.batch_size,
            max_length=self.max_length,
            progress=progress,
            max_tokens=self.batch_size * BUDGET_LENGTH if self.max_length > BUDGET_LENGTH else None,
        )
        return scores.tolist()


class PairScorer(ModelScorer):
    """Loads a re-ranking checkpoint and scores pairs in length-sorted batches (`ModelScorer`).

    Loading is `AutoModelForSequenceClassification` + `AutoTokenizer` with ``trust_remote_code=True`` (a Wikiformer
    checkpoint resolves to `WikiformerForRanking` through its ``auto_map``; CrossEncoder and plain BERT folders load
    as `BertForSequenceClassification`). The score is the single logit; a two-label classifier (monoBERT style)
    scores ``logit[1] - logit[0]``, which orders pairs as its softmax does.

    Args:
        max_length: pair length in tokens; default: the checkpoint's sentence-transformers ``max_seq_length``,
            else the tokenizer's ``model_max_length`` (where sentence-transformers 6 saves a CrossEncoder's), else
            ``min(512, max_position_embeddings)``.
        device: default cuda when available, else cpu.
        dtype: ``auto`` keeps the checkpoint's stored dtype (a float16 one is loaded in float32 on a CPU, with a
            warning), or ``float32``, ``bfloat16``, ``float16`` (refused on a CPU). Scores are float32.

    Example::

        scorer = PairScorer("path/to/wikiformer-checkpoint", max_length=256)
        scores = scorer.score(["what is a statutory deed"] * 2, ["A deed is ...", "Statutes ..."])
    """

    def __init__(
        self,
        model: str,
        max_length: int | None = None,
        batch_size: int = 32,
        device: str | None = None,
        dtype: str = "auto",
    ):
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.model_path = str(model)
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        load_as = load_dtype(dtype, self.device)
        self.tokenizer = AutoTokenizer.from_pretrained(self.model_path, trust_remote_code=True)
        self.model = AutoModelForSequenceClassification.from_pretrained(
            self.model_path, trust_remote_code=True, dtype=load_as
        )
        if self.device.type == "cpu" and self.dtype == "float16":
            logger.warning(
                "%s is stored in float16, which CPUs run slowly or not at all: scoring in float32 "
                "(--dtype bfloat16 for half the memory)",
                self.model_path,
            )
            self.model.float()
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
