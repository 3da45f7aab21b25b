"""The PROP/HARP command-line options of the build, and the PROP and HARP options they give."""

from __future__ import annotations

import pytest

from wikiformer_kit.dataset_scripts.build import parse_options


def parse(*argv: str):
    options = parse_options(["x", "--output-dir", "o", *argv])
    return options.prop_options(), options.harp_options(), options.harp_attention_cache


def test_stopwords_default_to_the_papers_inquery_and_the_original_variant_to_nltk_and_inquery():
    prop, harp, _ = parse()
    assert prop.stopwords == "" and harp.stopwords == ""  # INQUERY, as both papers
    prop, harp, _ = parse("--prop-variant", "original")
    assert (prop.stopwords, prop.min_count, prop.background) == ("nltk+inquery", 10, "df")
    assert harp.stopwords == ""  # the variant is PROP's
    prop, harp, _ = parse("--prop-variant", "original", "--stopwords", "inquery")
    assert prop.stopwords == "inquery" and harp.stopwords == "inquery"


def test_the_original_variant_stems_and_the_option_overrides_either_variant():
    assert parse()[0].stem is False
    assert parse("--prop-variant", "original")[0].stem is True
    assert parse("--prop-variant", "original", "--no-prop-stem")[0].stem is False
    assert parse("--prop-stem")[0].stem is True


def test_the_stem_flag_takes_both_spellings_on_the_builds_command_line():
    assert parse_options(["x", "--output-dir", "o", "--prop_stem"]).prop_stem is True
    assert parse_options(["x", "--output-dir", "o", "--no_prop_stem"]).prop_stem is False
    assert parse_options(["x", "--output-dir", "o", "--no-prop-stem"]).prop_stem is False


def test_harps_original_variant_and_its_single_options_on_the_command_line():
    _, harp, _ = parse()
    assert (harp.importance_model, harp.passage_max_tokens, harp.anchor_pairs) == ("embedded:minilm", 250, "all")
    _, harp, _ = parse("--harp-variant", "original")
    assert (harp.importance_model, harp.passage_max_tokens) == ("google-bert/bert-base-uncased", 510)
    assert (harp.query_length, harp.rqp_negative_length, harp.word_draws) == ("normal", "own", "replacement")
    assert (harp.exclude_anchor_words, harp.anchor_row, harp.rdp_ties) == (False, "first-piece", "first")
    assert harp.qdm_occurrences == "first"
    assert (harp.draw_unit, harp.variant_name) == ("pieces", "original")
    assert parse("--harp-qdm-occurrences", "first")[1].qdm_occurrences == "first"
    assert parse()[1].draw_unit == "words"  # the default: words (a query of text, not of pieces out of order)
    assert parse("--harp-variant", "original", "--harp-draw-unit", "words")[1].draw_unit == "words"
    with pytest.raises(ValueError, match="--harp-word-draws replacement"):
        parse("--harp-variant", "original", "--harp-word-draws", "distinct")
    _, harp, _ = parse(
        "--harp-variant", "original", "--harp-importance-model", "embedded:minilm", "--harp-rqp-negative-length",
        "positive", "--harp-exclude-anchor-words", "--harp-anchor-pairs", "drawn", "--harp-rdp-ties", "drop",
        "--harp-passage-max-tokens", "250",
    )  # fmt: skip
    assert (harp.importance_model, harp.rqp_negative_length, harp.exclude_anchor_words) == (
        "embedded:minilm", "positive", True,
    )  # fmt: skip
    assert (harp.anchor_pairs, harp.rdp_ties, harp.passage_max_tokens, harp.word_draws) == ("drawn", "drop", 250, "replacement")  # fmt: skip


def test_props_epochs_and_left_out_pages_on_the_command_line():
    prop, _, _ = parse()
    assert (prop.epochs, prop.skip_disambiguation, prop.drop_long_sets) == (1, True, True)
    prop, _, _ = parse("--prop-variant", "original")
    assert prop.epochs == 2
    prop, _, _ = parse("--prop-epochs", "2", "--no-prop-skip-disambiguation", "--no-prop-drop-long-sets")
    assert (prop.epochs, prop.skip_disambiguation, prop.drop_long_sets) == (2, False, False)
