"""One style for every command line of the kit.

- every ``--kebab-case`` option is also accepted as ``--snake_case`` (and the other way round), so
  ``--output-dir`` and ``--output_dir`` work in every command, as in ``train.py``;
- the inputs are given as positional arguments or with ``--input``, in every command that reads files;
- ``--help`` shows each option's default (where it has one worth showing) and ``--debug``;
- a bad command line is one line: ``error: ... (see PROG --help)``, exit code 2;
- an option is never abbreviated (``--out`` is not ``--output-dir``), and an unknown option names itself (with the
  known option it is closest to) even where a required option is missing too: ``--modle M`` is "unrecognized
  option --modle (did you mean --model?)", not "the following arguments are required: --model".
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.cli.errors import DEBUG_FLAG, DEBUG_HELP
from wikiformer_kit.home import find_kit_file

SPEAKS_OF_DEFAULT = re.compile(r"\bdefault[:\s]", re.IGNORECASE)
SPELLING_NOTE = "Options are accepted as --kebab-case or --snake_case (--output-dir or --output_dir)."


class KitHelpFormatter(argparse.HelpFormatter):
    """Help that ends each option's text with its default, unless the text already speaks of one or the default
    is nothing (None, False, an empty list)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        shown = default_text(action)
        if shown is None or SPEAKS_OF_DEFAULT.search(text):
            return text
        return f"{text} (default: {shown.replace('%', '%%')})".lstrip()


def default_text(action: argparse.Action) -> str | None:
    """How ``--help`` shows an option's default, or None when there is nothing to show."""
    default = action.default
    if default is None or default is False or default is argparse.SUPPRESS or default in ("", [], ()):
        return None
    if not action.option_strings and action.nargs not in ("?", "*"):
        return None
    if isinstance(default, (list, tuple)):
        return " ".join(str(item) for item in default)
    return str(default)


def twin_spelling(token: str, known: set[str] | dict[str, Any]) -> str:
    """``token`` with its option name respelled (``_`` ↔ ``-``) when only the other spelling is a known option."""
    if not token.startswith("--") or token == "--":
        return token
    name, equals, value = token.partition("=")
    if name in known:
        return token
    for twin in ("--" + name[2:].replace("_", "-"), "--" + name[2:].replace("-", "_")):
        if twin in known:
            return twin + equals + value
    return token


def one_line_usage_error(prog: str, message: str) -> None:
    """Print a command-line error as one line and exit 2 (argparse prints the whole usage first)."""
    print(as_run(f"error: {message} (see {prog} --help)"), file=sys.stderr)
    sys.exit(2)


def command_name(prog: str | None) -> str | None:
    """The command as the user typed it: ``wikiformer-eval`` when run as an installed command, else ``prog``."""
    return prog and as_run(prog)


class KitArgumentParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` in the kit's style (see the module docstring). With ``input_help``, the command takes its
    inputs (of ``input_type``, e.g. ``Path``) as ``INPUT ...`` or ``--input INPUT ...``, both gathered in
    ``args.input``; ``input_default``: the inputs when none is given (None: an input is required)."""

    def __init__(
        self, *args, input_help: str | None = None, input_type: Any = None, input_default: list | None = None, **kwargs
    ):
        kwargs.setdefault("formatter_class", KitHelpFormatter)
        kwargs.setdefault("epilog", SPELLING_NOTE)
        kwargs.setdefault("allow_abbrev", False)  # a mistyped option must not become another one, or a missing one
        if "prog" in kwargs:
            kwargs["prog"] = command_name(kwargs["prog"])
        super().__init__(*args, **kwargs)
        self._input_default = input_default
        self._takes_input = input_help is not None
        self._given: list[str] = []
        if self._takes_input:
            self.add_argument("input", nargs="*", action="extend", type=input_type, metavar="INPUT", help=input_help)
            self.add_argument(
                "--input", dest="input", nargs="+", action="extend", type=input_type, help="the same, as an option"
            )

    def _add_debug(self) -> None:
        # last in --help: added when the command's own options are all there
        if DEBUG_FLAG not in self._option_string_actions:
            self.add_argument(DEBUG_FLAG, action="store_true", help=DEBUG_HELP)

    def format_usage(self) -> str:
        self._add_debug()
        return as_run(super().format_usage())

    def format_help(self) -> str:
        self._add_debug()
        for action in self._actions:  # an option without help text still shows its default
            shown = default_text(action)
            if action.help is None and shown is not None:
                action.help = f"(default: {shown.replace('%', '%%')})"
        return as_run(super().format_help())

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None):
        self._add_debug()
        args = list(sys.argv[1:] if args is None else args)
        end = args.index("--") if "--" in args else len(args)
        known = self._option_string_actions
        args = [twin_spelling(a, known) for a in args[:end]] + args[end:]
        self._given = args[:end]
        namespace, extras = super().parse_known_args(args, namespace)
        if self._takes_input and not namespace.input:
            if self._input_default is None:
                self.error("no input given: name the files or folders to read (INPUT ... or --input INPUT ...)")
            namespace.input = list(self._input_default)
        if self._takes_input:  # the kit's vendored samples by the names its docs give, from any folder
            namespace.input = [
                given if Path(given).exists() else type(given)(find_kit_file(given) or given)
                for given in namespace.input
            ]
        return namespace, extras

    def error(self, message: str) -> None:
        known = self.known_options()
        unknown = self.unknown_options(known)
        if unknown and not message.startswith("unrecognized arguments"):
            # argparse checks required options before it reports unknown ones: the unknown one is the mistake
            message = f"{unknown_options_message(unknown, known)}; {message}"
        elif unknown:
            message = unknown_options_message(unknown, known)
        one_line_usage_error(self.prog, message)

    def known_options(self) -> set[str]:
        """The option strings of this parser and of the subcommand on the command line (of every subcommand when
        none is there)."""
        known = set(self._option_string_actions)
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = [action.choices[token] for token in self._given if token in action.choices][:1]
                for sub in chosen or action.choices.values():
                    known |= set(sub._option_string_actions)
        return known

    def unknown_options(self, known: set[str]) -> list[str]:
        """The options of the command line being parsed that are not in ``known``."""
        given = (token.partition("=")[0] for token in self._given)
        return [
            token
            for token in given
            if token.startswith("-") and token != "-" and not _is_number(token) and token not in known
        ]


def unknown_options_message(unknown: list[str], known: set[str] | dict[str, Any]) -> str:
    """``unrecognized option --modle (did you mean --model?)``: each unknown option with the known one it is
    closest to (the options it begins, for a shortened one), where there is one."""
    long_options = sorted(k for k in known if k.startswith("--"))
    parts = []
    for token in unknown:
        close = [k for k in long_options if k.startswith(token)][:3] or difflib.get_close_matches(
            token, long_options, n=1, cutoff=0.75
        )
        parts.append(token + (f" (did you mean {' or '.join(close)}?)" if close else ""))
    return f"unrecognized option{'s' if len(parts) > 1 else ''} " + ", ".join(parts)


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True
