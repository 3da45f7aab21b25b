"""Options declared once as dataclass fields: parsed into, and written back from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

from wikiformer_kit.cli import KitArgumentParser
from wikiformer_kit.cli.options import POSITIONAL, add_options, option, options_from, to_argv


@dataclass
class Example:
    runs: list[str] = option(help="run files", flags=(POSITIONAL,), nargs="+")
    model: str = option(help="a model", required=True)
    k: int = option(100, help="candidates")
    fusion: Literal["none", "zscore"] | None = option(None, help="fusion")
    save: bool = option(False, help="save")
    alphas: list[float] = option([0.1, 0.2], help="weights")
    sets: list[str] | None = option(None, help="sets", nargs="*", metavar="SET")
    output_dir: Path | None = option(help="output", flags=("--output-dir", "--out"))


def parser() -> KitArgumentParser:
    built = KitArgumentParser(prog="example")
    add_options(built, Example)
    return built


def test_a_command_line_parses_into_its_options_and_back():
    argv = ["a", "b", "--model", "M", "--fusion", "zscore", "--alphas", "0.5", "--sets", "--output_dir", "z"]
    options = options_from(Example, parser().parse_args(argv))
    assert options == Example(runs=["a", "b"], model="M", fusion="zscore", alphas=[0.5], sets=[], output_dir=Path("z"))
    assert options_from(Example, parser().parse_args(to_argv(options))) == options


def test_defaults_are_not_written_and_lists_are_not_shared():
    options = Example(runs=["r"], model="M")
    assert to_argv(options) == ["r", "--model", "M"]
    options.alphas.append(1.0)
    assert Example(runs=["r"], model="M").alphas == [0.1, 0.2]


def test_choices_come_from_the_annotation_and_are_checked_by_the_parser(capsys):
    with pytest.raises(SystemExit) as stopped:
        parser().parse_args(["r", "--model", "M", "--fusion", "rrf"])
    assert stopped.value.code == 2
    assert "invalid choice: 'rrf'" in capsys.readouterr().err
    assert "--fusion {none,zscore}" in parser().format_help()


def test_a_renamed_option_fails_where_it_is_still_built():
    with pytest.raises(TypeError):
        Example(runs=["r"], model="M", depth=10)


def test_a_shown_command_line_puts_the_chosen_options_first_and_may_say_defaults():
    options = Example(runs=["r"], model="M", k=7, fusion="zscore")
    assert to_argv(options, first=("fusion", "k")) == ["r", "--fusion", "zscore", "--k", "7", "--model", "M"]
    assert to_argv(Example(runs=["r"], model="M"), first=("k",), always=("k",)) == ["r", "--k", "100", "--model", "M"]
