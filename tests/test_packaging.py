"""The kit as a user installs it: a wheel with one top-level package, installed into a fresh virtual environment
outside the repository, whose commands run from any directory on the vendored samples.

The fresh environment gets the wheel alone (``--no-deps``); its dependencies are this interpreter's, reached through
a ``.pth`` file (they are what ``requirements.txt`` installs, and re-installing torch per test run would cost
minutes). Nothing of the repository is on its path: the tests run in a temporary folder with no ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import re
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import tomllib

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT, SAMPLES

DL20_MINI = SAMPLES / "eval" / "dl20-mini"
COMMANDS = ("corpus", "build", "wikir", "finetune-data", "eval", "train", "release")
COLLIDING_NAMES = {"cli", "data", "eval", "training", "dataset_scripts", "configs", "train", "release", "tests"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from the working tree (hatchling, no network)."""
    out = tmp_path_factory.mktemp("dist")
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(out)]
    result = subprocess.run([*command, str(PROJECT_ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    (built,) = out.glob("wikiformer_kit-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment outside the repository with the wheel installed; its ``bin`` folder."""
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "kit-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(wheel)]
    result = subprocess.run(install, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return root / "bin"


def run_installed(bin_dir: Path, command: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    """``command`` (a console command of the venv, or ``python``) in ``cwd`` with nothing of the repository on the
    path and a fresh Hugging Face cache."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        HF_HOME=str(cwd / "hf-home"),
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
    )
    executable = str(bin_dir / command[0])
    return subprocess.run([executable, *command[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def ok(result: subprocess.CompletedProcess) -> str:
    """The command's output, after checking that it succeeded."""
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return result.stdout + result.stderr


def test_the_requirements_install_every_dependency_of_the_package():
    """requirements.txt (the development environment of the README) holds everything the package's extras name."""
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    name = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")

    def normal(requirement: str) -> str:
        return re.sub(r"[-_.]+", "-", name.match(requirement).group(1)).lower()

    lines = (PROJECT_ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    installed = {normal(line) for line in lines if line.strip() and not line.lstrip().startswith(("#", "-"))}
    missing = {normal(d) for d in wanted} - installed - {"wikiformer-kit"}
    assert not missing, f"requirements.txt lacks {sorted(missing)}"


@pytest.mark.slow
def test_the_wheel_holds_one_top_level_package_and_the_kits_data(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert top == {"wikiformer_kit", wheel.name.split("-py3")[0] + ".dist-info"}
    assert not COLLIDING_NAMES & top
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
    for shipped in (
        "wikiformer_kit/modeling_wikiformer.py",
        "wikiformer_kit/eval/cli.py",
        "wikiformer_kit/configs/demo-cpu.yaml",
        "wikiformer_kit/model_card.md",
        "wikiformer_kit/data/mediawiki/languages.json",
        "wikiformer_kit/data/samples/wikipedia/enwiki-sample.xml.bz2",
        "wikiformer_kit/data/samples/eval/dl20-mini/qrels.txt",
        "wikiformer_kit/data/samples/README.md",  # the samples' sources and licences travel with them
    ):
        assert shipped in names
    assert not [name for name in names if name.startswith(("wikiformer_kit/tests/", "wikiformer_kit/bench/"))]
    entry_points = zipfile.ZipFile(wheel).read(f"{wheel.name.split('-py3')[0]}.dist-info/entry_points.txt").decode()
    assert {f"wikiformer-{command}" for command in COMMANDS} <= set(
        re.findall(r"^(wikiformer-[a-z-]+) =", entry_points, re.M)
    )


@pytest.mark.slow
def test_the_installed_kit_is_the_wheels_and_the_model_needs_no_kit_library(venv, tmp_path):
    probe = (
        "import json, sys\n"
        "import wikiformer_kit\n"
        "from wikiformer_kit.modeling_wikiformer import WikiformerConfig, WikiformerForRanking\n"
        "model = WikiformerForRanking(WikiformerConfig(vocab_size=99, hidden_size=32, num_hidden_layers=1,\n"
        "    num_attention_heads=2, intermediate_size=37))\n"
        "heavy = ['datasets', 'datatrove', 'ray', 'mwparserfromhell', 'ir_measures', 'bm25s', 'sentence_transformers']\n"
        "print(json.dumps({'file': wikiformer_kit.__file__, 'path': list(wikiformer_kit.__path__),\n"
        "    'loaded': [m for m in heavy if m in sys.modules]}))\n"
    )
    found = json.loads(ok(run_installed(venv, ["python", "-c", probe], tmp_path)).strip().splitlines()[-1])
    assert Path(found["file"]).is_relative_to(venv.parent)
    assert found["path"] == [str(Path(found["file"]).parent)]  # not the repository
    assert found["loaded"] == []


@pytest.mark.slow
def test_every_command_runs_from_outside_the_repository(venv, tmp_path):
    for command in COMMANDS:
        assert f"usage: wikiformer-{command}" in ok(run_installed(venv, [f"wikiformer-{command}", "--help"], tmp_path))
    assert "first-stage" in ok(run_installed(venv, ["python", "-m", "wikiformer_kit.eval", "--help"], tmp_path))

    corpus = ok(run_installed(venv, ["wikiformer-corpus", str(ENWIKI_SAMPLE), "--output-dir", "corpus"], tmp_path))
    assert "106 articles" in corpus or (tmp_path / "corpus").is_dir()
    built = ok(run_installed(venv, ["wikiformer-build", "--input", "corpus", "--output-dir", "tasks"], tmp_path))
    rows = {task: int(n.replace(",", "")) for task, n in re.findall(r"^(srr|rwi|ati|ltm): ([\d,]+) rows", built, re.M)}
    assert set(rows) == {"srr", "rwi", "ati", "ltm"} and rows["srr"] > 0, built

    wikir = ["wikiformer-wikir", "--input", "corpus", "--output-dir", "wikir", "--min-links", "1"]
    ok(run_installed(venv, [*wikir, "--validation-size", "10", "--test-size", "5", "--bm25-k", "20"], tmp_path))
    assert (tmp_path / "wikir" / "test" / "qrels.txt").is_file()

    first = ["wikiformer-eval", "first-stage", "--collection", str(DL20_MINI), "--method", "bm25", "--output", "r.run"]
    ok(run_installed(venv, first, tmp_path))
    assert len((tmp_path / "r.run").read_text(encoding="utf-8").splitlines()) > 0

    # the kit's own config by its name, its sample paths found in the installed kit; the datasets just built
    train = ["wikiformer-train", "configs/demo-cpu.yaml", "--train_datasets"]
    train += [str(tmp_path / "tasks" / f"wikiformer-{task}") for task in ("srr", "rwi", "ati", "ltm")]
    train += ["--output_dir", "model", "--max_steps", "1", "--eval_strategy", "no", "--save_strategy", "no"]
    train += ["--load_best_model_at_end", "false", "--eval_max_queries", "2"]
    ok(run_installed(venv, train, tmp_path))
    assert (tmp_path / "model" / "config.json").is_file()

    rerank = ["wikiformer-eval", "rerank", "--model", "model", "--collection", str(DL20_MINI), "--candidates", "bm25"]
    ok(run_installed(venv, [*rerank, "--k", "5", "--max-queries", "2", "--output-dir", "scored"], tmp_path))
    assert (tmp_path / "scored" / "metrics.json").is_file()

    release = ok(run_installed(venv, ["wikiformer-release", "--stages", "datasets", "--output-dir", "rel"], tmp_path))
    assert "[datasets] done" in release
    assert (tmp_path / "rel" / "datasets" / "wikiformer-srr").is_dir()
