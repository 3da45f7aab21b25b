"""The kit's commands as the user runs them: ``python -m eval`` in a checkout, ``wikiformer-eval`` installed."""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from wikiformer_kit.home import import_root

INSTALLED_COMMANDS = {
    "python -m dataset_scripts.corpus": "wikiformer-corpus",
    "python -m dataset_scripts.build": "wikiformer-build",
    "python -m dataset_scripts.wikir": "wikiformer-wikir",
    "python -m dataset_scripts.finetune": "wikiformer-finetune-data",
    "python -m eval": "wikiformer-eval",
    "python train.py": "wikiformer-train",
    "python release.py": "wikiformer-release",
}
"""Each command of the kit as a checkout runs it, and its installed name."""
_CHECKOUT_FORM = re.compile("|".join(re.escape(form) + r"(?!\w|\.\w)" for form in INSTALLED_COMMANDS))


def runs_installed() -> bool:
    """Whether the user runs the kit's installed commands: this process is one (``wikiformer-eval``), or the kit is
    not a checkout (an installed package, whose stages run as ``python -m wikiformer_kit...``)."""
    return Path(sys.argv[0]).name.startswith("wikiformer-") or not (import_root() / "release.py").is_file()


def as_run(text: str) -> str:
    """``text`` with every command of the kit named as the user runs it: ``wikiformer-build`` for ``python -m
    dataset_scripts.build`` when installed (:func:`runs_installed`), unchanged in a checkout."""
    return _CHECKOUT_FORM.sub(lambda match: INSTALLED_COMMANDS[match.group(0)], text) if runs_installed() else text


def public_command(command: str, argv: list[str], is_local: Callable[[str], bool] = lambda a: Path(a).exists()) -> str:
    """``command`` and its arguments for a card (:func:`as_run`), the local paths (``is_local``, of an argument
    holding a path separator) reduced to their last component: cards are published."""
    shown = [Path(a).name if os.sep in a and is_local(a) else a for a in argv]
    return as_run(f"{command} " + " ".join(shlex.quote(a) for a in shown))
