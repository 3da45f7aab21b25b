from __future__ import annotations

import json

import pytest
import torch
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

from wikiformer_kit.eval.rerank import PairScorer

QUERIES = ["wing slipstream", "heat conduction in slabs", "a"]
DOCUMENTS = [
    "an experimental study of a wing in a propeller slipstream was made " * 3,
    "short",
    "boundary layer control",
]


def test_scores_match_a_direct_forward_in_input_order(tiny_bert_ranker):
    scorer = PairScorer(str(tiny_bert_ranker), max_length=64, batch_size=2, device="cpu")
    seen = []
    scores = scorer.score(QUERIES, DOCUMENTS, progress=seen.append)
    assert sum(seen) == 3 and len(seen) == 2
    model = BertForSequenceClassification.from_pretrained(tiny_bert_ranker).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert_ranker)
    with torch.inference_mode():
        for query, document, score in zip(QUERIES, DOCUMENTS, scores, strict=True):
            inputs = tokenizer(query, document, truncation=True, max_length=64, return_tensors="pt")
            assert model(**inputs).logits[0, 0].item() == pytest.approx(score, abs=1e-5)
    assert scorer.score([], []) == []
    with pytest.raises(ValueError, match="2 queries for 1 documents"):
        scorer.score(QUERIES[:2], DOCUMENTS[:1])


def test_max_length_comes_from_the_crossencoder_config(tiny_bert_ranker, tmp_path):
    assert PairScorer(str(tiny_bert_ranker), device="cpu").max_length == 512
    model = BertForSequenceClassification.from_pretrained(tiny_bert_ranker)
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert_ranker)
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    (tmp_path / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 96}))
    assert PairScorer(str(tmp_path), device="cpu").max_length == 96


def test_two_label_classifiers_score_the_logit_difference_and_others_are_refused(tiny_bert_ranker, tmp_path):
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert_ranker)
    for labels in (2, 3):
        config = BertConfig.from_pretrained(tiny_bert_ranker)
        config.num_labels = labels
        model = BertForSequenceClassification(config)
        model.save_pretrained(tmp_path / str(labels))
        tokenizer.save_pretrained(tmp_path / str(labels))
    scorer = PairScorer(str(tmp_path / "2"), device="cpu")
    logits = scorer.model(**tokenizer(QUERIES[:1], DOCUMENTS[:1], return_tensors="pt")).logits[0]
    assert scorer.score(QUERIES[:1], DOCUMENTS[:1])[0] == pytest.approx((logits[1] - logits[0]).item(), abs=1e-5)
    with pytest.raises(ValueError, match="needs 1 \\(or 2\\) labels, this checkpoint has 3"):
        PairScorer(str(tmp_path / "3"), device="cpu")


def test_a_crossencoder_folder_scores_like_crossencoder(tiny_bert_ranker, tmp_path):
    from sentence_transformers import CrossEncoder

    cross_encoder = CrossEncoder(str(tiny_bert_ranker), max_length=48, device="cpu")
    cross_encoder.save_pretrained(str(tmp_path / "ce"))
    scorer = PairScorer(str(tmp_path / "ce"), device="cpu")
    assert scorer.max_length == 48
    expected = cross_encoder.predict(list(zip(QUERIES, DOCUMENTS, strict=True)), activation_fn=torch.nn.Identity())
    assert scorer.score(QUERIES, DOCUMENTS) == pytest.approx([float(v) for v in expected], abs=1e-5)


def test_dtype_auto_keeps_the_stored_dtype_and_names_are_checked(tiny_bert_ranker, tmp_path, caplog):
    assert PairScorer(str(tiny_bert_ranker), device="cpu").dtype == "float32"
    bf16 = PairScorer(str(tiny_bert_ranker), device="cpu", dtype="bfloat16")
    assert bf16.dtype == "bfloat16" and next(bf16.model.parameters()).dtype == torch.bfloat16
    scores = bf16.score(QUERIES, DOCUMENTS)
    assert all(type(score) is float for score in scores)
    BertForSequenceClassification.from_pretrained(tiny_bert_ranker).half().save_pretrained(tmp_path)
    AutoTokenizer.from_pretrained(tiny_bert_ranker).save_pretrained(tmp_path)
    assert PairScorer(str(tmp_path), device="cpu", dtype="bfloat16").dtype == "bfloat16"
    with caplog.at_level("WARNING"):
        auto = PairScorer(str(tmp_path), device="cpu")  # stored float16: float32 on a CPU, said loudly
    assert auto.dtype == "float32" and "stored in float16, which CPUs run slowly or not at all" in caplog.text
    with pytest.raises(ValueError, match="dtype float16 on a CPU: .* use bfloat16 or float32"):
        PairScorer(str(tmp_path), device="cpu", dtype="float16")
    with pytest.raises(ValueError, match="dtype 'fp16': choose one of auto, float32, bfloat16, float16"):
        PairScorer(str(tiny_bert_ranker), device="cpu", dtype="fp16")


@pytest.mark.slow
def test_bfloat16_scores_are_close_to_float32_and_keep_their_order(tmp_path):
    from wikiformer_kit.modeling_wikiformer import WikiformerForRanking, save_for_hub

    torch.manual_seed(0)
    model = WikiformerForRanking.from_bert()  # the embedded MiniLM encoder: scores that differ between pairs
    save_for_hub(model, AutoTokenizer.from_pretrained(model.name_or_path), tmp_path, max_length=64)
    queries = ["wing slipstream", "heat conduction in slabs", "a", "boundary layer", "propeller noise"] * 2
    documents = [
        "an experimental study of a wing in a propeller slipstream was made",
        "short",
        "boundary layer control",
        "heat transfer in a slab of finite thickness",
        "noise of propellers at high tip speed",
        "x y z",
        "the",
        "supersonic flow over a cone",
        "laminar boundary layer on a flat plate",
        "pressure distribution",
    ]
    full = PairScorer(str(tmp_path), device="cpu").score(queries, documents)
    half = PairScorer(str(tmp_path), device="cpu", dtype="bfloat16").score(queries, documents)
    spread = max(full) - min(full)
    assert half == pytest.approx(full, abs=0.02 * spread)
    assert half != full  # bfloat16 did compute
    assert sorted(range(10), key=full.__getitem__) == sorted(range(10), key=half.__getitem__)


def test_pairs_longer_than_512_tokens_are_batched_by_tokens_with_unchanged_scores(tmp_path):
    from tests.tiny_backbones import tiny_ranker, tokenizer_for

    tokenizer = tokenizer_for("modernbert")
    model = tiny_ranker("modernbert", tokenizer)
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    documents = [" ".join(["slipstream wing propeller heat"] * 300)] * 3 + ["short"]
    scorer = PairScorer(str(tmp_path), max_length=2048, batch_size=4, device="cpu")
    seen = []
    scores = scorer.score(["wing"] * 4, documents, progress=seen.append)
    assert seen == [1, 1, 1, 1]  # 4 x 512 tokens a batch: a pair of ~1,200 tokens goes alone
    with torch.inference_mode():
        for document, score in zip(documents, scores, strict=True):
            inputs = tokenizer("wing", document, truncation=True, max_length=2048, return_tensors="pt")
            assert model(**inputs).logits[0, 0].item() == pytest.approx(score, abs=1e-4)
    short = PairScorer(str(tmp_path), max_length=512, batch_size=4, device="cpu")
    seen.clear()
    short.score(["wing"] * 4, documents, progress=seen.append)
    assert seen == [4]  # up to 512 tokens: batches by pairs, as before
