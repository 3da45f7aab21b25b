"""Saving and loading checkpoints in process: round trips, BERT/PROP initialisation and clear errors for bad input."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file, save_file
from transformers import (
    BertConfig,
    BertForPreTraining,
    BertForSequenceClassification,
    BertModel,
    DistilBertConfig,
    DistilBertModel,
)

from tests.modeling.conftest import DOCUMENTS, QUERY, TINY_BERT, tiny_config
from wikiformer_kit.modeling_wikiformer import WikiformerForPreTraining, WikiformerForRanking


def scores(model, tokenizer):
    return model.score(QUERY, DOCUMENTS, tokenizer, max_length=64)


def test_save_load_round_trip_gives_identical_scores_and_bert_layout(
    tiny_model, tiny_checkpoint, tokenizer, transformers_log
):
    loaded = WikiformerForRanking.from_pretrained(tiny_checkpoint)
    assert torch.equal(scores(loaded, tokenizer), scores(tiny_model, tokenizer))
    assert transformers_log == []
    keys = set(load_file(tiny_checkpoint / "model.safetensors"))
    assert {"classifier.weight", "classifier.bias", "bert.pooler.dense.weight"} <= keys
    assert all(key.startswith(("bert.", "classifier.")) for key in keys)
    config = json.loads((tiny_checkpoint / "config.json").read_text())
    assert config["model_type"] == "bert" and config["architectures"] == ["WikiformerForRanking"]
    assert set(config["auto_map"]) == {"AutoConfig", "AutoModel", "AutoModelForSequenceClassification"}
    assert (tiny_checkpoint / "modeling_wikiformer.py").is_file()


def test_from_bert_reports_the_new_head_once_and_nothing_spurious(tmp_path, tokenizer, transformers_log):
    torch.manual_seed(3)
    BertForPreTraining(BertConfig(**TINY_BERT)).save_pretrained(tmp_path / "bert")  # like bert-base-uncased
    transformers_log.clear()
    model = WikiformerForRanking.from_bert(tmp_path / "bert")
    assert len(transformers_log) == 1, transformers_log
    assert transformers_log[0].endswith(
        "bert: encoder loaded; new, randomly initialised head weights (train before use): "
        "classifier.bias [1], classifier.weight [1, 32]."
    )
    assert model.config.num_labels == 1
    bert = BertModel.from_pretrained(tmp_path / "bert")
    assert torch.equal(model.bert.pooler.dense.weight, bert.pooler.dense.weight)


def test_from_bert_drops_another_heads_label_maps(tmp_path):
    BertForSequenceClassification(BertConfig(**TINY_BERT, num_labels=1, id2label={0: "relevant"})).save_pretrained(
        tmp_path / "cross-encoder"
    )
    model = WikiformerForRanking.from_bert(tmp_path / "cross-encoder")
    source = BertForSequenceClassification.from_pretrained(tmp_path / "cross-encoder")
    assert torch.equal(model.classifier.weight, source.classifier.weight)  # a trained 1-label head is reused


def test_pretraining_checkpoint_loads_into_ranking_with_identical_scores(tmp_path, tokenizer, transformers_log):
    torch.manual_seed(4)
    pretraining = WikiformerForPreTraining(tiny_config()).eval()
    pretraining.save_pretrained(tmp_path / "pre", tokenizer=tokenizer)
    transformers_log.clear()
    ranking = WikiformerForRanking.from_pretrained(tmp_path / "pre")
    assert transformers_log == []
    inputs = tokenizer([QUERY], [DOCUMENTS[0]], return_tensors="pt")
    torch.testing.assert_close(ranking(**inputs).logits, pretraining(**inputs).logits)
    config = json.loads((tmp_path / "pre" / "config.json").read_text())
    assert config["auto_map"]["AutoModelForPreTraining"] == "modeling_wikiformer.WikiformerForPreTraining"


def test_prop_checkpoint_with_bare_cls_head_imports_into_both_models(tmp_path, transformers_log):
    # PROP's layout (Albert-Ma/PROP README): `cls` is Linear(hidden, 1) and carries the MLM head as `cls.predictions`.
    torch.manual_seed(5)
    bert = BertForPreTraining(BertConfig(**TINY_BERT))
    head = torch.nn.Linear(32, 1)
    state = {key: value.contiguous() for key, value in bert.state_dict().items() if "seq_relationship" not in key}
    state |= {"cls.weight": head.weight.detach().clone(), "cls.bias": head.bias.detach().clone()}
    for tied in ("cls.predictions.decoder.weight", "cls.predictions.decoder.bias"):  # saved once, as transformers does
        del state[tied]
    (tmp_path / "prop").mkdir()
    save_file(state, tmp_path / "prop" / "model.safetensors")
    BertConfig(**TINY_BERT, architectures=["PROP"]).save_pretrained(tmp_path / "prop")
    transformers_log.clear()
    ranking = WikiformerForRanking.from_pretrained(tmp_path / "prop")
    assert transformers_log == []
    assert torch.equal(ranking.classifier.weight, head.weight) and torch.equal(ranking.classifier.bias, head.bias)
    pretraining = WikiformerForPreTraining.from_pretrained(tmp_path / "prop")
    assert transformers_log == []
    assert torch.equal(pretraining.classifier.weight, head.weight)
    assert torch.equal(pretraining.cls.predictions.transform.dense.weight, bert.cls.predictions.transform.dense.weight)
    ranking.save_pretrained(tmp_path / "converted")
    keys = set(load_file(tmp_path / "converted" / "model.safetensors"))
    assert "classifier.weight" in keys and "cls.weight" not in keys


def test_missing_encoder_weights_are_a_clear_error(tiny_checkpoint, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    state = load_file(tiny_checkpoint / "model.safetensors")
    del state["bert.encoder.layer.1.output.dense.weight"]
    save_file(state, broken / "model.safetensors")
    (broken / "config.json").write_text((tiny_checkpoint / "config.json").read_text())
    with pytest.raises(ValueError, match=r"broken: not a complete BERT checkpoint, 1 encoder weights missing"):
        WikiformerForRanking.from_pretrained(broken)


def test_trained_checkpoint_without_its_head_is_a_clear_error(tiny_checkpoint, tmp_path):
    headless = tmp_path / "headless"
    headless.mkdir()
    state = {
        key: value
        for key, value in load_file(tiny_checkpoint / "model.safetensors").items()
        if not key.startswith("classifier.")
    }
    save_file(state, headless / "model.safetensors")
    (headless / "config.json").write_text((tiny_checkpoint / "config.json").read_text())
    with pytest.raises(ValueError, match="trained WikiformerForRanking checkpoint, but its head weights are missing"):
        WikiformerForRanking.from_pretrained(headless)


def test_wrong_head_shape_is_a_clear_error(tmp_path):
    BertForSequenceClassification(BertConfig(**TINY_BERT, num_labels=3)).save_pretrained(tmp_path / "three-labels")
    with pytest.raises(ValueError, match=r"wrong shape.*classifier\.weight: checkpoint \(3, 32\) vs model \(1, 32\)"):
        WikiformerForRanking.from_pretrained(tmp_path / "three-labels")


def test_wrong_head_shape_can_be_replaced_by_a_new_head_on_request(tmp_path, transformers_log):
    BertForSequenceClassification(BertConfig(**TINY_BERT, num_labels=3)).save_pretrained(tmp_path / "three-labels")
    transformers_log.clear()
    model = WikiformerForRanking.from_pretrained(tmp_path / "three-labels", ignore_mismatched_sizes=True)
    assert model.classifier.weight.shape == (1, 32)
    assert transformers_log[-1].endswith(
        "head weights (train before use): classifier.bias [1], classifier.weight [1, 32]."
    )


def test_config_of_another_model_type_is_a_clear_error(tmp_path):
    DistilBertModel(DistilBertConfig(dim=32, n_layers=1, n_heads=2, hidden_dim=64)).save_pretrained(tmp_path / "db")
    with pytest.raises(ValueError, match="model_type 'distilbert'; Wikiformer is a BERT re-ranker"):
        WikiformerForRanking.from_pretrained(tmp_path / "db")
