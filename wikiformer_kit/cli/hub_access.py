"""One line for "the Hub cannot be reached": offline mode (``HF_HUB_OFFLINE=1``) or no connection, told apart from a
file that does not exist, and naming what was asked for."""

from __future__ import annotations

import os
from pathlib import Path

from wikiformer_kit.cli.errors import InputError

CONNECTION_ERRORS = ("ConnectError", "ConnectTimeout", "ReadTimeout", "TimeoutException", "NetworkError", "ProxyError")
"""httpx's (and requests') exception names for a Hub that cannot be reached."""


def hub_offline() -> bool:
    """Whether huggingface_hub runs in offline mode (``HF_HUB_OFFLINE=1``, or ``TRANSFORMERS_OFFLINE``)."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE) or os.environ.get("TRANSFORMERS_OFFLINE", "").upper() in ("1", "TRUE", "YES")


def _causes(error: BaseException):
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def hub_unreachable(what: str, error: BaseException) -> str | None:
    """The one-line message when ``error`` means the Hub could not be reached for ``what`` (a URL, a repository
    id), else None."""
    from huggingface_hub import constants
    from huggingface_hub.errors import LocalEntryNotFoundError, OfflineModeIsEnabled

    chain = list(_causes(error))
    offline = hub_offline() or any(isinstance(e, OfflineModeIsEnabled) for e in chain)
    no_connection = any(type(e).__name__ in CONNECTION_ERRORS for e in chain)
    if not (offline or no_connection or any(isinstance(e, LocalEntryNotFoundError) for e in chain)):
        return None
    reason = "HF_HUB_OFFLINE is set" if offline else f"no connection to {constants.ENDPOINT}"
    return (
        f"{what} is not in the cache and the Hub cannot be reached ({reason}); connect to the network (or unset "
        "HF_HUB_OFFLINE) once to download it, or give a local copy"
    )


def check_cached_model(name: str, option: str) -> None:
    """In offline mode, refuse a Hub id whose files are not in the cache, before anything slow runs (a folder, the
    embedded model and any name online are left to the loaders).

    Raises:
        cli.InputError: offline, and ``name`` is neither a local path nor a cached repository.
    """
    if not name or name.startswith("embedded:") or Path(name).expanduser().exists() or not hub_offline():
        return
    if not in_hub_cache(name, "model"):
        raise InputError(
            f"{option} {name}: not in the cache and the Hub cannot be reached (HF_HUB_OFFLINE is set); unset "
            "HF_HUB_OFFLINE once to download it, or give a local model folder"
        )


def in_hub_cache(repo_id: str, repo_type: str) -> bool:
    """Whether the Hub cache holds a snapshot of ``repo_id`` (a ``model`` or ``dataset``), as the loaders find it
    in offline mode."""
    from huggingface_hub import constants

    folder = Path(constants.HF_HUB_CACHE) / f"{repo_type}s--{repo_id.replace('/', '--')}" / "snapshots"
    return folder.is_dir() and any(folder.iterdir())
