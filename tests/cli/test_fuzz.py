"""Every command line of the kit as a user calls it (a fresh process), on bad inputs drawn by hypothesis: a missing
path, an empty or a binary file, a folder where a file belongs, a damaged copy of a real sample (a run file, a
training config), an unknown flag, a run whose document ids the collection does not know, and a training config
pointing at data that was never built.

The property: no traceback, ever; a bad input ends with a non-zero exit code and one ``error:`` line, the last on
stderr, naming the file given; a damaged or mismatched input either still works or fails the same way.

Starting a process costs seconds (the kit imports torch and datasets), so by default each of the 9 command lines
gets one case: ``CLI_FUZZ_EXAMPLES`` sets the cases per command line; ``CLI_FUZZ_EXAMPLES=30 FUZZ_RANDOM=1`` runs a
longer campaign.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import PROJECT_ROOT, SAMPLES
from tests.fuzzing import CASES, FUZZ_SETTINGS, damaged

CLI_FUZZ_EXAMPLES = int(os.environ.get("CLI_FUZZ_EXAMPLES", "1"))
DL20 = SAMPLES / "eval" / "dl20-mini"
DEMO_CONFIG = PROJECT_ROOT / "configs" / "demo-cpu.yaml"
PYTHON = [sys.executable]

COMMANDS = {
    "corpus": lambda given, out: [*PYTHON, "-m", "dataset_scripts.corpus", given, "--output-dir", out],
    "build": lambda given, out: [*PYTHON, "-m", "dataset_scripts.build", "--input", given, "--output-dir", out],
    "wikir": lambda given, out: [*PYTHON, "-m", "dataset_scripts.wikir", given, "--output_dir", out],
    "eval first-stage": lambda given, out: [
        *PYTHON, "-m", "eval", "first-stage", "--collection", given, "--method", "bm25", "--output", f"{out}/r.run",
    ],
    "eval rerank": lambda given, out: [
        *PYTHON, "-m", "eval", "rerank", "--model", given, "--collection", str(DL20), "--output-dir", out,
        "--max-queries", "1", "--k", "2",
    ],
    "eval compare": lambda given, out: [*PYTHON, "-m", "eval", "compare", given, "--collection", str(DL20)],
    "eval table": lambda given, out: [*PYTHON, "-m", "eval", "table", given],
    "train.py": lambda given, out: [*PYTHON, str(PROJECT_ROOT / "train.py"), given, "--output_dir", out],
    "release.py": lambda given, out: [
        *PYTHON, str(PROJECT_ROOT / "release.py"), "--config", given, "--output-dir", out, "--stages", "train",
    ],
}  # fmt: skip
"""How each command line is given the drawn input (``given``) and an output folder."""

SUFFIXES = (".xml.bz2", ".xml", ".run", ".json", ".yaml", ".tsv", "")
FILE_ONLY = {"eval compare", "eval table", "train.py", "release.py"}
"""Commands whose input must be a file: a folder there is a bad input too."""


@dataclass(frozen=True)
class Case:
    """One command line and the bad input it gets: ``kind``, the file's bytes (None: not created; b"<dir>": an
    empty folder), its name, and an extra argument (an unknown flag)."""

    command: str
    kind: str
    data: bytes | None
    name: str
    extra: tuple[str, ...] = ()

    def __repr__(self) -> str:
        size = "none" if self.data is None else f"{len(self.data)} bytes"
        return f"Case({self.command!r}, {self.kind!r}, {self.name!r}, {size}, extra={self.extra})"


def _mismatched_run(draw) -> bytes:
    """The real BM25 run with a drawn share of its document ids replaced by ids the collection does not have."""
    lines = (DL20 / "bm25.run").read_text(encoding="utf-8").splitlines()
    share = draw(st.sampled_from((1.0, 0.34)))
    changed = []
    for index, line in enumerate(lines):
        fields = line.split()
        if index % 100 < share * 100:
            fields[2] = f"unknown-{fields[2]}"
        changed.append(" ".join(fields))
    return ("\n".join(changed) + "\n").encode()


@st.composite
def cases(draw, command: str) -> Case:
    kinds = ["missing", "empty", "binary", "unknown-flag"]
    kinds += ["folder"] if command in FILE_ONLY else []
    kinds += ["damaged", "mismatched"] if command == "eval compare" else []
    kinds += ["damaged"] if command in ("train.py", "release.py") else []
    kind = draw(st.sampled_from(kinds))
    name = "input" + draw(st.sampled_from(SUFFIXES))
    if kind in ("missing", "unknown-flag"):
        extra = ("--no-such-" + draw(st.sampled_from(("flag", "option_x", "depth"))),) if kind == "unknown-flag" else ()
        return Case(command, kind, None, name, extra)
    if kind == "empty":
        return Case(command, kind, b"", name)
    if kind == "binary":
        return Case(command, kind, draw(st.binary(min_size=1, max_size=4096)), name)
    if kind == "folder":
        return Case(command, kind, b"<dir>", "input")
    if kind == "mismatched":
        return Case(command, kind, _mismatched_run(draw), "bm25-mismatched.run")
    if command == "eval compare":
        return Case(command, kind, draw(damaged((DL20 / "bm25.run").read_bytes())).data, "bm25.run")
    return Case(command, kind, draw(damaged(DEMO_CONFIG.read_bytes())).data, "run.yaml")


def _run(case: Case, folder: Path) -> subprocess.CompletedProcess:
    given = folder / case.name
    if case.data == b"<dir>":
        given.mkdir()
    elif case.data is not None:
        given.write_bytes(case.data)
    command = [*COMMANDS[case.command](str(given), str(folder / "out")), *case.extra]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "PYTHONPATH": str(PROJECT_ROOT)}
    # the working folder is empty: a config's relative dataset paths point at data never built
    return subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300
    )


@pytest.mark.parametrize("command", sorted(COMMANDS))
@settings(FUZZ_SETTINGS, max_examples=CLI_FUZZ_EXAMPLES)
@given(data=st.data())
def test_every_command_line_answers_a_bad_input_in_one_line(command: str, data):
    case = data.draw(cases(command), label="case")
    with tempfile.TemporaryDirectory() as folder:
        done = _run(case, Path(folder))
    CASES[f"cli:{case.command}"] += 1
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    if case.kind in ("damaged", "mismatched") and done.returncode == 0:
        return  # still readable (a cut after whole records): it worked, without a traceback
    assert done.returncode != 0, output[-3000:]
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    if case.command == "release.py" and not errors:
        assert last, output[-3000:]  # a stage's refusal, one line (release.py's own wording)
        return
    assert len(errors) == 1 and last == errors[0], done.stderr[-3000:]
    if case.kind == "unknown-flag" and "no such" not in last:
        assert case.extra[0] in last or "unrecognized arguments" in last, last
    elif case.kind not in ("unknown-flag", "mismatched"):
        assert case.name in last or "train_datasets" in last or "output/demo-tasks" in last, last
