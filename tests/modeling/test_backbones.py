"""Wikiformer on every encoder it pre-trains (BERT, XLM-RoBERTa, ModernBERT, DeBERTa-v2), with tiny random configs:
each checkpoint is its encoder's own sequence classifier and loads four ways (the encoder's
AutoModelForSequenceClassification without remote code, the remote code, CrossEncoder with and without it) with the
same scores; round trips, the MLM head, starts from the encoders' published layouts, and clear errors."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoModelForMaskedLM, AutoModelForSequenceClassification

from tests.modeling.conftest import DOCUMENTS, QUERY, SAVED_MAX_LENGTH, run_fresh
from tests.modeling.test_load_paths import LOGITS_HELPER, assert_no_spurious_warnings
from tests.tiny_backbones import BACKBONE_NAMES, save_tiny_encoder, tiny_config, tiny_ranker, tokenizer_for
from wikiformer_kit.modeling_wikiformer import (
    WikiformerForPreTraining,
    WikiformerForRanking,
    backbone_classes,
    max_pair_length,
    save_for_hub,
    score_pairs,
)

SEQUENCE_CLASSIFIERS = {
    "bert": "BertForSequenceClassification",
    "xlm-roberta": "XLMRobertaForSequenceClassification",
    "modernbert": "ModernBertForSequenceClassification",
    "deberta-v2": "DebertaV2ForSequenceClassification",
}
RANKERS = {
    "bert": "WikiformerForRanking",
    "xlm-roberta": "WikiformerXLMRobertaForRanking",
    "modernbert": "WikiformerModernBertForRanking",
    "deberta-v2": "WikiformerDebertaV2ForRanking",
}
MLM_HEADS = {"bert": "cls.predictions.", "xlm-roberta": "lm_head.", "modernbert": "mlm_head.", "deberta-v2": "cls."}

LOAD_FOUR_WAYS = (
    LOGITS_HELPER
    + """
from sentence_transformers import CrossEncoder
from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer
path = PATH
tokenizer = AutoTokenizer.from_pretrained(path)
plain = AutoModelForSequenceClassification.from_pretrained(path)
remote = AutoModelForSequenceClassification.from_pretrained(path, trust_remote_code=True)
result = {
    "config": type(AutoConfig.from_pretrained(path)).__name__,
    "remote_config": type(AutoConfig.from_pretrained(path, trust_remote_code=True)).__name__,
    "plain": [type(plain).__name__, logits(plain, tokenizer)],
    "remote": [type(remote).__name__, type(remote).__module__, logits(remote, tokenizer)],
    "rerank": [hit["corpus_id"] for hit in remote.rerank(pairs[0][0], [d for _, d in pairs], tokenizer)],
}
for trust in (False, True):
    model = CrossEncoder(path, trust_remote_code=trust)
    result[f"cross_encoder_{trust}"] = [
        type(model.model).__name__, model.max_seq_length, model.predict(pairs, batch_size=2).tolist()
    ]
"""
)


@pytest.fixture(scope="module", params=BACKBONE_NAMES)
def backbone(request, tmp_path_factory):
    """(name, tokenizer, tiny ranking model, its saved checkpoint) of each encoder."""
    name = request.param
    tokenizer = tokenizer_for(name)
    model = tiny_ranker(name, tokenizer, seed=1, initializer_range=0.2)  # scores far enough apart to order
    folder = save_for_hub(model, tokenizer, tmp_path_factory.mktemp(name) / "wikiformer", SAVED_MAX_LENGTH)
    return name, tokenizer, model, folder


def expected_scores(model, tokenizer) -> torch.Tensor:
    return model.score(QUERY, DOCUMENTS, tokenizer, max_length=SAVED_MAX_LENGTH)


def test_each_encoder_loads_four_ways_with_the_same_scores(backbone, tmp_path):
    name, tokenizer, model, folder = backbone
    result, stderr = run_fresh(LOAD_FOUR_WAYS.replace("PATH", repr(str(folder))), tmp_path)
    expected = expected_scores(model, tokenizer)
    config = json.loads((folder / "config.json").read_text())
    assert config["model_type"] == name and config["architectures"] == [RANKERS[name]]
    assert config["auto_map"]["AutoModelForSequenceClassification"] == f"modeling_wikiformer.{RANKERS[name]}"
    assert result["plain"][0] == SEQUENCE_CLASSIFIERS[name]
    assert result["remote"][0] == RANKERS[name] and result["remote"][1].startswith("transformers_modules.")
    assert result["remote_config"] == backbone_classes(name)[0].__name__
    for key in ("plain", "remote"):
        torch.testing.assert_close(torch.tensor(result[key][-1]), expected, rtol=1e-5, atol=1e-5)
    for trust in (False, True):
        kind, max_length, predicted = result[f"cross_encoder_{trust}"]
        assert kind == (RANKERS[name] if trust else SEQUENCE_CLASSIFIERS[name])
        assert max_length == SAVED_MAX_LENGTH
        torch.testing.assert_close(torch.tensor(predicted), torch.sigmoid(expected), rtol=1e-5, atol=1e-5)
    assert result["rerank"] == expected.argsort(descending=True).tolist()
    assert expected.unique().numel() == len(DOCUMENTS)  # the scores tell the documents apart
    assert_no_spurious_warnings(stderr)


def test_round_trip_keeps_the_encoders_own_classifier_layout(backbone, transformers_log):
    name, tokenizer, model, folder = backbone
    transformers_log.clear()
    loaded = WikiformerForRanking.from_pretrained(folder)  # the BERT entry point picks the encoder's class
    assert type(loaded).__name__ == RANKERS[name] and transformers_log == []
    # the same weights (DeBERTa's kernels differ in the last bits between two copies of them)
    assert all(torch.equal(value, loaded.state_dict()[key]) for key, value in model.state_dict().items())
    torch.testing.assert_close(expected_scores(loaded, tokenizer), expected_scores(model, tokenizer), rtol=0, atol=1e-6)
    own = AutoModelForSequenceClassification.from_config(tiny_config(name, tokenizer, wikiformer=False, num_labels=1))
    assert set(load_file(folder / "model.safetensors")) == set(own.state_dict()) - _tied_or_buffers(own)
    assert loaded.config.num_labels == 1 and loaded.config.query_max_length == 30


def _tied_or_buffers(model) -> set[str]:
    return {name for name, _ in model.named_buffers()}


def test_the_ranking_loss_and_gradients_reach_head_and_encoder(backbone):
    name, tokenizer, _, _ = backbone
    model = tiny_ranker(name, tokenizer, seed=2).train()
    encoded = tokenizer([QUERY] * 2, DOCUMENTS[:2], padding=True, return_tensors="pt")
    output = model(**encoded, labels=torch.tensor([1.0, 0.0]))
    assert output.logits.shape == (2, 1) and output.loss > 0
    output.loss.backward()
    head = model.ranking_output()
    assert head.weight.shape == (1, 32) and head.weight.grad.abs().sum() > 0
    assert model.get_input_embeddings().weight.grad.abs().sum() > 0
    assert all(
        any(key.startswith(prefix) for key, _ in model.named_parameters()) for prefix in model.ranking_head_prefixes
    )


def test_the_mlm_head_is_the_encoders_own_and_its_checkpoint_ranks_as_the_ranker(backbone, tmp_path, transformers_log):
    name, tokenizer, _, _ = backbone
    pretraining_class = backbone_classes(name)[2]
    torch.manual_seed(3)
    model = pretraining_class(tiny_config(name, tokenizer)).eval()
    embeddings = model.get_input_embeddings().weight
    if name != "deberta-v2" or model.config.legacy:  # DeBERTa's non-legacy head reads the embeddings themselves
        assert model.get_output_embeddings().weight is embeddings
    encoded = tokenizer([QUERY] * 2, DOCUMENTS[:2], padding=True, return_tensors="pt")
    labels = torch.full_like(encoded["input_ids"], -100)
    labels[:, 4] = encoded["input_ids"][:, 4]
    masked = encoded["input_ids"].clone()
    masked[:, 4] = tokenizer.mask_token_id
    output = model(**{**encoded, "input_ids": masked}, mlm_labels=labels, labels=torch.ones(2))
    assert output.logits.shape == (2, 1) and output.loss > output.mlm_loss > 0
    assert output.prediction_logits.shape[-1] == len(tokenizer)
    model.save_pretrained(tmp_path / "pre", tokenizer=tokenizer)
    config = json.loads((tmp_path / "pre" / "config.json").read_text())
    assert config["auto_map"]["AutoModelForPreTraining"].endswith(pretraining_class.__name__)
    assert any(key.startswith(MLM_HEADS[name]) for key in load_file(tmp_path / "pre" / "model.safetensors"))
    transformers_log.clear()
    ranking = WikiformerForRanking.from_pretrained(tmp_path / "pre").eval()
    again = WikiformerForPreTraining.from_pretrained(tmp_path / "pre").eval()
    assert transformers_log == [] and type(again) is pretraining_class
    with torch.no_grad():
        torch.testing.assert_close(ranking(**encoded).logits, model(**encoded).logits)
        torch.testing.assert_close(again(**encoded).logits, model(**encoded).logits)


@pytest.mark.parametrize("name", [name for name in BACKBONE_NAMES if name != "bert"])
def test_a_start_from_the_published_mlm_checkpoint_keeps_its_mlm_head(name, tmp_path, transformers_log):
    tokenizer = tokenizer_for(name)
    save_tiny_encoder(name, tmp_path / "encoder", tokenizer)
    encoder = AutoModelForMaskedLM.from_pretrained(tmp_path / "encoder")
    transformers_log.clear()
    model = WikiformerForPreTraining.from_bert(tmp_path / "encoder")
    assert type(model) is backbone_classes(name)[2]
    assert len(transformers_log) == 1 and "new, randomly initialised head weights" in transformers_log[0]
    new = transformers_log[0].split("(train before use): ")[1]
    assert MLM_HEADS[name] not in new and "classifier" in new  # the MLM head is the checkpoint's; the ranker is new
    ours, theirs = dict(model.named_parameters()), dict(encoder.named_parameters())
    mlm = {key: value for key, value in theirs.items() if not key.startswith(encoder.base_model_prefix + ".")}
    renamed = {
        key.replace("head.", "mlm_head.", 1) if name == "modernbert" else key: value for key, value in mlm.items()
    }
    for key, value in renamed.items():
        if key in ours:
            assert torch.equal(ours[key], value), key
    assert sum(key in ours for key in renamed) >= 2


def test_every_encoder_bert_included_has_one_forward_per_model_kind():
    _, bert_ranking, bert_pretraining = backbone_classes("bert")
    for name in (*BACKBONE_NAMES, "roberta"):
        _, ranking, pretraining = backbone_classes(name)
        assert ranking.forward is bert_ranking.forward and pretraining.forward is bert_pretraining.forward, name


def test_no_encoder_but_bert_starts_its_head_from_an_nsp_head(tmp_path):
    tokenizer = tokenizer_for("xlm-roberta")
    save_tiny_encoder("xlm-roberta", tmp_path / "encoder", tokenizer)
    with pytest.raises(ValueError, match="XLM-RoBERTa has no next-sentence-prediction head"):
        WikiformerForRanking.from_bert(tmp_path / "encoder", head="nsp")


def test_another_encoders_checkpoint_is_refused_by_a_class_of_another_encoder(backbone):
    name, _, _, folder = backbone
    other = "modernbert" if name != "modernbert" else "xlm-roberta"
    with pytest.raises(ValueError, match=f"model_type '{name}', not '{other}'"):
        backbone_classes(other)[1].from_pretrained(folder)


def test_an_encoder_wikiformer_does_not_know_is_named_with_those_it_does(tmp_path):
    from transformers import DistilBertConfig, DistilBertModel

    DistilBertModel(DistilBertConfig(dim=32, n_layers=1, n_heads=2, hidden_dim=64)).save_pretrained(tmp_path)
    with pytest.raises(ValueError, match="model_type 'distilbert'.*bert, roberta, xlm-roberta, deberta-v2, modernbert"):
        WikiformerForRanking.from_pretrained(tmp_path)
    with pytest.raises(ValueError, match="Wikiformer pre-trains the encoders"):
        backbone_classes("distilbert")


def test_xlm_roberta_reads_512_tokens_of_its_514_positions(tmp_path):
    tokenizer = tokenizer_for("xlm-roberta")
    model = tiny_ranker("xlm-roberta", tokenizer)
    assert max_pair_length(model.config) == 512
    save_for_hub(model, tokenizer, tmp_path)
    assert json.loads((tmp_path / "sentence_bert_config.json").read_text())["max_seq_length"] == 512
    long = "word " * 2000
    assert model.score(QUERY, [long], tokenizer, max_length=10_000).isfinite().all()  # capped at 512, no index error


def test_a_token_budget_gives_the_same_scores_in_smaller_batches():
    tokenizer = tokenizer_for("modernbert")
    model = tiny_ranker("modernbert", tokenizer)
    documents = ["capital " * n for n in (3, 200, 40, 900, 7, 1500)]
    widths: list[tuple[int, int]] = []

    def record(_, args, kwargs):
        widths.append(tuple(kwargs["input_ids"].shape))

    hook = model.register_forward_pre_hook(record, with_kwargs=True)
    try:
        budgeted = score_pairs(model, tokenizer, QUERY, documents, batch_size=6, max_length=2048, max_tokens=2048)
        budget_widths, widths[:] = list(widths), []
        whole = score_pairs(model, tokenizer, QUERY, documents, batch_size=6, max_length=2048)
    finally:
        hook.remove()
    torch.testing.assert_close(budgeted, whole, rtol=1e-5, atol=1e-5)
    assert widths == [(6, 1509)]  # 1,500 words, the 6 of the query and 3 special tokens
    assert all(rows * width <= 2048 or rows == 1 for rows, width in budget_widths) and len(budget_widths) > 2


def test_modernbert_scores_a_pair_past_512_tokens_as_its_plain_classifier(tmp_path):
    tokenizer = tokenizer_for("modernbert")
    model = tiny_ranker("modernbert", tokenizer, initializer_range=0.2)
    document = " ".join(f"paris{i % 50} france capital seine" for i in range(1200))  # about 6,000 tokens
    save_for_hub(model, tokenizer, tmp_path, max_length=4096)
    plain = AutoModelForSequenceClassification.from_pretrained(tmp_path).eval()
    encoded = tokenizer(QUERY, document, truncation=True, max_length=4096, return_tensors="pt")
    assert encoded["input_ids"].shape[1] == 4096
    with torch.no_grad():
        expected = plain(**encoded).logits.view(-1)
        shorter = plain(**tokenizer(QUERY, document, truncation=True, max_length=512, return_tensors="pt")).logits
    torch.testing.assert_close(
        model.score(QUERY, [document], tokenizer, max_length=4096), expected, rtol=1e-5, atol=1e-5
    )
    assert not torch.allclose(shorter.view(-1), expected)  # the tokens past 512 count


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "version"), [("xlm-roberta", "4.46.3"), ("deberta-v2", "4.46.3"), ("modernbert", "4.57.6")]
)
def test_the_remote_code_scores_each_encoder_under_older_transformers(name, version, tmp_path):
    """A user of transformers 4 loads the checkpoint's own copy of the model file (ModernBERT came in 4.48)."""
    from tests.modeling.test_older_transformers import older_transformers_python

    python = older_transformers_python(version)
    tokenizer = tokenizer_for(name)
    model = tiny_ranker(name, tokenizer, seed=1, initializer_range=0.2)
    folder = save_for_hub(model, tokenizer, tmp_path / "checkpoint", SAVED_MAX_LENGTH)
    result, _ = run_fresh(
        f"""
        import transformers
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        path = {str(folder)!r}
        model = AutoModelForSequenceClassification.from_pretrained(path, trust_remote_code=True).eval()
        tokenizer = AutoTokenizer.from_pretrained(path)
        scores = model.score({QUERY!r}, {DOCUMENTS!r}, tokenizer, max_length={SAVED_MAX_LENGTH})
        result = {{"version": transformers.__version__, "class": type(model).__name__, "scores": scores.tolist()}}
        """,
        tmp_path,
        python=python,
    )
    assert result["version"] == version and result["class"] == RANKERS[name]
    assert result["scores"] == pytest.approx(expected_scores(model, tokenizer).tolist(), abs=1e-4)


def test_roberta_checkpoints_are_roberta_sequence_classifiers_as_xlm_roberta_ones_are(tmp_path):
    tokenizer = tokenizer_for("xlm-roberta")  # RoBERTa's pair layout: <s> q </s></s> d </s>
    config = tiny_config("xlm-roberta", tokenizer)
    _, ranking_class, pretraining_class = backbone_classes("roberta")
    torch.manual_seed(4)
    model = ranking_class(backbone_classes("roberta")[0](**config.to_diff_dict())).eval()
    save_for_hub(model, tokenizer, tmp_path / "roberta", SAVED_MAX_LENGTH)
    plain = AutoModelForSequenceClassification.from_pretrained(tmp_path / "roberta").eval()
    assert type(plain).__name__ == "RobertaForSequenceClassification"
    expected = expected_scores(model, tokenizer)
    torch.testing.assert_close(score_pairs(plain, tokenizer, QUERY, DOCUMENTS, max_length=SAVED_MAX_LENGTH), expected)
    assert type(WikiformerForRanking.from_pretrained(tmp_path / "roberta")) is ranking_class
    pretraining = pretraining_class(model.config)
    assert pretraining.lm_head.decoder.weight is pretraining.roberta.embeddings.word_embeddings.weight
