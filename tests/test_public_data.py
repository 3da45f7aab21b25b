"""Every config, doc, benchmark and experiment names data a user can get: ``../shared/data`` (the development copy) never stands
alone, and every config parses and names no path that exists only there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.eval.splits import split_spec
from wikiformer_kit.training.kit_arguments import read_config

SHARED = re.compile(r"\.\./shared/data|\bparent\s*/\s*[\"']shared[\"']\s*/\s*[\"']data|[\"']shared/data")
"""A mention of the development copy: ``../shared/data``, or ``ROOT.parent / "shared" / "data"`` in code."""
PUBLIC_WAY = re.compile(r"irds:|hf:|https?://|data/samples/|where-the-collections-come-from|ir_datasets")
"""What names a way a user gets the data: an ir_datasets or Hub id, a URL, the vendored samples, the docs' list."""
CONFIGS = sorted((PROJECT_ROOT / "wikiformer_kit" / "configs").glob("*.yaml"))
PUBLIC_PREFIXES = ("irds:", "hf:")
MADE_BY_THE_KIT = ("output/", "data/")
"""Folders a config's own commands write (its header says how)."""


def markdown_units(text: str) -> list[str]:
    """Paragraphs and list items; each table row and each fenced code block is a unit of its own."""
    units, current, fence = [], [], None
    for line in text.splitlines():
        stripped = line.strip()
        if fence is not None:
            fence.append(line)
            if stripped.startswith("```"):
                units.append("\n".join(fence))
                fence = None
            continue
        if stripped.startswith("```") or not stripped or stripped.startswith("|") or re.match(r"[*-] ", stripped):
            units.append("\n".join(current))
            current = []
        if stripped.startswith("```"):
            fence = [line]
        elif stripped.startswith("|"):
            units.append(line)
        elif stripped:
            current.append(line)
    return [*units, "\n".join(current), *(["\n".join(fence)] if fence else [])]


def python_units(source: str) -> list[str]:
    """What a reader takes in at once: each paragraph of a docstring or other string statement, and each other
    simple statement (an ``add_argument`` call with its default and help, a constant) with its comments, those on
    its lines and those right above it."""
    lines = source.splitlines()
    units = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.stmt) or hasattr(node, "body"):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            units += re.split(r"\n\s*\n", node.value.value)
            continue
        first = node.lineno - 1
        while first > 0 and lines[first - 1].lstrip().startswith("#"):
            first -= 1
        units.append("\n".join(lines[first : node.end_lineno]))
    return units + re.findall(r"(?:^[ \t]*#.*\n?)+", source, re.M)


def yaml_units(text: str) -> list[str]:
    """Blocks of lines without a blank line between them."""
    return re.split(r"\n\s*\n", text)


def files_to_check() -> list[Path]:
    return [
        *CONFIGS,
        *sorted((PROJECT_ROOT / "docs").glob("*.md")),
        *sorted((PROJECT_ROOT / "wikiformer_kit" / "benchmarks").glob("*.py")),
        *sorted((PROJECT_ROOT / "experiments").glob("*.py")),
    ]


def lonely_mentions(path: Path) -> list[str]:
    """Units of ``path`` that mention ``../shared/data`` and name no public way."""
    text = path.read_text(encoding="utf-8")
    split = {".md": markdown_units, ".py": python_units, ".yaml": yaml_units}[path.suffix]
    return [unit for unit in split(text) if SHARED.search(unit) and not PUBLIC_WAY.search(unit)]


@pytest.mark.parametrize("path", files_to_check(), ids=lambda p: str(p.relative_to(PROJECT_ROOT)))
def test_the_development_copy_is_never_the_only_way(path):
    lonely = lonely_mentions(path)
    assert not lonely, "names ../shared/data without a public way (an irds:/hf: id, a URL):\n" + "\n---\n".join(lonely)


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        (".md", "Measured on `../shared/data/eval/npl` (93 queries)."),
        (".yaml", "eval_dir: ../shared/data/eval/cranfield#dev\n"),
        (".py", 'p.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "eval"), help="folder")\n'),
        (".py", '"""Usage:\n\n    bench.py [--data ../shared/data/wikipedia]\n\nOther text naming https://x.org."""\n'),
    ],
)
def test_the_check_finds_a_lonely_mention(tmp_path, suffix, text):
    path = tmp_path / f"file{suffix}"
    path.write_text(text, encoding="utf-8")
    assert lonely_mentions(path)


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        (".md", "| NPL | `irds:vaswani` | `../shared/data/eval/npl` in development |"),
        (".yaml", "# ../shared/data/wikipedia is a copy of https://github.com/x/y\neval_dir: irds:cranfield#dev\n"),
        (
            ".py",
            'p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"), help="irds: their ir_datasets ids")\n',
        ),
    ],
)
def test_the_check_accepts_a_mention_beside_a_public_way(tmp_path, suffix, text):
    path = tmp_path / f"file{suffix}"
    path.write_text(text, encoding="utf-8")
    assert not lonely_mentions(path)


def _collection_specs(config: dict) -> list[str]:
    return [spec for spec in [config.get("eval_dir"), *(config.get("test_dirs") or [])] if spec]


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_config_parses_and_names_data_a_user_can_get(path):
    config = read_config(path)
    assert config, f"{path.name}: empty config"
    values = [str(v) for v in config.values() if not isinstance(v, list)]
    values += [str(item) for v in config.values() if isinstance(v, list) for item in v]
    assert not [v for v in values if SHARED.search(v) or v.startswith("../")], f"{path.name}: a value outside the repo"
    header = path.read_text(encoding="utf-8")
    for spec in _collection_specs(config):
        base, _ = split_spec(spec)
        if base.startswith(PUBLIC_PREFIXES) or (PROJECT_ROOT / base).exists():
            continue
        assert base.startswith(MADE_BY_THE_KIT), f"{path.name}: {spec} is neither an id, nor in the repository"
        assert re.search(r"python (-m \S+|train\.py)", header), f"{path.name}: nothing says how {base} is made"


def test_the_paper_recipe_evaluates_on_public_ids():
    config = read_config(PROJECT_ROOT / "wikiformer_kit" / "configs" / "wikiformer-bert-base.yaml")
    specs = _collection_specs(config)
    assert specs and all(spec.startswith("irds:") for spec in specs), specs
