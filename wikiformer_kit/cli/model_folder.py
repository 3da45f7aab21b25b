"""What a local model folder needs before a command loads it: ``config.json``, the weights and the tokenizer files.

transformers answers a folder that is not a model with advice to install sentencepiece or tiktoken, and a model
folder without tokenizer files with a tokenizer of five special tokens that turns every word into ``[UNK]``
(transformers 5): the scores are then computed, and meaningless. :func:`check_model_folder` names the folder and
what is missing in it instead. Hub ids and paths that do not exist are left to the loaders (and their own checks).
"""

from __future__ import annotations

from pathlib import Path

from wikiformer_kit.cli.errors import InputError

CONFIG_FILE = "config.json"
WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
"""Weights as transformers saves them (whole, or sharded with an index)."""
TOKENIZER_FILES = (
    "tokenizer.json",
    "vocab.txt",
    "vocab.json",
    "spiece.model",
    "sentencepiece.bpe.model",
    "tokenizer.model",
)
"""Files that hold a tokenizer's vocabulary (``tokenizer_config.json`` alone holds none)."""
SHOWN_FILES = 5
"""Files of a folder named in a message."""


def check_model_folder(
    name: str, option: str, *, model: bool = True, tokenizer: bool = True, tokenizer_hint: str = ""
) -> None:
    """Refuse (``cli.InputError``) a local folder ``name`` that lacks what loading it needs (``config.json`` and the
    weights where ``model``, the tokenizer files where ``tokenizer``), or a file given for it, naming the option (how
    the command line calls it: ``--model``, ``model_name_or_path``), the folder and the missing files;
    ``tokenizer_hint``: another way to give the tokenizer (``or set tokenizer_name``). A name that is not an existing
    path (a Hub id) is not checked."""
    path = Path(name).expanduser()
    if not path.exists():
        return
    where = f"{option} {name}"
    wanted = "the folder holding config.json, the weights (model.safetensors) and the tokenizer files"
    if not path.is_dir():
        raise InputError(f"{where}: a file, not a model folder; give {wanted}")
    files = sorted(p.name for p in path.iterdir() if not p.name.startswith("."))
    if model and CONFIG_FILE not in files:
        raise InputError(
            f"{where}: not a model folder: no {CONFIG_FILE} in it ({_contents(path, files)}); give {wanted}"
        )
    if model and not any(f in files for f in WEIGHT_FILES):
        raise InputError(
            f"{where}: no weights in the folder (looked for {', '.join(WEIGHT_FILES)}; it holds "
            f"{_listed(files)}); copy the weights beside its {CONFIG_FILE} or give the folder that has them"
        )
    if tokenizer and not any(f in files for f in TOKENIZER_FILES):
        hint = f" {tokenizer_hint}" if tokenizer_hint else ""
        raise InputError(
            f"{where}: no tokenizer files in the folder (looked for {', '.join(TOKENIZER_FILES[:3])}, ...; it holds "
            f"{_listed(files)}); save the tokenizer of the model it was trained from into it "
            f"(tokenizer.save_pretrained(FOLDER)){hint}"
        )


def _contents(path: Path, files: list[str]) -> str:
    """What a folder without config.json holds, pointing at the subfolders that are models."""
    models = sorted(p for p in path.iterdir() if p.is_dir() and (p / CONFIG_FILE).is_file())
    if models:
        shown = ", ".join(str(p) for p in models[:SHOWN_FILES])
        return f"its subfolder{'s' if len(models) > 1 else ''} {shown} {'are models' if len(models) > 1 else 'is one'}"
    return f"it holds {_listed(files)}"


def _listed(files: list[str]) -> str:
    if not files:
        return "nothing"
    more = f" and {len(files) - SHOWN_FILES} more" if len(files) > SHOWN_FILES else ""
    return ", ".join(files[:SHOWN_FILES]) + more
