"""The line a command prints for a push: where it went, or why it failed and what to rerun."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def push_and_report(folder: Path, repo_id: str, upload: Callable[[], str]) -> bool:
    """Run ``upload`` (the push of ``folder`` to ``repo_id``, returning its commit URL) and print its line; False,
    with what to rerun on stderr, when any client or network error stopped it (the local output stays)."""
    try:
        print(f"pushed {folder} -> {repo_id} ({upload()})")
        return True
    except Exception as error:
        print(f"push to {repo_id} failed: {error}; rerun the same command to push again", file=sys.stderr)
        return False
