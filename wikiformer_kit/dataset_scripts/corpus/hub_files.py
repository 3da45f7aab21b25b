"""Inputs on the Hugging Face Hub: ``hf://datasets/<owner>/<name>/<path>`` (a file, a folder or a glob, optionally
``<name>@<revision>``), as ``--input`` takes them: each file is listed through huggingface_hub's ``HfFileSystem``,
fetched once into the Hub cache (``hf_hub_download``) and then read as the same file on disk is
(docs/corpus-and-datasets.md, "From the Hub").
"""

from __future__ import annotations

from pathlib import Path

from wikiformer_kit.dataset_scripts.corpus.formats.base import CorpusFormatError

HUB_PREFIX = "hf://"
_GLOB_CHARACTERS = "*?["


def hub_url(item: str | Path) -> str | None:
    """``item`` as an ``hf://`` URL when it names a file on the Hub, else None (a ``Path`` made of such a URL has
    lost one of its slashes: ``hf:/datasets/...``)."""
    text = str(item)
    if not text.startswith("hf:/"):
        return None
    return HUB_PREFIX + text[len("hf:/") :].lstrip("/")


def hub_files(url: str) -> list[tuple[Path, bool]]:
    """The local copies of the files an ``hf://`` URL names, each with whether the URL named it directly (a folder
    or a glob lists its files, sorted, as a local folder is walked).

    Raises:
        CorpusFormatError: the repository, revision or file does not exist, or the Hub cannot be reached.
    """
    from huggingface_hub import HfFileSystem, hf_hub_download
    from huggingface_hub.errors import HfHubHTTPError

    from wikiformer_kit.cli.hub_access import hub_offline, hub_unreachable

    try:
        if hub_offline():  # no listing without the Hub: a file named directly may still be in the cache
            local = Path(hf_hub_download(**_file_of(url)))
            if not local.is_file():  # the cache holds a folder of that name: some of its files, maybe not all
                raise ValueError(f"{url}: a folder cannot be listed without the Hub")
            return [(local, True)]
        filesystem = HfFileSystem()
        found, named = _listing(filesystem, url)
        files = []
        for path in found:
            resolved = filesystem.resolve_path(path)
            if Path(resolved.path_in_repo).name.startswith("."):
                continue  # .gitattributes and other hidden files, as in a local folder
            local = hf_hub_download(
                resolved.repo_id, resolved.path_in_repo, repo_type=resolved.repo_type, revision=resolved.revision
            )
            files.append((Path(local), named))
    except ValueError as error:  # a folder or glob, offline
        if not hub_offline():
            raise
        raise CorpusFormatError(f"{error} (HF_HUB_OFFLINE is set): name a file, or unset HF_HUB_OFFLINE") from error
    except Exception as error:
        unreachable = hub_unreachable(url, error)
        if unreachable:
            raise CorpusFormatError(unreachable) from error
        if isinstance(error, (HfHubHTTPError, OSError)):
            raise CorpusFormatError(f"{url}: cannot read it from the Hub: {error}") from error
        raise
    if not files:
        raise CorpusFormatError(f"{url}: no such file or folder on the Hub (or none but hidden files in it)")
    return files


def _file_of(url: str) -> dict:
    """``hf_hub_download``'s arguments for a URL naming one file (``hf://datasets/owner/name[@revision]/path``)."""
    if any(character in url for character in _GLOB_CHARACTERS):
        raise ValueError(f"{url}: a glob cannot be listed without the Hub")
    parts = url.removeprefix(HUB_PREFIX).split("/")
    kinds = {"datasets": "dataset", "spaces": "space"}
    repo_type = kinds.get(parts[0])
    parts = parts[1:] if repo_type else parts
    if len(parts) < 3:
        raise ValueError(f"{url}: a folder cannot be listed without the Hub")
    name, _, revision = parts[1].partition("@")
    return {
        "repo_id": f"{parts[0]}/{name}",
        "filename": "/".join(parts[2:]),
        "repo_type": repo_type or "model",
        "revision": revision or None,
    }


def _listing(filesystem, url: str) -> tuple[list[str], bool]:
    """The files a URL names on the Hub, and whether it named a file directly (no file: an empty list)."""
    if any(character in url for character in _GLOB_CHARACTERS):
        return sorted(path for path in filesystem.glob(url) if filesystem.isfile(path)), False
    if filesystem.isdir(url):
        return sorted(filesystem.find(url)), False
    return ([url], True) if filesystem.isfile(url) else ([], True)
