"""What the command lines load: ``--help`` loads no data library, a corpus build no model library."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.dataset_scripts.corpus.sources import FORMAT_NAMES, format_modules

HEAVY = ("torch", "transformers", "sentence_transformers", "datasets", "datatrove", "pyarrow", "pandas", "numpy")


def loaded_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter holds after running ``code``."""
    probe = f"import sys\n{code}\nimport json; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=PROJECT_ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", ["dataset_scripts.corpus", "dataset_scripts.build"])
def test_help_loads_no_data_library(module):
    code = (
        "import contextlib, io, runpy\nsys.argv = ['x', '--help']\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        f"    runpy.run_module({module!r}, run_name='__main__')"
    )
    assert loaded_after(code) == []


def test_a_corpus_build_loads_no_model_library():
    loaded = loaded_after(
        "import wikiformer_kit.dataset_scripts.corpus.build, wikiformer_kit.dataset_scripts.corpus.steps"
    )
    assert not {"torch", "transformers", "sentence_transformers", "datasets"} & set(loaded)


def test_a_task_build_loads_neither_datasets_nor_pandas():
    """Every build process (every Slurm or Ray task too) imports the steps; ``datasets`` was seconds of it. Pandas
    comes later, with pyarrow's first conversion, in the processes that convert."""
    loaded = loaded_after(
        "import wikiformer_kit.dataset_scripts.build, wikiformer_kit.dataset_scripts.tasks.build, "
        "wikiformer_kit.dataset_scripts.tasks.article_tasks_step, wikiformer_kit.dataset_scripts.tasks.ltm_step, "
        "wikiformer_kit.dataset_scripts.tasks.see_also_join_step, wikiformer_kit.dataset_scripts.tasks.finalize_step, "
        "wikiformer_kit.dataset_scripts.tasks.baseline_steps"
    )
    assert not {"datasets", "pandas", "torch"} & set(loaded)


def test_the_format_names_are_the_modules_names():
    assert tuple(format_modules()) == FORMAT_NAMES
