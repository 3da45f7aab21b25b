"""NanoBEIR figures equal sentence-transformers' CrossEncoderNanoBEIREvaluator on the same model and data.

Two NanoBEIR-layout sets are built from vendored real collections (TREC DL 2020 passages with their BM25 run, and
Cranfield with the kit's BM25), in a local folder with the Hub dataset's layout, which both evaluators load.
"""

from __future__ import annotations

import logging
import math
import uuid

import pytest

from tests.eval.conftest import save_tiny_ranker
from tests.eval.nanobeir_data import DEPTH, build_mini_nanobeir, write_nanobeir_folder
from wikiformer_kit.eval.nanobeir import NanoBEIREvaluator, load_nano_queries, ranking_metrics
from wikiformer_kit.eval.rerank import PairScorer


@pytest.fixture(scope="module")
def nano_folder(tmp_path_factory):
    return build_mini_nanobeir(tmp_path_factory.mktemp("nanobeir"))


@pytest.fixture(scope="module")
def spread_ranker(tmp_path_factory):
    """A random 2-layer, hidden-32 BERT ranker whose scores are spread out as a trained re-ranker's are.

    With BERT's usual initialisation (0.02) a random model's logits differ by about 1e-5: after CrossEncoder's
    float32 sigmoid many are equal or one step apart, and a batch's padding moves a logit by about 3e-9, enough to
    change those, so the figures would depend on which pairs share a batch (the kit sorts pairs by length).
    """
    return save_tiny_ranker(tmp_path_factory.mktemp("spread_ranker"), initializer_range=0.2)


@pytest.mark.parametrize("always_rerank_positives", [True, False])
def test_figures_equal_sentence_transformers(nano_folder, spread_ranker, always_rerank_positives):
    from sentence_transformers.cross_encoder import CrossEncoder
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderNanoBEIREvaluator

    settings = {"rerank_k": DEPTH, "always_rerank_positives": always_rerank_positives}
    theirs = CrossEncoderNanoBEIREvaluator(
        ["msmarco", "scifact"], dataset_id=str(nano_folder), write_csv=False, **settings
    )(CrossEncoder(str(spread_ranker)))
    evaluator = NanoBEIREvaluator(["msmarco", "scifact"], dataset_id=nano_folder, **settings)
    ours = evaluator(PairScorer(str(spread_ranker)))

    assert evaluator.primary_metric == "NanoBEIR_R20_mean_ndcg@10"
    assert set(ours) == set(theirs)
    assert {"NanoMSMARCO_R20_ndcg@10", "NanoSciFact_R20_mrr@10", "NanoBEIR_R20_mean_base_map"} <= set(ours)
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, abs=1e-6), key
    # the re-ranked figures are not BM25's: the model's scores decide them
    assert ours["NanoMSMARCO_R20_ndcg@10"] != ours["NanoMSMARCO_R20_base_ndcg@10"]


def test_positives_missed_by_bm25_are_added(nano_folder):
    queries = load_nano_queries(nano_folder, "msmarco", rerank_k=DEPTH)
    assert len(queries) == 10
    assert all(len(query.documents) == DEPTH for query in queries)
    # the vendored DL 2020 queries have positives beyond BM25's top 20
    assert any(set(query.positives) - set(query.documents) for query in queries)


def test_ranking_metrics_by_hand():
    mrr, ndcg, ap = ranking_metrics([0, 1, 0, 1], [4.0, 3.0, 2.0, 1.0], at_k=10)
    ideal = 1 + 1 / math.log2(3)
    assert mrr == 0.5
    assert ndcg == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    assert ap == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert ranking_metrics([0, 1, 0, 1], [4.0, 3.0, 2.0, 1.0], at_k=1)[0] == 0.0
    assert ranking_metrics([1], [0.3], at_k=10)[1] == 1.0


def test_unknown_set_is_named():
    """NanoBEIR's own dataset has its 13 sets (refused before anything loads); another dataset in its layout has the
    splits it has (refused when one is missing, naming it)."""
    with pytest.raises(ValueError, match="NanoBEIR set 'trec-covid': choose among"):
        NanoBEIREvaluator(["trec-covid"])


def test_a_set_another_dataset_lacks_is_named(nano_folder):
    with pytest.raises(ValueError, match="cannot load subset 'corpus' split 'NanoWIKIR_xx'"):
        NanoBEIREvaluator(["NanoWIKIR_xx"], dataset_id=nano_folder)


def test_missing_document_is_named(tmp_path):
    subsets = {
        "corpus": [{"_id": "d1", "text": "a document"}],
        "queries": [{"_id": "q1", "text": "a query"}],
        "qrels": [{"query-id": "q1", "corpus-id": "d1"}],
        "bm25": [{"query-id": "q1", "corpus-ids": ["d1", "d2"]}],
    }
    folder = tmp_path / f"NanoBEIR-broken-{uuid.uuid4().hex}"
    write_nanobeir_folder(folder, {"NanoNQ": subsets})
    with pytest.raises(ValueError, match="NanoNQ: document 'd2' of query 'q1' in the bm25 subset is not in the corpus"):
        load_nano_queries(folder, "nq")


def test_missing_subset_is_named(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "README.md").write_text("---\nconfigs:\n- config_name: corpus\n  data_files: corpus/*.parquet\n---\n")
    with pytest.raises(ValueError, match="cannot load subset 'corpus' split 'NanoNQ'"):
        load_nano_queries(folder, "nq")


def test_hub_dataset_equals_sentence_transformers(hub, nano_folder, spread_ranker, tmp_path):
    """A NanoBEIR dataset on a Hub (the local one here), read by its id in a fresh process as a user would."""
    import json

    from tests.conftest import PROJECT_ROOT
    from tests.hub_server import run_python

    hub.upload_dataset("ns/NanoBEIR-mini", nano_folder, tmp_path / "home_pusher")
    out = run_python(
        f"""
import json
from sentence_transformers.cross_encoder import CrossEncoder
from sentence_transformers.cross_encoder.evaluation import CrossEncoderNanoBEIREvaluator
from wikiformer_kit.eval.nanobeir import NanoBEIREvaluator
from wikiformer_kit.eval.rerank import PairScorer

settings = dict(dataset_id="ns/NanoBEIR-mini", rerank_k={DEPTH})
theirs = CrossEncoderNanoBEIREvaluator(["msmarco", "scifact"], write_csv=False, **settings)(
    CrossEncoder({str(spread_ranker)!r})
)
ours = NanoBEIREvaluator(["msmarco", "scifact"], **settings)(PairScorer({str(spread_ranker)!r}))
print(json.dumps({{"theirs": theirs, "ours": ours}}))
""",
        {**hub.env(tmp_path / "home_user"), "PYTHONPATH": str(PROJECT_ROOT)},
    )
    figures = json.loads(out.strip().splitlines()[-1])
    assert set(figures["ours"]) == set(figures["theirs"])
    assert len(figures["ours"]) == 18  # 6 figures for each of 2 sets and their means
    for key, value in figures["theirs"].items():
        assert figures["ours"][key] == pytest.approx(value, abs=1e-6), key


def test_stored_activation_is_read():
    from types import SimpleNamespace

    from wikiformer_kit.eval.nanobeir import activated, score_activation

    def scorer(**config):
        return SimpleNamespace(model=SimpleNamespace(config=SimpleNamespace(**config)))

    assert score_activation(scorer(num_labels=1)) == "sigmoid"
    assert score_activation(scorer(num_labels=2)) == "identity"
    identity = {"activation_fn": "torch.nn.modules.linear.Identity"}
    assert score_activation(scorer(num_labels=1, sentence_transformers=identity)) == "identity"
    assert score_activation(scorer(num_labels=1), "identity") == "identity"
    assert activated([0.0, 2.0], "sigmoid") == pytest.approx([0.5, 1 / (1 + math.exp(-2))])
    with pytest.raises(ValueError, match="activation 'softmax': choose one of auto, sigmoid, identity"):
        score_activation(scorer(num_labels=1), "softmax")


def test_model_in_memory_gives_the_checkpoints_figures(nano_folder, spread_ranker):
    """Training's evaluation scores with the model it holds (`ModelScorer`): the same figures as from its folder."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from wikiformer_kit.eval.rerank import ModelScorer

    evaluator = NanoBEIREvaluator(["msmarco"], dataset_id=nano_folder, rerank_k=DEPTH)
    model = AutoModelForSequenceClassification.from_pretrained(spread_ranker).eval()
    in_memory = evaluator(ModelScorer(model, AutoTokenizer.from_pretrained(spread_ranker), batch_size=8))
    from_folder = evaluator(str(spread_ranker))
    assert (
        sorted(in_memory)
        == sorted(from_folder)
        == [
            f"{prefix}_{metric}"
            for prefix in ("NanoBEIR_R20_mean", "NanoMSMARCO_R20")
            for metric in ("base_map", "base_mrr@10", "base_ndcg@10", "map", "mrr@10", "ndcg@10")
        ]
    )
    for key, value in from_folder.items():
        assert in_memory[key] == pytest.approx(value, abs=1e-6), key


def nano_folder_of(tmp_path, corpus: list[dict], queries: list[dict]):
    """A one-set NanoBEIR-layout folder (NanoNQ) of these corpus and queries rows: q1 judges d1, BM25 gives d1, d2."""
    subsets = {
        "corpus": corpus,
        "queries": queries,
        "qrels": [{"query-id": "q1", "corpus-id": "d1"}],
        "bm25": [{"query-id": "q1", "corpus-ids": ["d1", "d2"]}],
    }
    folder = tmp_path / f"NanoBEIR-crafted-{uuid.uuid4().hex}"
    write_nanobeir_folder(folder, {"NanoNQ": subsets})
    return folder


CORPUS = [{"_id": "d1", "text": "a document"}, {"_id": "d2", "text": "another document"}]


def test_an_id_given_twice_with_another_text_keeps_the_last_as_sentence_transformers_counted(tmp_path, caplog):
    queries = [
        {"_id": "q1", "text": "the first text"},
        {"_id": "q1", "text": "the second text"},
        {"_id": "q2", "text": "a query"},
        {"_id": "q2", "text": "a query"},  # the same text again: silent
    ]
    folder = nano_folder_of(tmp_path, [*CORPUS, {"_id": "d2", "text": "a third text"}], queries)
    with caplog.at_level(logging.WARNING):
        (query,) = load_nano_queries(folder, "nq")
    assert query.query == "the second text" and query.documents == ["a document", "a third text"]
    assert f"{folder} NanoNQ queries subset: 1 ids given again with another text, the last kept as " in caplog.text
    assert f"{folder} NanoNQ corpus subset: 1 ids given again with another text, the last kept as " in caplog.text


def test_a_null_query_text_is_named_when_read(tmp_path):
    folder = nano_folder_of(tmp_path, CORPUS, [{"_id": "q1", "text": None}, {"_id": "q2", "text": "a query"}])
    with pytest.raises(ValueError, match=r"NanoNQ: query 'q1' has no text \(null\) in the queries subset"):
        load_nano_queries(folder, "nq")


def test_a_null_candidate_text_is_named_when_read(tmp_path):
    corpus = [CORPUS[0], {"_id": "d2", "text": None}]
    folder = nano_folder_of(tmp_path, corpus, [{"_id": "q1", "text": "a query"}])
    with pytest.raises(ValueError, match=r"NanoNQ: document 'd2' of query 'q1' has no text \(null\) in the corpus"):
        load_nano_queries(folder, "nq")
