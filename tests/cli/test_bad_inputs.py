"""Each command line on the bad inputs users gave it: one line naming the file and what to do, a non-zero exit
code, no traceback (the property-based version over every command line is `test_fuzz.py`)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import PROJECT_ROOT, SAMPLES


def _one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, captured.err
    assert "Traceback" not in captured.err + captured.out
    return errors[0]


def test_wikir_on_a_missing_or_empty_input(tmp_path, capsys):
    from wikiformer_kit.dataset_scripts.wikir.__main__ import main

    missing = tmp_path / "enwiki.xml.bz2"
    assert main(["--input", str(missing), "--output-dir", str(tmp_path / "out")]) == 2
    assert f"{missing}: no such file or directory" in _one_error_line(capsys)
    empty = tmp_path / "empty.xml"
    empty.write_bytes(b"")
    assert main([str(empty), "--output-dir", str(tmp_path / "out")]) == 2
    assert f"{empty}: empty file" in _one_error_line(capsys)


def test_a_binary_file_named_bz2_is_called_damaged_not_empty(tmp_path, capsys):
    from wikiformer_kit.dataset_scripts.corpus.__main__ import main as corpus_main
    from wikiformer_kit.eval.cli import main as eval_main

    fake = tmp_path / "dump.xml.bz2"
    fake.write_bytes(os.urandom(20_000))
    assert eval_main(["first-stage", "--collection", str(fake), "--method", "bm25", "--output", "r.run"]) == 2
    line = _one_error_line(capsys)
    assert str(fake) in line and "not a valid bz2 file" in line and "empty" not in line
    assert corpus_main([str(fake), "--output-dir", str(tmp_path / "out")]) == 2
    assert "not a valid bz2 file" in _one_error_line(capsys)


def test_rerank_with_a_model_folder_that_is_not_there(tmp_path, capsys):
    from wikiformer_kit.eval.cli import main

    argv = ["rerank", "--model", "/nonexistent", "--collection", str(SAMPLES / "eval" / "dl20-mini")]
    assert main([*argv, "--output-dir", str(tmp_path), "--max-queries", "1"]) == 2
    assert "--model /nonexistent: no such checkpoint folder" in _one_error_line(capsys)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["configs/missing.yaml"], "configs/missing.yaml: no such config file (the kit's are in configs/: "),
        (
            [str(PROJECT_ROOT / "wikiformer_kit" / "configs" / "demo-cpu.yaml"), "--no_such_flag", "1"],
            "unknown argument(s) --no_such",
        ),
        (["--output_dir", "out", "--use_cpu", "true"], "no --train_datasets given"),
        (
            [str(PROJECT_ROOT / "wikiformer_kit" / "configs" / "demo-cpu.yaml")],
            "output/demo-tasks/wikiformer-srr: no such task dataset; build it first: python -m dataset_scripts.build "
            "--input data/samples/wikipedia/enwiki-sample.xml.bz2 --output-dir output/demo-tasks",
        ),
    ],
    ids=["missing-config", "unknown-flag", "no-datasets", "datasets-not-built"],
)
def test_train_on_bad_command_lines(argv, expected, tmp_path, monkeypatch, capsys):
    from wikiformer_kit.train import cli_main

    monkeypatch.chdir(tmp_path)  # the demo config's datasets are relative to the working folder: not built here
    assert cli_main(argv) == 2
    assert expected in _one_error_line(capsys)


def test_a_copied_config_with_a_relative_eval_dir_is_refused_before_anything_loads(tmp_path, monkeypatch, capsys):
    from wikiformer_kit.train import cli_main

    for task in ("srr", "rwi", "ati", "ltm"):
        (tmp_path / "tasks" / f"wikiformer-{task}").mkdir(parents=True)
    demo = (PROJECT_ROOT / "wikiformer_kit" / "configs" / "demo-cpu.yaml").read_text()
    config = tmp_path / "copy.yaml"
    config.write_text(demo.replace("output/demo-tasks/", "tasks/"))
    monkeypatch.chdir(tmp_path)
    assert cli_main(["copy.yaml"]) == 2
    assert _one_error_line(capsys) == (
        f"error: eval_dir data/samples/eval/dl20-mini: no such collection folder or file in {tmp_path} (from "
        "copy.yaml; a relative path there is read from the current folder); give its path, or run from the folder "
        "it is relative to"
    )


def test_offline_a_backbone_not_in_the_cache_is_refused_before_anything_loads(tmp_path, monkeypatch, capsys):
    from huggingface_hub import constants

    from wikiformer_kit.train import cli_main

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    folder = tmp_path / "srr"
    folder.mkdir()
    argv = ["--train_datasets", str(folder), "--output_dir", str(tmp_path / "out"), "--model_name_or_path"]
    assert cli_main([*argv, "google-bert/bert-base-uncased"]) == 2
    assert "model_name_or_path google-bert/bert-base-uncased: not in the cache and the Hub cannot be reached (" in (
        _one_error_line(capsys)
    )


def test_a_broken_config_names_the_file(tmp_path, capsys):
    from wikiformer_kit.train import cli_main

    config = tmp_path / "run.yaml"
    config.write_text("train_datasets: [a\nmax_steps: 3\n")
    assert cli_main([str(config)]) == 2
    assert f"{config}: not valid YAML" in _one_error_line(capsys)


def test_compare_names_an_empty_run_file(tmp_path, capsys):
    from wikiformer_kit.eval.cli import main

    run = tmp_path / "model.run"
    run.write_bytes(b"")
    assert main(["compare", str(run), "--collection", str(SAMPLES / "eval" / "dl20-mini")]) == 2
    assert f"{run}: the run ranks no document" in _one_error_line(capsys)


def test_wikir_on_a_folder_with_nothing_readable_leaves_no_output_folder(tmp_path, capsys):
    from wikiformer_kit.dataset_scripts.wikir.__main__ import main

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "blob.bin").write_bytes(b"\x00\x01\x02")
    out = tmp_path / "out"
    assert main([str(folder), "--output-dir", str(out)]) == 2
    assert f"{folder}: nothing readable: none of its 1 file (blob.bin)" in _one_error_line(capsys)
    assert not out.exists()
