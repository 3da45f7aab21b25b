"""The cross-encoder false-negative filter: margins as in sentence-transformers, and a real checkpoint end to end."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from wikiformer_kit.dataset_scripts.finetune.__main__ import main
from wikiformer_kit.dataset_scripts.finetune.build import build_groups
from wikiformer_kit.dataset_scripts.finetune.false_negatives import FalseNegativeFilter
from wikiformer_kit.dataset_scripts.finetune.options import MiningOptions
from wikiformer_kit.dataset_scripts.finetune.sources import load_source


class OverlapScorer:
    """Scores a pair by the share of the query's words in the document (a transparent relevance function)."""

    def __init__(self):
        self.pairs = 0

    def score(self, queries, documents):
        self.pairs += len(queries)
        return [
            len(set(q.split()) & set(d.split())) / len(set(q.split())) for q, d in zip(queries, documents, strict=True)
        ]


def _rows(folder):
    return pa.concat_tables([pq.read_table(f) for f in sorted((folder / "data").glob("*.parquet"))]).to_pylist()


def test_threshold_follows_the_margins():
    absolute = FalseNegativeFilter(None, absolute_margin=0.5, scorer=OverlapScorer())
    relative = FalseNegativeFilter(None, relative_margin=0.1, scorer=OverlapScorer())
    both = FalseNegativeFilter(None, absolute_margin=0.5, relative_margin=0.5, scorer=OverlapScorer())
    assert absolute.threshold(2.0) == 1.5
    assert relative.threshold(-2.0) == pytest.approx(-2.2)
    assert both.threshold(4.0) == 2.0
    # positive 1.0: a candidate at 0.5 (= 1.0 - 0.5) is kept, one at 1.0 is not; positive 0.5: 1.0 is too close
    dropped = absolute.too_close_texts([("a b", "a b", ["a", "a b c", "x"]), ("a b", "a", ["a b", "y"])])
    assert dropped == [{1}, {0}]


def test_filter_drops_close_candidates(handmade, tmp_path):
    scorer = OverlapScorer()
    options = MiningOptions(depth=40, num_negatives=40, filter_model="overlap", absolute_margin=0.5)
    unfiltered = build_groups(load_source(str(handmade)), tmp_path / "plain", MiningOptions(depth=40, num_negatives=40))
    flt = FalseNegativeFilter(None, absolute_margin=0.5, scorer=scorer)
    public = build_groups(load_source(str(handmade)), tmp_path / "filtered", options, false_negatives=flt)
    plain = {(r["query_id"], r["positive_id"]): r for r in _rows(tmp_path / "plain")}
    kept = {(r["query_id"], r["positive_id"]): r for r in _rows(tmp_path / "filtered")}
    dropped = 0
    for key, row in plain.items():
        survivors = kept[key]["negatives"] if key in kept else []
        positive = scorer.score([row["query"]], [row["positive"]])[0]
        for text in row["negatives"]:
            close = scorer.score([row["query"]], [text])[0] > positive - 0.5
            assert (text in survivors) is not close
            dropped += close
    assert dropped and public["statistics"]["counts"]["candidate too close to the positive (cross-encoder)"] == dropped
    assert unfiltered["statistics"]["counts"]["groups"] >= public["statistics"]["counts"]["groups"]
    assert "False negatives filtered" in (tmp_path / "filtered" / "README.md").read_text()


def test_a_real_cross_encoder_checkpoint_filters_from_the_command_line(handmade, tmp_path):
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    words = sorted({w for line in (handmade / "collection.tsv").read_text().split("\n") for w in line.split()[1:]})
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(vocab))
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=37, max_position_embeddings=128, num_labels=1,
    )  # fmt: skip
    model_dir = tmp_path / "cross-encoder"
    BertForSequenceClassification(config).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    out = tmp_path / "out"
    argv = ["--collection", str(handmade), "--output-dir", str(out), "--depth", "40", "--num-negatives", "40"]
    assert main([*argv, "--filter-model", str(model_dir), "--relative-margin", "0.0", "--filter-max-length", "64"]) == 0
    stats = (out / "mining_stats.json").read_text()
    assert '"filter_model": "cross-encoder"' in stats  # the folder's name, not a local path
    rows = _rows(out)
    plain = tmp_path / "plain"
    assert main([*argv[:3], str(plain), *argv[4:]]) == 0
    total = sum(len(r["negatives"]) for r in _rows(plain))
    import json

    counts = json.loads(stats)["statistics"]["counts"]
    assert (
        sum(len(r["negatives"]) for r in rows) + counts.get("candidate too close to the positive (cross-encoder)", 0)
        == total
    )
