"""The kit's structure as a reader, an IDE or a type checker sees it: imports read from the files, nothing run.

Every ``wikiformer_kit`` import of the package and of the entry points at the repository's top level names a module
that is a file (or a package folder) on disk; the imports between the package's files form no circle, whether at the
top of a file or inside a function; and they run one way, from the commands down to the model file.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "wikiformer_kit"
ENTRY_POINTS = ["train.py", "release.py", "modeling_wikiformer.py", "eval", "dataset_scripts"]

LAYERS = [
    ("wikiformer_kit.home", "wikiformer_kit.cli", "wikiformer_kit.modeling_wikiformer"),
    (
        "wikiformer_kit.eval",
        "wikiformer_kit.dataset_scripts.atomic_files",
        "wikiformer_kit.dataset_scripts.folder_lock",
        "wikiformer_kit.dataset_scripts.fingerprint",
        "wikiformer_kit.dataset_scripts.file_states",
        "wikiformer_kit.dataset_scripts.build_params",
        "wikiformer_kit.dataset_scripts.stage_console",
        "wikiformer_kit.dataset_scripts.local_executor",
        "wikiformer_kit.dataset_scripts.executors",
        "wikiformer_kit.dataset_scripts.hub",
    ),
    ("wikiformer_kit.dataset_scripts.corpus",),
    ("wikiformer_kit.dataset_scripts.tasks", "wikiformer_kit.model_card"),
    (
        "wikiformer_kit.dataset_scripts.wikir",
        "wikiformer_kit.dataset_scripts.finetune",
        "wikiformer_kit.dataset_scripts.build",
        "wikiformer_kit.dataset_scripts.build_plan",
    ),
    ("wikiformer_kit.training",),
    ("wikiformer_kit.train",),
    ("wikiformer_kit.release",),
    ("wikiformer_kit.benchmarks",),  # may import anything in the package; nothing in it imports them
]
"""The package's modules from the lowest layer to the highest: a module imports its own layer and those below."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_files() -> dict[str, Path]:
    """Every module of the package by its dotted name (the vendored data's generator scripts are not modules)."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if not p.is_relative_to(PACKAGE / "data")}


def kit_imports(path: Path, modules: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for each ``wikiformer_kit`` module a file imports, anywhere in it; ``from M import N`` names
    the module ``M.N`` when that is a module, else ``M``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [
                f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module for a in node.names
            ]
        else:
            continue
        for name in names:
            if name == "wikiformer_kit" or name.startswith("wikiformer_kit."):
                yield node.lineno, name


def layer_of(module: str) -> int:
    if module == "wikiformer_kit":  # the package's __init__: its version, nothing else
        return 0
    for index, prefixes in enumerate(LAYERS):
        if any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes):
            return index
    raise AssertionError(f"{module} is in no layer of LAYERS")


def import_graph() -> dict[str, set[str]]:
    modules = package_files()
    return {name: {m for _, m in kit_imports(path, modules) if m != name} for name, path in modules.items()}


def entry_point_files() -> list[Path]:
    return [
        p
        for entry in ENTRY_POINTS
        for p in ([PROJECT_ROOT / entry] if entry.endswith(".py") else sorted((PROJECT_ROOT / entry).rglob("*.py")))
    ]


@pytest.mark.parametrize(
    "path", [*package_files().values(), *entry_point_files()], ids=lambda p: str(p.relative_to(PROJECT_ROOT))
)
def test_every_kit_import_resolves_to_a_file(path):
    modules = package_files()
    unresolved = [f"line {line}: {name}" for line, name in kit_imports(path, modules) if name not in modules]
    assert not unresolved, f"{path.relative_to(PROJECT_ROOT)} imports modules with no file: {unresolved}"


def test_the_package_is_folders_and_files_and_nothing_else():
    source = (PACKAGE / "__init__.py").read_text(encoding="utf-8")
    assert "__path__" not in source and "sys.path" not in source
    assert (PACKAGE / "eval" / "cli.py").is_file() and (PACKAGE / "dataset_scripts" / "corpus" / "build.py").is_file()


def test_the_imports_form_no_circle():
    graph = import_graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    assert not circles, f"import circles: {circles}"


def test_imports_run_from_the_commands_down_to_the_model():
    upward = [
        f"{source} -> {target}"
        for source, targets in import_graph().items()
        for target in targets
        if layer_of(target) > layer_of(source)
    ]
    assert not upward, f"imports from a lower layer to a higher one: {upward}"


def test_the_model_file_imports_nothing_of_the_kit():
    """It is copied alone into every model repository as remote code."""
    modules = package_files()
    assert not list(kit_imports(modules["wikiformer_kit.modeling_wikiformer"], modules))
