"""The release's command line, declared once: the same options as before, checked before any stage runs."""

from __future__ import annotations

import argparse

import pytest

from wikiformer_kit.release.options import ReleaseOptions, parse_args

OPTIONS = [
    "-h", "--help", "input", "--input", "--system", "--output-dir", "--config", "--eval-collection",
    "--eval-candidates", "--eval-max-queries", "--eval-depth", "--depth", "--eval-max-length", "--nanobeir",
    "--nanobeir-data", "--max-steps", "--seed", "--num-proc", "--build-args", "--harp-variant", "--prop-variant",
    "--stopwords", "--namespace", "--push-to-hub", "--private", "--stages", "--wikir", "--wikir-args",
    "--select-on-wikir", "--select-on-eval-collection", "--redo", "--verbose", "--debug",
]  # fmt: skip
"""``python release.py --help``'s options, in order, as they were when each was still declared by hand."""


def test_the_release_lists_the_same_options_in_the_same_order(monkeypatch):
    parsers = []
    parse = argparse.ArgumentParser.parse_known_args

    def keep(self, *args, **kwargs):
        parsers.append(self)
        return parse(self, *args, **kwargs)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", keep)
    parse_args([])
    parsers[0].format_help()
    assert [s for action in parsers[0]._actions for s in (action.option_strings or [action.dest])] == OPTIONS


def test_the_stages_asked_for_and_wikir_whenever_training_chooses_on_it():
    assert parse_args(["--stages", "datasets"]).selected_stages() == ["datasets"]
    assert parse_args(["--stages", "datasets,train"]).selected_stages() == ["datasets", "train", "wikir"]
    assert parse_args(["--stages", "train", "--select-on-eval-collection"]).selected_stages() == ["train"]
    assert parse_args(["--stages", "card", "--wikir"]).selected_stages() == ["card", "wikir"]
    with pytest.raises(SystemExit, match="unknown stage"):
        parse_args(["--stages", "datasets,trian"]).selected_stages()


def test_wikir_is_asked_for_only_by_the_command_line():
    options = parse_args([])
    assert "wikir" in options.selected_stages() and not options.wikir_asked()  # for selection: it may fall back
    assert parse_args(["--wikir"]).wikir_asked() and parse_args(["--select-on-wikir"]).wikir_asked()
    assert parse_args(["--stages", "wikir,card"]).wikir_asked()


def test_the_sample_gets_the_relaxed_wikir_settings_and_another_input_the_defaults(tmp_path):
    from wikiformer_kit.release.options import SAMPLE_WIKIR_ARGS

    assert parse_args([]).wikir_extra_args == SAMPLE_WIKIR_ARGS
    dump = tmp_path / "dump.xml"
    dump.write_text("<mediawiki/>")
    assert parse_args([str(dump)]).wikir_extra_args == ""
    assert parse_args([str(dump), "--wikir-args", "--min-links 2"]).wikir_extra_args == "--min-links 2"
    assert isinstance(parse_args([]), ReleaseOptions)
