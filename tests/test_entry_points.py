"""The names users know at the top of a checkout run the package's commands, with nothing installed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT

ENTRY_POINTS = {
    "train.py": "wikiformer_kit.train",
    "release.py": "wikiformer_kit.release",
    "-m eval": "wikiformer_kit.eval",
    "-m dataset_scripts.corpus": "wikiformer_kit.dataset_scripts.corpus",
    "-m dataset_scripts.build": "wikiformer_kit.dataset_scripts.build",
    "-m dataset_scripts.wikir": "wikiformer_kit.dataset_scripts.wikir",
    "-m dataset_scripts.finetune": "wikiformer_kit.dataset_scripts.finetune",
}


def run_here(*args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, *args], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=str)
def test_each_entry_point_is_the_packages_command(entry):
    given = run_here(*entry.split(), "--help")
    package = run_here("-m", ENTRY_POINTS[entry], "--help")
    assert given.returncode == 0, given.stderr[-2000:]
    assert given.stdout == package.stdout and "usage: python " in given.stdout


def test_the_model_file_and_the_card_template_are_the_packages():
    probe = (
        "import modeling_wikiformer, wikiformer_kit.modeling_wikiformer as kit\n"
        "assert all(getattr(modeling_wikiformer, n) is getattr(kit, n) for n in kit.__all__)\n"
    )
    assert run_here("-c", probe).returncode == 0
    template = PROJECT_ROOT / "wikiformer_kit" / "model_card.md"
    assert (PROJECT_ROOT / "model_card.md").read_bytes() == template.read_bytes()
