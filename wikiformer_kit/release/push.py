"""Publishing a release: the model and its task datasets (and WIKIR collection) on the Hub, with the real client."""

from __future__ import annotations

from pathlib import Path

from wikiformer_kit.dataset_scripts.tasks.registry import SYSTEMS
from wikiformer_kit.release.layout import published_wikir, task_dirs


def push(out: Path, model_dir: Path, namespace: str, private: bool, system: str = "wikiformer") -> None:
    """Create or update ``NS/<system>`` and ``NS/wikiformer-<task>`` with the real Hub client."""
    from huggingface_hub import HfApi

    from wikiformer_kit.dataset_scripts.hub.publish import push_dataset_folder

    api = HfApi()
    repo_id = f"{namespace}/{system}"
    api.create_repo(repo_id, private=private, exist_ok=True)
    api.upload_folder(folder_path=str(model_dir), repo_id=repo_id, commit_message=f"{system} release")
    print(f"[push] {model_dir} -> {repo_id}")
    for folder in task_dirs(out, SYSTEMS[system]):
        push_dataset_folder(folder, f"{namespace}/{folder.name}", private=private)
        print(f"[push] {folder} -> {namespace}/{folder.name}")
    wikir = published_wikir(out, namespace)
    if wikir:
        from wikiformer_kit.dataset_scripts.wikir.__main__ import push as push_wikir

        repo = wikir[0]
        push_wikir(out / "wikir", repo, private)
        print(f"[push] {out / 'wikir'} -> {repo}")
