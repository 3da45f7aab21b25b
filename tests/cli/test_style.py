"""One CLI style: both spellings of every option, inputs positional or --input, defaults in --help, one-line usage
errors; each command line of the kit follows it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT
from wikiformer_kit.cli import KitArgumentParser
from wikiformer_kit.cli.style import twin_spelling


def _parser() -> KitArgumentParser:
    parser = KitArgumentParser(prog="prog", input_help="files", input_type=Path)
    parser.add_argument("--output-dir", required=True, help="where")
    parser.add_argument("--num-proc", type=int, default=1, help="processes")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--note", default=None, help="a note (default: none)")
    return parser


def test_both_spellings_of_an_option():
    known = {"--output-dir": None, "--eval_dir": None}
    assert twin_spelling("--output_dir", known) == "--output-dir"
    assert twin_spelling("--eval-dir=x", known) == "--eval_dir=x"
    assert twin_spelling("--other_flag", known) == "--other_flag"
    args = _parser().parse_args(["a", "--output_dir", "o", "--num_proc=3"])
    assert (args.input, args.output_dir, args.num_proc) == ([Path("a")], "o", 3)


def test_inputs_positional_or_as_an_option():
    assert _parser().parse_args(["--input", "a", "b", "--output-dir", "o"]).input == [Path("a"), Path("b")]
    assert _parser().parse_args(["a", "--input", "b", "--output-dir", "o"]).input == [Path("a"), Path("b")]


def test_help_shows_defaults_once(capsys):
    text = " ".join(_parser().format_help().split())
    assert "processes (default: 1)" in text and "(default: 42)" in text
    assert "a note (default: none)" in text and "(default: None)" not in text
    assert "--debug" in text and "--snake_case" in text


@pytest.mark.parametrize("argv", [["--output-dir", "o"], ["a", "--output-dir", "o", "--bogus"], ["a"]])
def test_usage_errors_are_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        _parser().parse_args(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and err.startswith("error: ") and "prog --help" in err


def test_every_command_line_takes_both_spellings_and_both_input_forms():
    from wikiformer_kit.dataset_scripts.build import parse_options as build_args
    from wikiformer_kit.dataset_scripts.corpus.__main__ import parse_options as corpus_args
    from wikiformer_kit.dataset_scripts.wikir.__main__ import parse_options as wikir_args
    from wikiformer_kit.eval.cli import build_parser
    from wikiformer_kit.release.options import parse_args as release_args

    dump = str(ENWIKI_SAMPLE)
    assert corpus_args(["--input", dump, "--output_dir", "o"]).input == [dump]
    assert build_args([dump, "--output_dir", "o", "--num_proc", "2"]).input == [Path(dump)]
    assert wikir_args([dump, "--output_dir", "o", "--min_links", "1"]).min_links == 1
    eval_args = build_parser().parse_args(["rerank", "--model", "m", "--collection", "c", "--output_dir", "o"])
    assert eval_args.output_dir == "o"
    release = release_args([dump, "--output_dir", "o", "--depth", "7"])
    assert (release.input, release.output_dir, release.eval_depth) == ([dump], "o", 7)
    assert release_args(["--eval_depth", "5"]).eval_depth == 5


def test_train_help_shows_the_config_and_the_kits_options_without_importing_torch():
    code = (
        "import sys; from wikiformer_kit import train; train.print_help(full=False); "
        "assert 'torch' not in sys.modules, 'train.py --help imported torch'"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    text = " ".join(done.stdout.split())
    assert "usage: python train.py [CONFIG.yaml]" in text
    for option in ("--pair_chunks", "--nonfinite_policy", "--loss", "--train_datasets", "--help-all"):
        assert option in text
    assert "length-sorted forward passes" in text and "softmax_ce (the paper" in text
    assert "(default: None)" not in text and "(default: all) (default" not in text
