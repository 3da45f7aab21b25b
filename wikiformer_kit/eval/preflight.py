"""What ``python -m eval`` checks before anything slow (loading a collection, fetching data, scoring): the output
folder can be written, the model is a checkpoint folder or a Hub id that can be had, and a Hub dataset is cached or
reachable. Each refusal is one line naming the option, the path or id, and what to do.

A Hub id that is not in the cache is looked up with one request, without the retries the loaders make: a machine
without network learns it at once instead of after half a minute of retry warnings.
"""

from __future__ import annotations

import os
from pathlib import Path

from wikiformer_kit.cli.errors import InputError
from wikiformer_kit.cli.hub_access import hub_offline, hub_unreachable, in_hub_cache
from wikiformer_kit.cli.model_folder import check_model_folder

HUB_TIMEOUT = 10
"""Seconds the one look-up of an uncached Hub id waits."""
SHOWN = 6
"""Names listed in a message before ``and N more``."""


def check_output_folder(path: str | Path, option: str = "--output-dir") -> None:
    """Refuse an output folder that cannot be made or written: a file where it (or a folder above it) belongs, or
    a folder that is not writable.

    Raises:
        cli.InputError: one line naming the option and the path.
    """
    path = Path(path).expanduser()
    if path.exists() and not path.is_dir():
        raise InputError(f"{option} {path}: a file, not a folder; give a folder (it is made when missing)")
    _check_writable_above(path, option, path)


def check_output_file(path: str | Path, option: str = "--output") -> None:
    """Refuse an output file that cannot be written: a folder in its place, a read-only file, or a folder above it
    that cannot be made or written.

    Raises:
        cli.InputError: one line naming the option and the path.
    """
    path = Path(path).expanduser()
    if path.is_dir():
        raise InputError(f"{option} {path}: a folder, not a file; give the file to write")
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"{option} {path}: the file is not writable; give another path")
    if not path.exists():
        _check_writable_above(path.parent, option, path)


def _check_writable_above(folder: Path, option: str, given: Path) -> None:
    """Refuse ``given`` when the nearest existing path at or above ``folder`` is a file or not writable."""
    existing = _nearest_existing(folder)
    if not existing.is_dir():
        raise InputError(f"{option} {given}: {existing} is a file, so no folder can be made there; give another path")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"{option} {given}: {existing} is not writable; give a folder you can write to")


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path.cwd()


def looks_local(name: str) -> bool:
    """Whether ``name`` can only be a local path (absolute, ``./``, ``~``, or deeper than a Hub id's
    ``namespace/name``), not a Hub id."""
    return Path(name).is_absolute() or name.startswith((".", "~")) or name.strip("/").count("/") > 1


def check_model(name: str, option: str = "--model", *, tokenizer: bool = True) -> None:
    """Refuse a model that cannot be loaded, before anything else is: a local folder without what loading needs
    (`cli.model_folder.check_model_folder`), a path that is not there, a name that is no Hub id, or a Hub id that
    is neither cached nor on a reachable Hub.

    Raises:
        cli.InputError: one line naming the option, the model and what to do.
    """
    if Path(name).expanduser().exists():
        check_model_folder(name, option, tokenizer=tokenizer)
        return
    instead = "give a folder holding config.json and the weights (python release.py writes one to OUT/wikiformer)"
    if looks_local(name):
        raise InputError(f"{option} {name}: no such checkpoint folder; {instead} or a Hub id such as namespace/name")
    check_hub_repo(name, "model", f"{option} {name} (no such folder here)", instead)


def check_hub_repo(repo_id: str, repo_type: str, what: str, instead: str) -> None:
    """Refuse a Hub ``model`` or ``dataset`` id that is malformed, not cached while the Hub cannot be reached, or
    not on the Hub; a cached one, or one the Hub has, passes. The messages name it as ``what`` (``--model ID (no
    such folder here)``) and end with what to give ``instead``.

    Raises:
        cli.InputError: one line.
    """
    from huggingface_hub.errors import GatedRepoError, HFValidationError, RepositoryNotFoundError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError as error:
        raise InputError(f"{what}: not a Hub id either ({_first_sentence(error)}); {instead}") from None
    if in_hub_cache(repo_id, repo_type):
        return
    if hub_offline():
        raise InputError(hub_unreachable(what, RuntimeError("offline mode")))
    from huggingface_hub import HfApi

    api = HfApi()
    info = api.model_info if repo_type == "model" else api.dataset_info
    try:
        info(repo_id, timeout=HUB_TIMEOUT)
    except GatedRepoError:
        return  # it is there; the loader says how to get access
    except RepositoryNotFoundError as error:
        raise InputError(
            f"{what}: the Hub has no {repo_type} {repo_id} (or it is private: log in with `hf auth login`); {instead}"
        ) from error
    except Exception as error:
        message = hub_unreachable(what, error)
        if message:
            raise InputError(message) from error
        # any other answer (a server error, a proxy's page) is left to the loader, which retries and says more


def check_dataset_layout(
    dataset: str, subsets: tuple[str, ...], option: str, splits: list[str] | None = None, split_subset: str = ""
) -> None:
    """Refuse a dataset (a local folder, or a Hub id already found cached or reachable) that lacks one of
    ``subsets`` (its configs), or one of ``splits`` in ``split_subset``, naming what is missing and listing what it
    has (a long list cut short). What cannot be listed is left to the loader.

    Raises:
        cli.InputError: one line.
    """
    from datasets import get_dataset_config_names, get_dataset_split_names

    layout = f"a NanoBEIR-layout dataset has the subsets {', '.join(subsets)}, each split Nano{{Set}}"
    try:
        found = list(get_dataset_config_names(dataset))
    except Exception:  # the loader reads it again and names what is wrong
        return
    missing = [subset for subset in subsets if subset not in found]
    if missing and found != ["default"]:
        raise InputError(f"{option}: no subset {missing[0]!r} (it has {listed(found)}); {layout}")
    if not splits or missing:
        return
    try:
        have = list(get_dataset_split_names(dataset, split_subset))
    except Exception:
        return
    absent = [split for split in splits if split not in have]
    if absent:
        raise InputError(
            f"{option}: its subset {split_subset!r} has no split {absent[0]} (it has {listed(have)}); choose --sets "
            "among those"
        )


def listed(names: list[str], shown: int = SHOWN) -> str:
    """``a, b, c and 12 more``: at most ``shown`` names of a long list."""
    if not names:
        return "none"
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _first_sentence(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text.split(". ")[0][:200]
