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
from tests.dataset_scripts.test_executors import digests, fake_slurm, run_jobs

DL20_MINI = SAMPLES / "eval" / "dl20-mini"
COMMANDS = ("corpus", "build", "wikir", "finetune-data", "eval", "train", "release")
CHECKOUT_FORMS = re.compile(r"python -m (?:eval|dataset_scripts)|python (?:train|release)\.py|\b[a-z_/]+/[a-z_]+\.py\b")
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


def install_into_fresh_venv(root: Path, *requirement: str) -> Path:
    """A fresh virtual environment in ``root`` outside the repository with ``requirement`` installed (pip's
    arguments, without dependencies); its ``bin`` folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    dependencies = "\n".join(site.getsitepackages()) + "\n"
    # named to be read before an editable install's own .pth, which imports the editables package
    Path(purelib, "_0_kit_dependencies.pth").write_text(dependencies, encoding="utf-8")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps"]
    result = subprocess.run([*install, "--no-build-isolation", *requirement], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return root / "bin"


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """The wheel installed in a fresh virtual environment; its ``bin`` folder."""
    return install_into_fresh_venv(tmp_path_factory.mktemp("venv"), str(wheel))


@pytest.fixture(scope="module")
def editable_venv(tmp_path_factory) -> Path:
    """The checkout installed as ``pip install -e .`` in a fresh virtual environment; its ``bin`` folder."""
    return install_into_fresh_venv(tmp_path_factory.mktemp("editable"), "--editable", str(PROJECT_ROOT))


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
        "wikiformer_kit/benchmarks/gpu_report.py",  # the benchmarks run installed too
    ):
        assert shipped in names
    assert not [name for name in names if name.startswith(("wikiformer_kit/tests/", "experiments/"))]
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


PROBE_NAMES = """
import importlib, json, sys, wikiformer_kit
def importable(name):
    try:
        importlib.import_module(name)
    except ModuleNotFoundError:
        return False
    return True
eval_file = importlib.import_module("wikiformer_kit.eval").__file__
names = [n for n in sys.argv[1:] if importable(n)]
print(json.dumps({"package": list(wikiformer_kit.__path__), "eval": eval_file, "importable": names}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("install", ["wheel", "editable"])
def test_an_install_exposes_the_package_and_nothing_else_of_the_checkout(install, request, tmp_path):
    bin_dir = request.getfixturevalue("venv" if install == "wheel" else "editable_venv")
    found = json.loads(
        ok(run_installed(bin_dir, ["python", "-c", PROBE_NAMES, *sorted(COLLIDING_NAMES | {"experiments"})], tmp_path))
        .strip()
        .splitlines()[-1]
    )
    assert found["importable"] == []  # eval, training, cli, data, tests, experiments, ... of the checkout
    (folder,) = found["package"]  # the package's modules sit in one folder
    expected = PROJECT_ROOT / "wikiformer_kit" if install == "editable" else bin_dir.parent
    assert Path(folder).is_relative_to(expected)
    assert Path(found["eval"]) == Path(folder) / "eval" / "__init__.py"
    assert "first-stage" in ok(run_installed(bin_dir, ["wikiformer-eval", "--help"], tmp_path))


@pytest.mark.slow
def test_every_command_runs_from_outside_the_repository(venv, tmp_path):
    for command in COMMANDS:
        shown = ok(run_installed(venv, [f"wikiformer-{command}", "--help"], tmp_path))
        assert f"usage: wikiformer-{command}" in shown
        assert not CHECKOUT_FORMS.findall(shown), f"wikiformer-{command} --help names checkout-only commands"
    assert "first-stage" in ok(run_installed(venv, ["python", "-m", "wikiformer_kit.eval", "--help"], tmp_path))

    corpus = ok(run_installed(venv, ["wikiformer-corpus", str(ENWIKI_SAMPLE), "--output-dir", "corpus"], tmp_path))
    assert "106 articles" in corpus or (tmp_path / "corpus").is_dir()
    built = ok(run_installed(venv, ["wikiformer-build", "--input", "corpus", "--output-dir", "tasks"], tmp_path))
    rows = {task: int(n.replace(",", "")) for task, n in re.findall(r"^(srr|rwi|ati|ltm): ([\d,]+) rows", built, re.M)}
    assert set(rows) == {"srr", "rwi", "ati", "ltm"} and rows["srr"] > 0, built

    wikir = ["wikiformer-wikir", "--input", "corpus", "--output-dir", "wikir", "--min-links", "1"]
    ok(run_installed(venv, [*wikir, "--validation-size", "10", "--test-size", "5", "--bm25-k", "20"], tmp_path))
    assert (tmp_path / "wikir" / "test" / "qrels.txt").is_file()

    # the vendored sample by the name the README gives it, from a folder that has no such path
    first = ["wikiformer-eval", "first-stage", "--collection", "data/samples/eval/dl20-mini", "--method", "bm25"]
    first += ["--output", "r.run"]
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
    card = (tmp_path / "rel" / "datasets" / "wikiformer-srr" / "README.md").read_text(encoding="utf-8")
    assert "wikiformer-build" in card and not CHECKOUT_FORMS.findall(card)


@pytest.mark.slow
def test_slurm_jobs_and_ray_workers_build_with_the_installed_kit(venv, tmp_path, monkeypatch):
    """Slurm's job scripts and Ray's workers import the installed package (nothing of the checkout on their path)
    and write what a local build of the installed kit writes."""
    pytest.importorskip("ray")
    build = ["wikiformer-build", "--input", str(ENWIKI_SAMPLE), "--limit", "40", "--articles-per-unit", "5"]
    build += ["--num-proc", "2", "--output-dir"]
    ok(run_installed(venv, [*build, "local"], tmp_path))
    ok(run_installed(venv, [*build, "ray", "--executor", "ray"], tmp_path, timeout=900))
    assert digests(tmp_path / "ray") == digests(tmp_path / "local")

    calls = tmp_path / "sbatch-calls.txt"
    fake_slurm(tmp_path / "bin", calls)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    slurm = [*build, "slurm", "--executor", "slurm", "--slurm-partition", "cpu"]
    for _ in ("corpus", "tasks"):  # the first command submits the corpus job, the rerun the task stages' jobs
        done = len(calls.read_text().splitlines()) if calls.exists() else 0
        ok(run_installed(venv, slurm, tmp_path))
        scripts = [
            (tmp_path / f"job-{n}.sh").read_text() for n in range(done + 1, len(calls.read_text().splitlines()) + 1)
        ]
        jobs = [script for script in scripts if "launch_pickled_pipeline" in script]
        assert jobs and all(f"export PYTHONPATH={venv.parent}" in job and str(PROJECT_ROOT) not in job for job in jobs)
        run_jobs(jobs, tmp_path)
    assert digests(tmp_path / "slurm") == digests(tmp_path / "local")
