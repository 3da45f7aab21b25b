"""One-line errors for every command line of the kit: a bad input ends the command with one line on stderr that
names the file (and the record or line where there is one) and what to do, a non-zero exit code and no traceback.
``--debug`` on any command line shows the traceback instead.

Each entry point's ``main`` is wrapped with :func:`one_line_errors`; the message is the exception's own (the
readers' and builders' errors name their file and record), made one line, with a hint for the exceptions that
carry no advice of their own (a missing file, a damaged archive, an unexpected error). Ctrl-C is one line too,
saying whether rerunning the same command resumes (exit code 130, as a shell reports a SIGINT).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence

from wikiformer_kit.cli.commands import as_run

DEBUG_FLAG = "--debug"
DEBUG_HELP = "show the full traceback of an error instead of its one-line message"
INPUT_ERROR_EXIT = 2
"""Exit code of a bad input (an unreadable file, a bad value): argparse's code for a bad command line."""
UNEXPECTED_ERROR_EXIT = 1
INTERRUPTED_EXIT = 130
"""Exit code of a command stopped by Ctrl-C (SIGINT): 128 + the signal's number, as shells report it."""
RESUMES = "interrupted: rerun the same command to resume"
RESTARTS = "interrupted: this command does not resume; rerun it to start again"
MAX_MESSAGE = 400
"""Characters kept of a message (library errors can run to a screen); ``--debug`` shows all of it."""


class InputError(ValueError):
    """A bad input that the kit words itself: its message is the whole line (file, what is wrong, what to do)."""


def input_error_types() -> tuple[type[BaseException], ...]:
    """Exceptions that mean a bad input rather than a fault of the kit (exit code 2)."""
    import json
    import lzma
    import tarfile
    import zipfile

    types: list[type[BaseException]] = [
        OSError,
        ValueError,
        EOFError,
        UnicodeError,
        json.JSONDecodeError,
        lzma.LZMAError,
        tarfile.TarError,
        zipfile.BadZipFile,
    ]
    yaml = sys.modules.get("yaml")
    if yaml is not None:
        types.append(yaml.YAMLError)
    return tuple(types)


def one_line(error: BaseException) -> str:
    """The message of ``error`` as one line: the file it names first, what is wrong, and what to do."""
    if isinstance(error, InputError):
        return _flatten(str(error))
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        reason = error.strerror[0].lower() + error.strerror[1:]
        hint = {
            FileNotFoundError: "check the path",
            IsADirectoryError: "give a file, not a folder",
            NotADirectoryError: "give a folder, not a file",
            PermissionError: "check its permissions",
        }.get(type(error), "check the path and the file")
        return f"{error.filename}: {reason} ({hint})"
    text = _flatten(str(error)) or type(error).__name__
    if isinstance(error, KeyError):
        text = f"unknown {text}"
    if not isinstance(error, input_error_types() + (KeyError,)):
        return f"unexpected {type(error).__name__}: {text} (rerun with {DEBUG_FLAG} for the traceback)"
    return text


def _flatten(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    flat = " ".join(lines)
    return flat if len(flat) <= MAX_MESSAGE else flat[: MAX_MESSAGE - 1].rstrip() + "…"


def split_debug(argv: Sequence[str], valued_debug_is_the_commands: bool = False) -> tuple[list[str], bool]:
    """``argv`` without ``--debug`` (before a bare ``--``), and whether it was there. ``valued_debug_is_the_commands``:
    a ``--debug VALUE`` is the command's own option and stays (transformers' ``TrainingArguments`` has ``--debug
    underflow_overflow``); only a ``--debug`` without a value is taken."""
    argv = list(argv)
    end = argv.index("--") if "--" in argv else len(argv)

    def ours(i: int) -> bool:
        if i >= end or argv[i] != DEBUG_FLAG:
            return False
        valued = i + 1 < end and not argv[i + 1].startswith("-")
        return not (valued_debug_is_the_commands and valued)

    taken = [i for i in range(len(argv)) if ours(i)]
    return [a for i, a in enumerate(argv) if i not in taken], bool(taken)


def one_line_errors(
    main: Callable[..., int] | None = None,
    *,
    valued_debug_is_the_commands: bool = False,
    interrupted: str | Callable[[list[str]], str] = RESUMES,
) -> Callable[..., int]:
    """Wrap a command line's ``main(argv) -> exit code``: an exception becomes one line on stderr and an exit code
    (2 for a bad input, 1 for anything else), unless ``--debug`` is on the command line; usage errors (argparse's
    ``SystemExit``) pass through. Used bare (``@one_line_errors``) or with options: ``valued_debug_is_the_commands``
    (:func:`split_debug`) and ``interrupted``, the line printed on Ctrl-C (exit code 130): :data:`RESUMES` (the
    default), :data:`RESTARTS`, or a function of the command line (without ``--debug``) that words it, for commands
    where it depends on the subcommand or an option."""
    if main is None:
        return functools.partial(
            one_line_errors, valued_debug_is_the_commands=valued_debug_is_the_commands, interrupted=interrupted
        )

    @functools.wraps(main)
    def wrapper(argv: Sequence[str] | None = None, *args, **kwargs) -> int:
        argv, debug = split_debug(sys.argv[1:] if argv is None else argv, valued_debug_is_the_commands)
        try:
            return main(argv, *args, **kwargs)
        except SystemExit:
            raise
        except KeyboardInterrupt:
            if debug:
                raise
            line = interrupted(argv) if callable(interrupted) else interrupted
            end_child_processes()
            print(f"\n{line}", file=sys.stderr, flush=True)  # on a new line: Ctrl-C leaves ^C or a bar on this one
            return INTERRUPTED_EXIT
        except Exception as error:
            if debug:
                raise
            print(as_run(f"error: {one_line(error)}"), file=sys.stderr, flush=True)
            return INPUT_ERROR_EXIT if isinstance(error, input_error_types() + (KeyError,)) else UNEXPECTED_ERROR_EXIT

    return wrapper


def end_child_processes(grace: float = 5.0) -> None:
    """End the child processes of an interrupted command that Ctrl-C did not end: a process-pool manager's server
    ignores SIGINT, and one interrupted while it started is never shut down, so the command would wait for it at
    exit for ever. Only the multiprocessing modules already loaded are asked (``multiprocess`` is datatrove's)."""
    for name in ("multiprocessing", "multiprocess"):
        module = sys.modules.get(name)
        if module is None:
            continue
        children = module.active_children()
        for child in children:
            child.terminate()
        for child in children:
            child.join(timeout=grace)
