"""The ranking head started from a BERT checkpoint's next-sentence-prediction head, as HARP's code starts:
``PairWiseBertForPreTraining`` scores a pair with ``seq_relationship_logits[:, 1]`` (its ``mymodels.py``)."""

from __future__ import annotations

import pytest
import torch
from transformers import BertConfig, BertForPreTraining, BertModel

from wikiformer_kit.modeling_wikiformer import WikiformerForPreTraining, WikiformerForRanking

from .conftest import QUERY, TINY_BERT


@pytest.fixture(scope="module")
def pretraining_checkpoint(tmp_path_factory):
    torch.manual_seed(0)
    bert = BertForPreTraining(BertConfig(**TINY_BERT)).eval()
    with torch.no_grad():  # a visible NSP head: class 0 and class 1 logits far apart
        bert.cls.seq_relationship.weight.normal_(0.0, 0.5)
        bert.cls.seq_relationship.bias.copy_(torch.tensor([0.3, -0.7]))
    path = tmp_path_factory.mktemp("bert-for-pretraining")
    bert.save_pretrained(path)
    return path, bert


@pytest.mark.parametrize("model_class", [WikiformerForRanking, WikiformerForPreTraining])
def test_the_nsp_head_scores_a_pair_as_berts_nsp_logit_of_class_one(pretraining_checkpoint, tokenizer, model_class):
    path, bert = pretraining_checkpoint
    model = model_class.from_bert(path, head="nsp").eval()
    pair = tokenizer([QUERY, QUERY], ["Paris is the capital of France.", "The cat sat on the mat."], padding=True, return_tensors="pt")  # fmt: skip
    with torch.no_grad():
        expected = bert(**pair).seq_relationship_logits[:, 1]
        assert not torch.allclose(expected, bert(**pair).seq_relationship_logits[:, 0])
        scores = model(**pair).logits[:, 0]
    assert torch.allclose(scores, expected, atol=1e-6)
    # by hand: W[1] . pooled + b[1]
    with torch.no_grad():
        pooled = bert.bert(**pair).pooler_output
        by_hand = pooled @ bert.cls.seq_relationship.weight[1] + bert.cls.seq_relationship.bias[1]
    assert torch.allclose(scores, by_hand, atol=1e-6)
    new = model_class.from_bert(path).eval()  # the default head is new: not BERT's NSP logit
    with torch.no_grad():
        assert not torch.allclose(new(**pair).logits[:, 0], expected, atol=1e-3)


def test_a_checkpoint_without_an_nsp_head_is_a_clear_error(tmp_path):
    BertModel(BertConfig(**TINY_BERT)).save_pretrained(tmp_path)
    with pytest.raises(ValueError, match="no next-sentence-prediction head"):
        WikiformerForRanking.from_bert(tmp_path, head="nsp")
    with pytest.raises(ValueError, match="head must be one of"):
        WikiformerForRanking.from_bert(tmp_path, head="mlm")


def test_training_starts_the_head_from_nsp_when_the_config_asks(pretraining_checkpoint, tokenizer):
    from wikiformer_kit.train import load_model
    from wikiformer_kit.training.kit_arguments import ModelArguments

    path, bert = pretraining_checkpoint
    model = load_model(ModelArguments(model_name_or_path=str(path), head_init="nsp"), with_mlm=True).eval()
    pair = tokenizer(QUERY, "Paris is the capital of France.", return_tensors="pt")
    with torch.no_grad():
        assert torch.allclose(model(**pair).logits[:, 0], bert(**pair).seq_relationship_logits[:, 1], atol=1e-6)
    zero = load_model(ModelArguments(model_name_or_path=str(path)), with_mlm=True)
    assert not zero.classifier.weight.any()  # the default start: zero
