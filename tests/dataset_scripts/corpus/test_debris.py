"""The debris hint of the wikitext cleaner: a paragraph it passes over has no debris any pattern would remove."""

from __future__ import annotations

import random

from wikiformer_kit.dataset_scripts.corpus.wikitext import _DEBRIS, _DEBRIS_HINT, clean_debris


def six_passes(text: str) -> str:
    for pattern, replacement in _DEBRIS:
        text = pattern.sub(replacement, text)
    return text


def test_every_piece_of_debris_holds_the_hint():
    # Strings over every character the patterns name (and a letter, a digit, blanks): short enough that each
    # pattern matches many of them, many enough to meet every way a pattern can match.
    alphabet = sorted({c for pattern, _ in _DEBRIS for c in pattern.pattern if not c.isalnum()} | set("aé1 \t\n"))
    rng = random.Random(0)
    matched = 0
    for _ in range(30_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7)))
        if any(pattern.search(text) for pattern, _ in _DEBRIS):
            matched += 1
            assert _DEBRIS_HINT.search(text), f"debris without the hint: {text!r}"
        assert clean_debris(text) == six_passes(text)
    assert matched > 3_000


def test_debris_is_cleaned_as_before():
    for text in ("Baku ( , Azerbaijani)", "a (; b)", "x ,, y", "word , next", "( inner)", "plain text, no debris."):
        assert clean_debris(text) == six_passes(text)
    assert clean_debris("Azerbaijan ( , ) is") == "Azerbaijan is"
