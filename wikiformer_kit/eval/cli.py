"""``python -m eval``: first-stage retrieval, re-ranking, comparison with significance, and tables.

Each subcommand (first-stage, rerank, tune-fusion, compare, table, paper, nanobeir) is a module of `eval.commands`:
its options, declared once as a dataclass, and its ``run``; docs/evaluation.md shows them at work.
"""

from __future__ import annotations

import argparse
import logging
import sys

from wikiformer_kit.cli import KitArgumentParser, one_line_errors
from wikiformer_kit.cli.errors import RESTARTS, RESUMES, one_line
from wikiformer_kit.cli.options import add_options, options_from
from wikiformer_kit.eval.commands import compare, first_stage, nanobeir, paper, rerank, table, tune_fusion
from wikiformer_kit.eval.preflight import check_model, check_output_file, check_output_folder

SUBCOMMANDS = {
    "first-stage": (first_stage.FirstStageOptions, first_stage.run),
    "rerank": (rerank.RerankOptions, rerank.run),
    "tune-fusion": (tune_fusion.TuneFusionOptions, tune_fusion.run),
    "compare": (compare.CompareOptions, compare.run),
    "table": (table.TableOptions, table.run),
    "paper": (paper.PaperOptions, paper.run),
    "nanobeir": (nanobeir.NanoBEIROptions, nanobeir.run),
}
"""Each subcommand's options class (its docstring is the subcommand's line in ``--help``) and its ``run``."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m eval``."""
    parser = KitArgumentParser(prog="python -m eval", description=__doc__.split("\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (options_class, _) in SUBCOMMANDS.items():
        add_options(commands.add_parser(name, help=options_class.__doc__), options_class)
    return parser


def _check_before_loading(options) -> None:
    """What every subcommand checks before it loads anything: its output folder or file, and its model (a folder
    with config.json, weights and tokenizer, or a Hub id that is cached or on a reachable Hub)."""
    if getattr(options, "output_dir", None):
        check_output_folder(options.output_dir)
    if getattr(options, "output", None):
        check_output_file(options.output)
    if getattr(options, "model", None):
        check_model(options.model, "--model")
    dense = "dense" in (getattr(options, "method", None), getattr(options, "first_stage", None))
    if dense and options.dense_model:
        check_model(options.dense_model, "--dense-model")


def interrupted(argv: list[str]) -> str:
    """The Ctrl-C line: re-ranking resumes from its run file (unless ``--no-resume``); the other subcommands start
    again."""
    command = next((a for a in argv if not a.startswith("-")), None)  # the options before it take no value
    resumes = command in ("rerank", "tune-fusion", "paper") and not {"--no-resume", "--no_resume"} & set(argv)
    return RESUMES if resumes else RESTARTS


@one_line_errors(interrupted=interrupted)
def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    if not args.verbose:  # bm25s sets its own logger to DEBUG, which the root handler would print
        logging.getLogger("bm25s").setLevel(logging.WARNING)
    options_class, run = SUBCOMMANDS[args.command]
    try:
        options = options_from(options_class, args)
        _check_before_loading(options)
        return run(options)
    except (ValueError, FileNotFoundError) as error:  # bad input (CollectionFormatError is a ValueError)
        if args.verbose:
            raise
        print(f"error: {one_line(error)}", file=sys.stderr)  # one line, however long the library's message
        return 2


if __name__ == "__main__":
    sys.exit(main())
