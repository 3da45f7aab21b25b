"""FirstP, MaxP and SumP on hand-made long documents, scored by a scorer whose scores can be worked out by hand."""

from __future__ import annotations

import json

import pytest

from tests.eval.conftest import EVAL_SAMPLES, minilm_path, run_fresh
from wikiformer_kit.eval.collections import Collection
from wikiformer_kit.eval.rerank import rerank, rerank_run
from wikiformer_kit.eval.rerank.long_documents import LongDocuments, PassageScorer, score_long_pairs, split_passages


class WordCountScorer:
    """Scores a pair by how many of the query's words its text holds, reading only the text's first ``max_length``
    words (as a model reads only the first tokens of a pair)."""

    model_path = "word-count"
    batch_size = 4

    def __init__(self, max_length: int = 1000):
        self.max_length = max_length
        self.calls: list[int] = []

    def score(self, queries, documents, progress=None):
        self.calls.append(len(documents))
        scores = []
        for query, text in zip(queries, documents, strict=True):
            words = text.lower().split()[: self.max_length]
            scores.append(float(sum(words.count(word) for word in set(query.lower().split()))))
        if progress:
            progress(len(documents))
        return scores

    def predict(self, pairs):
        return self.score([q for q, _ in pairs], [t for _, t in pairs])


def words(start: int, stop: int) -> str:
    return " ".join(f"w{i}" for i in range(start, stop))


def test_passages_are_windows_every_stride_words_the_last_ending_with_the_text():
    assert split_passages(words(0, 10), window=4, stride=2) == [
        words(0, 4),
        words(2, 6),
        words(4, 8),
        words(6, 10),
    ]
    assert split_passages(words(0, 9), window=4, stride=4) == [words(0, 4), words(4, 8), "w8"]
    assert split_passages(words(0, 3), window=4, stride=2) == [words(0, 3)]
    assert split_passages("  ", window=4, stride=2) == [""]


def test_maxp_takes_the_best_passage_sump_their_sum_firstp_the_whole_pair():
    # "apple" at words 1 and 9, "pie" at word 10: with window 4, stride 4 the passages are
    # w0 apple w2 w3 | w4 w5 w6 w7 | w8 apple pie w11 -> query "apple pie" counts 1, 0, 2
    body = "w0 apple w2 w3 w4 w5 w6 w7 w8 apple pie w11"
    pairs = [("apple pie", body)]
    scorer = WordCountScorer()
    assert score_long_pairs(scorer.predict, pairs, LongDocuments("maxp", 4, 4)) == [2.0]
    assert score_long_pairs(scorer.predict, pairs, LongDocuments("sump", 4, 4)) == [3.0]
    assert score_long_pairs(scorer.predict, pairs, LongDocuments("firstp")) == [3.0]
    assert score_long_pairs(WordCountScorer(max_length=4).predict, pairs, LongDocuments("firstp")) == [1.0]
    # overlapping passages (stride 2), words 0-3, 2-5, 4-7, 6-9, 8-11, count a word once per passage holding it:
    # 1, 0, 0, 1 (the second apple), 2 (apple pie)
    assert score_long_pairs(scorer.predict, pairs, LongDocuments("sump", 4, 2)) == [4.0]
    assert score_long_pairs(scorer.predict, pairs, LongDocuments("maxp", 4, 2)) == [2.0]


def test_the_title_starts_every_passage():
    pairs = [("fruit", ("Fruit", words(0, 10)))]
    scorer = WordCountScorer()
    assert score_long_pairs(scorer.predict, pairs, LongDocuments("sump", 4, 2)) == [4.0]  # 4 passages
    assert score_long_pairs(scorer.predict, pairs, LongDocuments("maxp", 4, 2)) == [1.0]
    assert score_long_pairs(scorer.predict, pairs, LongDocuments("firstp")) == [1.0]


def test_windows_count_the_tokenizers_tokens_and_cut_the_text_unchanged():
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(minilm_path())
    body = "Subrogation lets an insurer recover what it paid from the party who caused the loss. " * 6
    passages = split_passages(body, window=12, stride=6, tokenizer=tokenizer)
    assert len(passages) > 3
    for passage in passages:
        assert passage in body
        assert len(tokenizer(passage, add_special_tokens=False)["input_ids"]) <= 12
    assert body.startswith(passages[0]) and body.rstrip().endswith(passages[-1])


@pytest.mark.parametrize(
    ("mode", "window", "stride", "message"),
    [("lastp", 4, 2, "choose one of firstp, maxp, sump"), ("maxp", 4, 5, "stride 5 is longer than the window 4")],
)
def test_bad_settings_are_refused_by_name(mode, window, stride, message):
    with pytest.raises(ValueError, match=message):
        LongDocuments(mode, window, stride)


def long_collection() -> Collection:
    relevant_late = words(0, 40) + " apple pie recipe"
    return Collection(
        "long",
        documents={"late": "Dessert " + relevant_late, "early": "Apples apple " + words(0, 40)},
        queries={"q1": "apple pie"},
        qrels={"q1": {"late": 1, "early": 0}},
        titles={"late": "Dessert"},
    )


def test_rerank_scores_by_passages_and_records_the_setting(tmp_path):
    collection = long_collection()
    candidates = {"q1": {"early": 2.0, "late": 1.0}}
    firstp = rerank_run(collection, candidates, WordCountScorer(max_length=10), progress=False)
    assert firstp["q1"] == {"early": 1.0, "late": 0.0}  # the late document's match lies past the first 10 words
    maxp = LongDocuments("maxp", 8, 4)
    run = rerank(collection, candidates, WordCountScorer(max_length=10), tmp_path / "r.run", long_documents=maxp)
    assert run["q1"] == {"early": 1.0, "late": 2.0}
    done = (tmp_path / "r.run.done").read_text().splitlines()
    assert done[0] == "# model=word-count max_length=10 depth=None long_documents=maxp,window=8,stride=4"
    with pytest.raises(ValueError, match="different settings"):
        rerank(
            collection,
            candidates,
            WordCountScorer(max_length=10),
            tmp_path / "r.run",
            long_documents=LongDocuments("sump", 8, 4),
        )


def test_passage_scorer_passes_the_title_before_each_passage():
    scorer = PassageScorer(WordCountScorer(), LongDocuments("sump", 8, 8))
    collection = long_collection()
    run = rerank_run(collection, {"q1": {"late": 1.0}}, scorer, progress=False)
    # "dessert": the title once per passage of the 43-word body (6 passages of 8 words), never twice in one
    assert (
        rerank_run(
            Collection("t", collection.documents, {"q1": "dessert"}, titles=collection.titles),
            {"q1": {"late": 1.0}},
            scorer,
            progress=False,
        )["q1"]["late"]
        == 6.0
    )
    assert run["q1"]["late"] == 2.0
    assert scorer.model_path == "word-count"


def test_a_sentence_transformers_cross_encoder_scores_long_documents(tiny_bert_ranker):
    from sentence_transformers import CrossEncoder

    model = CrossEncoder(str(tiny_bert_ranker))
    body = "The hot glowing surfaces of stars emit energy in the form of electromagnetic radiation. " * 4
    setting = LongDocuments("maxp", 16, 8)
    passages = split_passages(body, 16, 8, model.tokenizer)
    by_passage = model.predict([("star energy", f"Stars {p}") for p in passages])
    maxp = score_long_pairs(model.predict, [("star energy", ("Stars", body))], setting, model.tokenizer)
    assert maxp == pytest.approx([float(max(by_passage))], abs=1e-6)
    sump = score_long_pairs(model.predict, [("star energy", ("Stars", body))], LongDocuments("sump", 16, 8))
    assert len(sump) == 1


def test_eval_rerank_maxp_from_the_command_line(tiny_bert_ranker, tmp_path):
    out = tmp_path / "out"
    args = [
        "-m",
        "eval",
        "rerank",
        "--model",
        str(tiny_bert_ranker),
        "--collection",
        str(EVAL_SAMPLES / "msmarco-doc-mini"),
        "--output-dir",
        str(out),
        "--max-length",
        "64",
        "--long-documents",
        "maxp",
        "--passage-window",
        "32",
        "--passage-stride",
        "16",
    ]
    done = run_fresh(args, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    metrics = json.loads((out / "metrics.json").read_text())
    tag = tiny_bert_ranker.name
    assert metrics[tag]["long_documents"] == {"mode": "maxp", "window": 32, "stride": 16}
    assert "long_documents" not in metrics["msmarco-docdev-top100"]
    assert "long_documents=maxp,window=32,stride=16" in (out / f"{tag}.run.done").read_text().splitlines()[0]
    refused = run_fresh([*args[:-1], "40"], tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1] == (
        "error: passage stride 40 is longer than the window 32: text between passages would never be scored; "
        "use a stride of at most the window"
    )
