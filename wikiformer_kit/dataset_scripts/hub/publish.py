"""Publish a built task dataset folder to the Hub with the real ``huggingface_hub`` client."""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import HfApi

from wikiformer_kit.dataset_scripts.hub.croissant import write_croissant
from wikiformer_kit.dataset_scripts.hub.viewer import declare_features, viewer_problems


def push_dataset_folder(
    folder: Path,
    repo_id: str,
    *,
    private: bool = False,
    token: str | None = None,
    commit_message: str | None = None,
    ignore_patterns: list[str] | None = None,
    delete_patterns: list[str] | None = None,
) -> str:
    """Create ``repo_id`` (a dataset repo, ``private`` if new) if needed and upload ``folder`` (a task dataset folder:
    ``README.md`` + ``data/*.parquet``, but ``ignore_patterns``) in one commit, its card first given every config's
    features and a ``croissant.json`` written beside it; returns the commit URL. A folder the dataset viewer could
    not show (:func:`.viewer.viewer_problems`) is refused before anything is sent. Files on the Hub that match
    ``delete_patterns`` (default: the Parquet shards) and are not in ``folder`` any more are deleted in the same
    commit, so a rebuilt dataset replaces the previous one instead of mixing with it. ``token``: default, the
    logged-in one or ``HF_TOKEN``."""
    declare_features(folder)
    write_croissant(folder, repo_id)
    problems = viewer_problems(folder)
    if problems:
        raise ValueError("the dataset viewer could not show it, so it is not pushed: " + "; ".join(problems))
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    commit = api.upload_folder(
        folder_path=str(folder),
        repo_id=repo_id,
        repo_type="dataset",
        commit_message=commit_message or f"Upload {Path(folder).name} built by the Wikiformer kit",
        ignore_patterns=ignore_patterns,
        delete_patterns=delete_patterns or ["data/*.parquet"],
    )
    return str(commit.commit_url if hasattr(commit, "commit_url") else commit)
