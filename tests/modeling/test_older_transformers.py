"""The remote code under older transformers, each in a virtual environment of its own: the oldest supported (4.46)
and the last 4 release (4.57, what ``pip install sentence-transformers[onnx]`` resolves to, as optimum-onnx pins
``transformers<4.58``).

Each environment holds only what a user of that version has (torch, that transformers and its dependencies), not
the kit's transformers 5: it is created once under ``~/.cache/wikiformer-test-venvs`` (or
``$WIKIFORMER_TEST_VENVS``) and reused by later runs, so a CI job can cache that folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.modeling.conftest import PAIRS, run_fresh

pytestmark = pytest.mark.slow

OLDEST_TRANSFORMERS = "4.46.3"
LAST_TRANSFORMERS_4 = "4.57.6"
TORCH = torch.__version__.split("+")[0]


def older_transformers_python(version: str = OLDEST_TRANSFORMERS) -> str:
    """The interpreter of a virtual environment with transformers ``version`` (created if absent), or skip."""
    root = Path(os.environ.get("WIKIFORMER_TEST_VENVS", Path.home() / ".cache" / "wikiformer-test-venvs"))
    venv = root / f"transformers-{version}"
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import torch, transformers; print(transformers.__version__)"]
    if python.exists() and _output(probe) == version:
        return str(python)
    steps = (
        [sys.executable, "-m", "venv", "--clear", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", f"torch=={TORCH}", f"transformers=={version}"],
    )
    for step in steps:
        completed = subprocess.run(step, capture_output=True, text=True, timeout=1200)
        if completed.returncode != 0:
            pytest.skip(f"could not create {venv} ({' '.join(step[2:5])}): {completed.stderr.strip()[-300:]}")
    return str(python)


def _output(command: list[str]) -> str | None:
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    return completed.stdout.strip() if completed.returncode == 0 else None


@pytest.mark.parametrize("version", [OLDEST_TRANSFORMERS, LAST_TRANSFORMERS_4])
def test_remote_code_loads_and_scores_under_older_transformers(
    version, tiny_checkpoint, tiny_model, tokenizer, tmp_path
):
    python = older_transformers_python(version)
    result, _ = run_fresh(
        f"""
        import transformers
        from transformers import AutoConfig, AutoModel, AutoModelForSequenceClassification, AutoTokenizer

        path = {str(tiny_checkpoint)!r}
        config = AutoConfig.from_pretrained(path, trust_remote_code=True)
        model = AutoModel.from_pretrained(path, trust_remote_code=True).eval()
        tokenizer = AutoTokenizer.from_pretrained(path)
        pairs = {PAIRS!r}
        scores = model.score([q for q, _ in pairs], [d for _, d in pairs], tokenizer)
        ranked = model.rerank(pairs[0][0], [d for _, d in pairs], tokenizer, first_stage_scores=[5, 4, 3, 2, 1])
        as_tuple = model(**tokenizer(["a"], ["b"], return_tensors="pt"), return_dict=False)
        classifier = AutoModelForSequenceClassification.from_pretrained(path, trust_remote_code=True)
        result = {{
            "version": transformers.__version__, "config": type(config).__name__, "model": type(model).__name__,
            "labels": config.num_labels, "query_max_length": config.query_max_length,
            "scores": scores.tolist(), "ranked": len(ranked), "tuple": type(as_tuple).__name__,
            "classifier": type(classifier).__name__,
        }}
        """,
        tmp_path,
        python=python,
    )
    expected = tiny_model.score([q for q, _ in PAIRS], [d for _, d in PAIRS], tokenizer).tolist()
    assert result["version"] == version
    assert (result["config"], result["model"], result["classifier"]) == (
        "WikiformerConfig",
        "WikiformerForRanking",
        "WikiformerForRanking",
    )
    assert (result["labels"], result["query_max_length"], result["ranked"], result["tuple"]) == (1, 30, 5, "tuple")
    assert result["scores"] == pytest.approx(expected, abs=1e-4)
