"""The repository speaks of the project only: no tracker numbers, no words about how or by whom it was made."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.conftest import PROJECT_ROOT

TEXT_SUFFIXES = (".py", ".md", ".yaml", ".yml", ".toml", ".txt", ".cfg", ".sh")
WORDS_ABOUT_ITS_MAKING = re.compile(
    r"\bissues? #?\d+|\bPR #?\d+|\bno GPU was\b|\b(was|were|is|are) lent\b|\blent to\b|\b(this|that|the) session\b"
    r"|\bsessions? (that|which) made\b|\banother helper\b|\bhelpers?' builds\b|\b(before|after) this change\b"
    r"|\bthis change\b|\bthis work\b|\bwas measured before\b",
    re.IGNORECASE,
)


def project_text_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    return [
        path
        for path in listed.stdout.splitlines()
        if path.endswith(TEXT_SUFFIXES)
        and not path.startswith("wikiformer_kit/data/samples/")
        and path != "tests/test_repository_text.py"
    ]


def test_no_words_about_how_the_repository_was_made():
    hits = []
    for path in project_text_files():
        file = PROJECT_ROOT / path
        if not file.is_file():
            continue
        for number, line in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if match := WORDS_ABOUT_ITS_MAKING.search(line):
                hits.append(f"{path}:{number}: {match.group(0)!r}")
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize(
    "line",
    ["The target (issue #13): PROP", "no GPU was lent to this work", "the code before this change benched", "(PR 12)"],
)
def test_the_pattern_catches_such_words(line):
    assert WORDS_ABOUT_ITS_MAKING.search(line)


@pytest.mark.parametrize("line", ['@pytest.fixture(scope="session")', "Helpers shared by the task samplers", "cost"])
def test_the_pattern_leaves_ordinary_words(line):
    assert not WORDS_ABOUT_ITS_MAKING.search(line)
