"""An option is taken only by its whole name, and an unknown one names itself in the one-line usage error, with the
known option it is closest to, even where a required option is missing too."""

from __future__ import annotations

import pytest

from wikiformer_kit.cli import KitArgumentParser


def _parser() -> KitArgumentParser:
    parser = KitArgumentParser(prog="prog")
    parser.add_argument("--model", required=True)
    parser.add_argument("--output-dir")
    return parser


def _usage_error(parse, capsys) -> str:
    with pytest.raises(SystemExit) as exit_:
        parse()
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1, err
    return err.strip()


def test_a_mistyped_option_names_itself_not_the_missing_one(capsys):
    line = _usage_error(lambda: _parser().parse_args(["--modle", "m"]), capsys)
    assert line.startswith("error: unrecognized option --modle (did you mean --model?)"), line


def test_a_shortened_option_is_not_taken_for_the_whole_one(capsys):
    line = _usage_error(lambda: _parser().parse_args(["--model", "m", "--out", "o"]), capsys)
    assert line.startswith("error: unrecognized option --out (did you mean --output-dir?)"), line
    assert _parser().parse_args(["--model", "m", "--output_dir", "o"]).output_dir == "o"  # both spellings still


def test_an_unknown_option_far_from_any_is_named_alone(capsys):
    line = _usage_error(lambda: _parser().parse_args(["--model", "m", "--bogus", "--alpha=-0.5"]), capsys)
    assert line.startswith("error: unrecognized options --bogus, --alpha"), line


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["rerank", "--modle", "M", "--collection", "c", "--output-dir", "o"],
            "error: unrecognized option --modle (did you mean --model?); the following arguments are required: --model",
        ),
        (
            ["nanobeir", "M", "--output", "o"],
            "error: unrecognized option --output (did you mean --output-dir?)",
        ),
    ],
)
def test_eval_names_the_unknown_option(argv, expected, capsys):
    from wikiformer_kit.eval.cli import build_parser

    line = _usage_error(lambda: build_parser().parse_args(argv), capsys)
    assert line.startswith(expected), line
