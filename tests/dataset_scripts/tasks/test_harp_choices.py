"""HARP's choices on hand-made attention (no model): RDP's anchor importance without a length bias, QDM's negatives,
the variants. The attention values are set by hand, so every figure below is worked out in the comments."""

from __future__ import annotations

import functools
import math
import random

import numpy as np
import pytest

from wikiformer_kit.dataset_scripts.tasks import acm, qdm, rdp, rqp
from wikiformer_kit.dataset_scripts.tasks.anchors import Anchor, HarpOptions, LinkedSentence, ordered_sum, sample_words
from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention, join_pieces, load_tokenizer, word_spans
from wikiformer_kit.dataset_scripts.tasks.language_model import load_stopwords
from wikiformer_kit.dataset_scripts.tasks.stats import TaskStats

STOP = load_stopwords()


class Passages:
    def text(self, row):
        return f"passage {row}"

    def title(self, row):
        return f"Page {row}"


def attention_of(text: str, cls: dict[str, float], pieces: dict[str, int], rows=()) -> TextAttention:
    spans = word_spans(text)
    words = [w for w, _, _ in spans]
    return TextAttention(
        words,
        [(s, e) for _, s, e in spans],
        np.array([cls.get(w, 0.0) for w in words]),
        np.array([[row.get(w, 0.0) for w in words] for row in rows]).reshape(len(rows), len(words)),
        np.array([pieces.get(w, 1) for w in words], dtype=np.float32),
    )


SENTENCE = "The Latgalian Catholic Church stands near Rezekne."
# [CLS] attention: the three-word anchor gets 0.3 + 0.2 + 0.2 = 0.7 over 4 pieces ("latgalian" is 2), the one-word
# anchor "Rezekne" 0.6 over 3 pieces. Summed over words the longer anchor wins (0.7 > 0.6); averaged over pieces
# the shorter one does (0.6 / 3 = 0.2 > 0.7 / 4 = 0.175).
ATTENTION = attention_of(
    SENTENCE,
    {"latgalian": 0.3, "catholic": 0.2, "church": 0.2, "rezekne": 0.6},
    {"latgalian": 2, "rezekne": 3},
)
CHURCH, TOWN = 11, 12


def sentence() -> LinkedSentence:
    church = SENTENCE.index("Latgalian Catholic Church")
    town = SENTENCE.index("Rezekne")
    anchors = [
        Anchor("Latgalian Catholic Church", (church, church + len("Latgalian Catholic Church")), CHURCH),
        Anchor("Rezekne", (town, town + len("Rezekne")), TOWN),
    ]
    return LinkedSentence("7", "Source", SENTENCE, anchors)


def test_rdp_importance_averages_word_pieces_so_the_longer_anchor_does_not_win():
    mean = rdp.anchor_importance(sentence(), ATTENTION, "mean")
    assert mean[TOWN] == pytest.approx(math.exp(0.2) / (math.exp(0.2) + math.exp(0.175)))
    summed = rdp.anchor_importance(sentence(), ATTENTION, "sum")
    assert summed[CHURCH] == pytest.approx(math.exp(0.7) / (math.exp(0.7) + math.exp(0.6)))
    shares = {}
    for how in ("mean", "sum"):
        rows, _ = rdp.rdp_rows(
            sentence(), ATTENTION, Passages(), STOP, random.Random(0), HarpOptions(anchor_importance=how)
        )
        assert len(rows) == 1
        stats = TaskStats()  # as the build counts it for the card
        for row in rows:
            stats.measure(rdp.LONGER_ANCHOR_WINS, float(rdp.longer_anchor_wins(row)))
        shares[how] = stats.measures[rdp.LONGER_ANCHOR_WINS].mean
    assert shares == {"mean": 0.0, "sum": 1.0}
    assert HarpOptions().anchor_importance == "mean"  # the default is the original code's
    assert rdp.longer_anchor_wins({"anchors": ["Riga", "Rezekne"]}) is None  # as long: not counted


def test_qdm_never_takes_the_source_article_as_the_negative():
    text = "Mercury orbits closest to the Sun."
    start = text.index("Mercury")
    anchor = Anchor("Mercury", (start, start + len("Mercury")), 1)
    linked = LinkedSentence("5", "Source", text, [anchor])
    attention = attention_of(text, {}, {}, rows=[{"orbits": 0.5, "closest": 0.3, "sun": 0.2}])
    key = qdm.anchor_key("Mercury")
    # the anchor text links to page 1, page 2 and the source article (row 5) somewhere in the corpus
    negatives = set()
    for seed in range(20):
        rows, skipped = qdm.qdm_rows(
            linked, attention, Passages(), STOP, random.Random(seed), HarpOptions(),
            {key: ([1, 2, 5], 2**63)}, source_row=5,
        )  # fmt: skip
        assert len(rows) == 1 and rows[0]["positive"] == "passage 1" and not skipped
        negatives.add(rows[0]["negatives"][0])
    assert negatives == {"passage 2"}
    # only the source article is left: no row, a counted skip
    rows, skipped = qdm.qdm_rows(
        linked, attention, Passages(), STOP, random.Random(0), HarpOptions(), {key: ([1, 5], 2**63)}, source_row=5
    )
    assert rows == [] and skipped == {"no-other-destination": 1}


def test_variants_switch_all_of_harps_choices_at_once():
    paper = HarpOptions(heads="mean", anchor_importance="sum", query_length="poisson", variant_name="paper")
    assert HarpOptions.variant("paper") == paper
    original = HarpOptions.variant("original", passage_max_tokens=128)
    assert (original.heads, original.anchor_importance, original.query_length) == ("sum", "mean", "normal")
    assert original.passage_max_tokens == 128
    assert HarpOptions.variant("paper", heads="sum").heads == "sum"  # a single option overrides its variant
    default = HarpOptions.variant("default")
    assert (default.heads, default.anchor_importance, default.query_length) == ("sum", "mean", "poisson")
    with pytest.raises(ValueError, match="variant"):
        HarpOptions.variant("code")


class _FixedDraw(random.Random):
    def random(self):
        return 0.9999999999999999  # the largest float below 1


def test_draws_add_weights_left_to_right_on_every_python():
    # 1.0, then ten weights below half an ulp of 1.0: added left to right the total stays 1.0, so a point just below
    # it falls in the first word. A compensated sum (sum() from Python 3.12 on) would make the total
    # 1.000000000000001 and move the point past every running sum, to the last word.
    terms = ["first", *(f"tiny{i}" for i in range(10))]
    weights = [1.0] + [1e-16] * 10
    assert ordered_sum(weights) == 1.0
    assert sample_words(_FixedDraw(), terms, weights, 1) == ["first"]


def test_draws_without_replacement_keep_the_running_sums_of_the_words_left():
    # each draw's running sums are those of the remaining words accumulated from the first, bit for bit
    import bisect
    import itertools

    def drawn_by_definition(rng, terms, weights, count):
        terms, weights, chosen = list(terms), list(weights), []
        for _ in range(min(count, len(terms))):
            running = list(itertools.accumulate(weights))
            pick = min(bisect.bisect_right(running, rng.random() * running[-1]), len(weights) - 1)
            chosen.append(terms.pop(pick))
            weights.pop(pick)
        return chosen

    source = random.Random(7)
    for size in (1, 2, 3, 17, 120):
        terms = [f"w{i}" for i in range(size)]
        weights = [source.random() ** 3 for _ in range(size)]
        for seed in range(20):
            count = source.randint(1, size + 2)
            expected = drawn_by_definition(random.Random(seed), terms, weights, count)
            assert sample_words(random.Random(seed), terms, weights, count) == expected
    assert sample_words(random.Random(1), ["a", "b", "c"], [0.0, 1.0, 0.0], 3)[0] == "b"


TOWNS = "Daugavpils, Rezekne and Ludza are towns of Latgale."
DAUGAVPILS, REZEKNE, LUDZA, RANDOM_PAGE = 21, 22, 23, 24
# [CLS] attention averaged over pieces: Daugavpils 0.2 / 4 = 0.05, Rezekne 0.6 / 3 = 0.2, Ludza 0.3 / 2 = 0.15
TOWNS_ATTENTION = attention_of(
    TOWNS, {"daugavpils": 0.2, "rezekne": 0.6, "ludza": 0.3}, {"daugavpils": 4, "rezekne": 3, "ludza": 2}
)


def towns(text: str = TOWNS, targets=(DAUGAVPILS, REZEKNE, LUDZA)) -> LinkedSentence:
    names = ("Daugavpils", "Rezekne", "Ludza")
    anchors = [
        Anchor(name, (text.index(name), text.index(name) + len(name)), t)
        for name, t in zip(names, targets, strict=True)
    ]
    return LinkedSentence("3", "Latgale", text, anchors)


class PassagesWithAttention(Passages):
    """Each destination's first section is "<town> lies in Latgale by a lake.", attended by [CLS] by hand."""

    def text(self, row):
        return {DAUGAVPILS: "Daugavpils", REZEKNE: "Rezekne", LUDZA: "Ludza"}.get(row, "Other") + " by a lake."

    def attention(self, row):
        return attention_of(self.text(row), {"lake": 1.0}, {})


def test_rdp_gives_one_row_per_pair_of_anchors_in_the_original_order():
    rows, skipped = rdp.rdp_rows(towns(), TOWNS_ATTENTION, Passages(), STOP, random.Random(0), HarpOptions())
    # for i, for j > i: (Daugavpils, Rezekne), (Daugavpils, Ludza), (Rezekne, Ludza); the higher mean wins each
    assert [row["anchors"] for row in rows] == [
        ["Rezekne", "Daugavpils"],
        ["Ludza", "Daugavpils"],
        ["Rezekne", "Ludza"],
    ]
    assert [row["positive"] for row in rows] == [f"passage {REZEKNE}", f"passage {LUDZA}", f"passage {REZEKNE}"]
    total = math.exp(0.05) + math.exp(0.2) + math.exp(0.15)  # the softmax over the sentence's three anchors
    assert rows[0]["importance"] == pytest.approx([math.exp(0.2) / total, math.exp(0.05) / total])
    assert not skipped
    # the paper's reading: one row from two drawn destinations
    drawn, _ = rdp.rdp_rows(towns(), TOWNS_ATTENTION, Passages(), STOP, random.Random(0), HarpOptions(anchor_pairs="drawn"))  # fmt: skip
    assert len(drawn) == 1
    # two anchors to the same page make no pair (a page is not more about itself): Daugavpils-Ludza only
    same, skipped = rdp.rdp_rows(
        towns(targets=(DAUGAVPILS, REZEKNE, REZEKNE)), TOWNS_ATTENTION, Passages(), STOP, random.Random(0),
        HarpOptions(),
    )  # fmt: skip
    assert [row["anchors"] for row in same] == [["Rezekne", "Daugavpils"], ["Ludza", "Daugavpils"]]
    assert skipped == {"pair-same-destination": 1}


def test_rdp_tie_keeps_the_first_anchor_as_the_original_code_does():
    # Daugavpils 0.3 / 2 = 0.15 and Ludza 0.3 / 2 = 0.15: tied, so the earlier anchor (Daugavpils) is the positive
    tied = attention_of(TOWNS, {"daugavpils": 0.3, "rezekne": 0.6, "ludza": 0.3}, {"daugavpils": 2, "rezekne": 3, "ludza": 2})  # fmt: skip
    rows, _ = rdp.rdp_rows(towns(), tied, Passages(), STOP, random.Random(0), HarpOptions())
    assert rows[1]["anchors"] == ["Daugavpils", "Ludza"]
    assert rows[1]["importance"][0] == rows[1]["importance"][1]
    rows, skipped = rdp.rdp_rows(towns(), tied, Passages(), STOP, random.Random(0), HarpOptions(rdp_ties="drop"))
    assert [row["anchors"] for row in rows] == [["Rezekne", "Daugavpils"], ["Rezekne", "Ludza"]]
    assert skipped == {"tied-importance": 1}


def test_acm_gives_one_row_per_pair_of_anchors_in_the_original_order():
    rows, skipped = acm.acm_rows(
        towns(), TOWNS_ATTENTION, PassagesWithAttention(), STOP, random.Random(0), HarpOptions(), [RANDOM_PAGE]
    )
    # a_i's destination queried against a_j's, i < j: D -> R, D -> L, R -> L; "lake" is each passage's one word
    assert [(row["query"], row["positive"]) for row in rows] == [
        ("Daugavpils lake", "Rezekne by a lake."),
        ("Daugavpils lake", "Ludza by a lake."),
        ("Rezekne lake", "Ludza by a lake."),
    ]
    assert all(row["negatives"] == ["Other by a lake."] for row in rows) and not skipped
    # the original's draws: with replacement (the one word repeated to the drawn length), the anchor after them
    original = HarpOptions(word_draws="replacement", query_length="normal")
    rows, _ = acm.acm_rows(towns(), TOWNS_ATTENTION, PassagesWithAttention(), STOP, random.Random(0), original, [RANDOM_PAGE])  # fmt: skip
    assert len(rows) == 3
    for row in rows:
        *words, anchor = row["query"].split()
        assert anchor in ("Daugavpils", "Rezekne") and words == ["lake"] * len(words) and len(words) >= 1


class _Lengths(random.Random):
    """Gaussian draws given in turn (query lengths); everything else from a seeded RNG."""

    def __init__(self, values):
        super().__init__(0)
        self.values = iter(values)

    def gauss(self, mu=0.0, sigma=1.0):
        return next(self.values)


def test_rqp_negative_of_its_own_length_as_the_original_code():
    text = "The lake near Ludza is deep and cold."
    start = text.index("Ludza")
    linked = LinkedSentence("4", "Source", text, [Anchor("Ludza", (start, start + 5), LUDZA)])
    attention = attention_of(text, {}, {}, rows=[{"lake": 0.5, "deep": 0.3, "cold": 0.2, "ludza": 0.4}])
    passages = PassagesWithAttention()
    # the positive draws int(2.7) = 2 words, the negative int(3.9) = 3 (its own draw), with replacement
    original = HarpOptions.variant("original", importance_model="embedded:minilm")
    (row,), _ = rqp.rqp_rows(linked, attention, passages, STOP, _Lengths([2.7, 3.9]), original)
    positive = row["positive"].split()
    assert len(positive) == 2 + 1 and positive[-1] == "Ludza"  # drawn length + the anchor's word, anchor last
    assert set(positive[:-1]) <= {"lake", "deep", "cold", "ludza"}  # the anchor's word is no longer excluded
    negative = row["negatives"][0].split()  # 3 words of its own draw from "Ludza by a lake.", "ludza" not excluded
    assert len(negative) == 3 and set(negative) <= {"lake", "ludza"}
    # the default: the negative has as many words as the positive (2 drawn + the anchor's 1), distinct words
    (row,), _ = rqp.rqp_rows(linked, attention, passages, STOP, _Lengths([2.7, 3.9]), HarpOptions(query_length="normal"))  # fmt: skip
    assert row["positive"] in ("Ludza deep cold", "lake Ludza deep", "lake Ludza cold")  # text order, anchor in place
    assert row["negatives"] == ["lake"]  # 3 asked, but "ludza" is the anchor's: one distinct word is left


def test_the_original_variant_bundles_every_choice_of_the_code():
    original = HarpOptions.variant("original")
    assert (original.anchor_pairs, original.rdp_ties, original.rqp_negative_length) == ("all", "first", "own")
    assert (original.word_draws, original.exclude_anchor_words) == ("replacement", False)
    assert original.anchor_row == "first-piece" and HarpOptions().anchor_row == "mean"
    assert original.importance_model == "google-bert/bert-base-uncased" and original.passage_max_tokens == 510
    for name in ("default", "paper"):
        options = HarpOptions.variant(name)
        assert (options.anchor_pairs, options.rqp_negative_length, options.word_draws) == (
            "all",
            "positive",
            "distinct",
        )
        assert options.importance_model == "embedded:minilm" and options.exclude_anchor_words


def test_cards_describe_the_variant_actually_built():
    from wikiformer_kit.dataset_scripts.tasks.baseline_options import PropOptions
    from wikiformer_kit.dataset_scripts.tasks.card import render_card

    def card(task, options):
        info = {"options": options, "source": "ltgwiki.xml.bz2"}
        return str(render_card(task, TaskStats(rows=1), {"articles": 1}, info))

    def harp(variant, **changes):
        return {f"harp.{k}": v for k, v in HarpOptions.variant(variant, **changes).to_dict().items()}

    original = card("rdp", harp("original", stopwords="harp-stopwords.txt"))
    built = next(line for line in original.splitlines() if line.startswith("As built:"))
    assert "stopwords: harp-stopwords.txt" in built and "int(N(3, 1))" in built and "with replacement" in built
    assert "one row per pair" in built and "a length of its own draw" in built
    assert "google-bert/bert-base-uncased over 512 tokens" in built
    assert built.startswith("As built: --harp-variant original;") and "word pieces" in built
    assert "INQUERY" not in original and "Poisson(" not in original
    default = next(line for line in card("rqp", harp("default")).splitlines() if line.startswith("As built:"))
    assert "stopwords: INQUERY" in default and "Poisson(3)" in default and "as many words as the positive" in default
    assert "queries drawn from words" in default
    prop = {f"prop.{k}": v for k, v in PropOptions.original().to_dict().items()}
    built = next(line for line in card("prop", prop).splitlines() if line.startswith("As built:"))
    assert "NLTK English + INQUERY" in built and "2 epochs" in built and "Porter stems" in built
    assert "As built:" not in card("srr", harp("default"))  # a Wikiformer task's card: no baseline line


def test_qdm_first_occurrences_in_corpus_order_as_the_original_code():
    from wikiformer_kit.dataset_scripts.tasks.baseline_rows_step import _link_numbers

    # three articles' links as the work file holds them: article 0 has 2 links, article 1 none kept, article 2 has 3
    assert _link_numbers(np.array([0, 0, 2, 2, 2])).tolist() == [0, 1, 0, 1, 2]
    assert qdm.first_ranks(np.array([7, 7, 9]), np.array([0, 3, 1])).tolist() == [
        qdm.first_rank(7, 0), qdm.first_rank(7, 3), qdm.first_rank(9, 1),
    ]  # fmt: skip
    assert qdm.first_rank(7, 3) < qdm.first_rank(8, 0)  # an earlier article's every link comes first
    text = "Mercury orbits closest to the Sun, and Mercury is small."
    first, second = text.index("Mercury"), text.rindex("Mercury")
    anchors = [Anchor("Mercury", (first, first + 7), 1, link=3), Anchor("Mercury", (second, second + 7), 1, link=4)]
    linked = LinkedSentence("5", "Source", text, anchors)
    attention = attention_of(text, {}, {}, rows=[{"orbits": 0.5, "sun": 0.2}, {"small": 0.4}])
    # the plan's cut-off: the rank of the anchor text's first occurrence in the corpus (qdm_max_pairs = 1)
    plan = {qdm.anchor_key("Mercury"): ([1, 2], qdm.first_rank(5, 3))}
    options = HarpOptions(qdm_occurrences="first")
    rows, skipped = qdm.qdm_rows(linked, attention, Passages(), STOP, random.Random(0), options, plan, source_row=5)
    assert len(rows) == 1 and skipped == {"anchor-over-pair-cap": 1}  # the link at place 3 is kept, 4 is not
    assert "orbits" in rows[0]["query"] or "sun" in rows[0]["query"].lower()
    assert HarpOptions.variant("original").qdm_occurrences == "first" and HarpOptions().qdm_occurrences == "hashed"


class _Draws(_Lengths):
    """Gaussian draws (query lengths) and uniform draws (word draws) given in turn."""

    def __init__(self, lengths, uniforms):
        super().__init__(lengths)
        self.uniforms = iter(uniforms)

    def random(self):
        return next(self.uniforms)


def pieces_attention(text: str, tokenizer, weights: dict[str, float], row: bool) -> TextAttention:
    """Attention over the text's word pieces (as the scorer's ``unit="pieces"`` gives it), weights by hand: each
    occurrence of a piece gets ``weights[piece]``, in the anchor's row (``row``) or [CLS]'s."""
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    units = [(t, span) for t, span in zip(encoded.tokens(), encoded["offset_mapping"], strict=True) if t.isalnum() or t.startswith("##")]  # fmt: skip
    values = np.array([weights.get(t, 0.0) for t, _ in units])
    return TextAttention(
        [t for t, _ in units],
        [tuple(span) for _, span in units],
        np.zeros(len(units)) if row else values,
        values.reshape(1, -1) if row else np.zeros((0, len(units))),
        np.ones(len(units)),
        detokenize=functools.partial(join_pieces, tokenizer),
    )


def test_rqp_draws_word_pieces_with_replacement_as_the_original_code():
    tokenizer = load_tokenizer("embedded:minilm")
    text, passage = "The riverbanks of Daugava", "Daugava river, a river of Latvia"
    assert tokenizer.tokenize(text) == ["the", "river", "##bank", "##s", "of", "da", "##uga", "##va"]
    assert tokenizer.tokenize(passage) == ["da", "##uga", "##va", "river", ",", "a", "river", "of", "latvia"]
    # the anchor's row, by hand: exp(weight) 4 for "river", 2 for "##bank", 1 for the other candidates ("the" and
    # "of" are stopwords; the anchor's own pieces da ##uga ##va are candidates, as in the original): probabilities
    # river .4, ##bank .2, ##s .1, da .1, ##uga .1, ##va .1 -> running sums .4 .6 .7 .8 .9 1
    sentence_attention = pieces_attention(text, tokenizer, {"river": math.log(4), "##bank": math.log(2)}, row=True)
    # [CLS]'s row over the passage: "river" twice, log(2) / 2 each, summed as the original sums a repeated piece
    # (exp 2), "latvia" log(3) (exp 3), da ##uga ##va 0 (exp 1): .125 .125 .125 .25 .375 -> .125 .25 .375 .625 1
    passage_attention = pieces_attention(passage, tokenizer, {"river": math.log(2) / 2, "latvia": math.log(3)}, row=False)  # fmt: skip

    class Destination(Passages):
        def text(self, row):
            return passage

        def attention(self, row):
            return passage_attention

    start = text.index("Daugava")
    linked = LinkedSentence("4", "Source", text, [Anchor("Daugava", (start, start + 7), LUDZA)])
    options = HarpOptions.variant("original", importance_model="embedded:minilm")
    assert options.draw_unit == "pieces"
    # the positive: int(3.2) = 3 pieces at .05, .45, .65 -> river, ##bank, ##s, then the anchor; the negative its
    # own length int(2.5) = 2 at .3, .7 -> ##va, latvia (a leading continuation piece loses its "##")
    rng = _Draws([3.2, 2.5], [0.05, 0.45, 0.65, 0.3, 0.7])
    (row,), skipped = rqp.rqp_rows(linked, sentence_attention, Destination(), STOP, rng, options)
    assert not skipped
    assert row["positive"] == "riverbanks Daugava"  # convert_tokens_to_string: ##bank and ##s join "river"
    assert row["negatives"] == ["va latvia"]
    assert tokenizer.tokenize(row["positive"])[:3] == ["river", "##bank", "##s"]  # read back as drawn
    # pieces drawn at .75 and .85 -> da, ##uga: glued as the tokenizer joins them, whatever the draw order
    rng = _Draws([2.1, 1.5], [0.75, 0.85, 0.99])
    (row,), _ = rqp.rqp_rows(linked, sentence_attention, Destination(), STOP, rng, options)
    assert (row["positive"], row["negatives"]) == ("dauga Daugava", ["latvia"])
    with pytest.raises(ValueError, match="with replacement"):
        HarpOptions(draw_unit="pieces")
