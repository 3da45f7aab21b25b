"""Each stage's commands are built from the options objects of the commands they run: they parse back into those
objects, and a renamed option of a command fails here, not minutes into a release."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.cli.options import options_from
from wikiformer_kit.dataset_scripts.build import parse_options as parse_build_options
from wikiformer_kit.dataset_scripts.wikir.__main__ import parse_options as parse_wikir_options
from wikiformer_kit.eval.cli import build_parser
from wikiformer_kit.release import stages
from wikiformer_kit.release.layout import TASKS
from wikiformer_kit.release.options import parse_args
from wikiformer_kit.release.selection import Selection
from wikiformer_kit.training.arguments import parse_arguments
from wikiformer_kit.training.kit_arguments import read_config


def every_invocation(tmp_path: Path, *argv: str) -> dict[str, list]:
    """The commands of every stage of a release with WIKIR selection, its test split and NanoBEIR."""
    options = parse_args(["--output-dir", str(tmp_path / "out"), "--nanobeir", "msmarco", *argv])
    out = Path(options.output_dir).resolve()
    config = read_config(Path(options.config))
    wikir_dir = out / "wikir"
    (wikir_dir / "test").mkdir(parents=True)
    (wikir_dir / "test" / "collection.json").write_text("{}", encoding="utf-8")
    dev = Selection(str(wikir_dir / "validation"), True)
    datasets = [out / "datasets" / f"wikiformer-{task}" for task in TASKS]
    return {
        "datasets": [stages.dataset_build(options, out, config)],
        "wikir": [stages.wikir_build(options, out)],
        "train": [stages.training(options, config, datasets, out / "train", dev, wikir_dir)],
        "eval": stages.evaluation(options, out / options.system, out / "eval", dev, wikir_dir),
    }


def parsed_by_its_command(invocation):
    """What the invocation's own command parses its command line into."""
    arguments = invocation.arguments()
    if invocation.module == stages.BUILD:
        return parse_build_options(arguments)
    if invocation.module == stages.WIKIR:
        return parse_wikir_options(arguments)
    namespace = build_parser().parse_args(arguments)
    return options_from(type(invocation.options), namespace)


def test_each_stage_command_parses_back_into_the_options_it_was_built_from(tmp_path):
    built = every_invocation(tmp_path, "--build-args", "--language de", "--wikir-args", "--test-size 7")
    assert [i.subcommand for i in built["eval"]] == [
        "tune-fusion", *(["rerank", "rerank", "compare"] * 3), "nanobeir",
    ]  # fmt: skip
    for stage in ("datasets", "wikir", "eval"):
        for invocation in built[stage]:
            assert parsed_by_its_command(invocation) == invocation.options, (stage, invocation.arguments())
    assert built["datasets"][0].options.language == "de" and built["wikir"][0].options.test_size == 7
    [train] = built["train"]
    model, data, training = parse_arguments([*train.arguments(), "--bf16", "false"])
    out = (tmp_path / "out").resolve()
    assert (data.eval_dir, training.output_dir, training.seed) == (
        str(out / "wikir" / "validation"),
        str(out / "train"),
        42,
    )
    assert data.train_datasets == [str(out / "datasets" / f"wikiformer-{task}") for task in TASKS]
    assert data.test_dirs == [str(out / "wikir" / "test")]


def test_a_setting_train_does_not_have_is_refused():
    from wikiformer_kit.training.arguments import train_arguments

    assert train_arguments("c.yaml", seed=1, test_dirs=["a", "b"]) == ["c.yaml", "--seed", "1", "--test_dirs", "a", "b"]
    with pytest.raises(TypeError, match="no argument eval_folder"):
        train_arguments("c.yaml", eval_folder="x")


def _declaring(folder: Path, field: str) -> Path:
    [path] = [p for p in sorted(folder.rglob("*.py")) if re.search(rf"^    {field}: ", p.read_text(), re.MULTILINE)]
    return path


@pytest.mark.parametrize(
    ("folder", "field"),
    [("eval/commands", "max_length"), ("training", "eval_dir")],
    ids=["an eval option", "a train argument"],
)
def test_renaming_an_option_of_a_command_fails_the_release_tests(tmp_path, folder, field):
    scratch = tmp_path / "kit"
    shutil.copytree(
        PROJECT_ROOT / "wikiformer_kit", scratch / "wikiformer_kit", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in (
        "tests/__init__.py",
        "tests/conftest.py",
        "tests/hub_server.py",
        "tests/release/__init__.py",
        "tests/release/test_stages.py",
    ):
        (scratch / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT_ROOT / name, scratch / name)
    shutil.copy(PROJECT_ROOT / "pyproject.toml", scratch / "pyproject.toml")
    declared = _declaring(scratch / "wikiformer_kit" / folder, field)
    declared.write_text(re.sub(rf"^    {field}: ", f"    {field}_renamed: ", declared.read_text(), flags=re.MULTILINE))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/release/test_stages.py",
            "-k",
            "parses_back",
        ],
        cwd=scratch,
        env={**os.environ, "PYTHONPATH": str(scratch)},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stdout[-2000:]
    assert "TypeError" in result.stdout and field in result.stdout


def test_the_commands_say_what_the_release_chose_in_the_order_the_cards_always_showed(tmp_path):
    options = parse_args(["--output-dir", str(tmp_path)])
    sample, out = options.input[0], tmp_path.resolve()
    assert stages.dataset_build(options, out, {}).arguments() == [
        "--input", sample, "--output-dir", str(out / "datasets"), "--tasks", "srr,rwi,ati,ltm", "--seed", "42",
        "--num-proc", "1",
    ]  # fmt: skip
    assert stages.wikir_build(options, out).arguments() == [
        "--input", sample, "--output-dir", str(out / "wikir"), "--num-proc", "1", "--min-links", "1",
        "--validation-size", "10", "--test-size", "5", "--bm25-k", "20",
    ]  # fmt: skip
    harp = parse_args(["--output-dir", str(tmp_path), "--system", "harp", "--harp-variant", "original"])
    assert stages.dataset_build(harp, out, {"model_name_or_path": "m"}).arguments()[-4:] == [
        "--harp-importance-model", "m", "--harp-variant", "original",
    ]  # fmt: skip
