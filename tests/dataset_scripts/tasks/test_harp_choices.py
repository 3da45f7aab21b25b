"""HARP's choices on hand-made attention (no model): RDP's anchor importance without a length bias, QDM's negatives,
the variants. The attention values are set by hand, so every figure below is worked out in the comments."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from wikiformer_kit.dataset_scripts.tasks import qdm, rdp
from wikiformer_kit.dataset_scripts.tasks.anchors import Anchor, HarpOptions, LinkedSentence, ordered_sum, sample_words
from wikiformer_kit.dataset_scripts.tasks.attention import TextAttention, word_spans
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
    assert HarpOptions.variant("paper") == HarpOptions(heads="mean", anchor_importance="sum", query_length="poisson")
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
