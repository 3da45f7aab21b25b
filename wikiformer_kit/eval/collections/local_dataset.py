"""Load a config of a local dataset folder from exactly that folder's files.

``datasets.load_dataset(FOLDER)`` caches a folder whose README has a ``configs:`` block under the folder's name and
the configs' relative patterns: a second folder of the same name (another build, another copy of a BEIR set) would
be served the first one's cached rows. Here the README's config is only read to find its files; they are then
loaded by their absolute paths, which ``datasets`` caches by path and modification time.
"""

from __future__ import annotations

from pathlib import Path


def load_local_dataset(folder: str | Path, config: str | None = None, split: str | None = None):
    """``load_dataset(folder, config, split=split)`` of a local folder, from the files that folder holds now.

    Returns a ``Dataset`` (``split`` given) or a ``DatasetDict``; raises what ``datasets`` raises for a config or
    split the folder does not have.
    """
    from datasets import load_dataset, load_dataset_builder

    builder = load_dataset_builder(str(folder), config)
    files = {name: [str(path) for path in paths] for name, paths in (builder.config.data_files or {}).items()}
    module = type(builder).__module__.rsplit(".", 1)[-1]  # the packaged builder: parquet, json, csv, ...
    features = builder.info.features
    return load_dataset(module, data_files=files, split=split, **({"features": features} if features else {}))


def load_dataset_at(source: str | Path, config: str | None = None, split: str | None = None):
    """`load_local_dataset` of a local folder, else ``load_dataset(source, config, split=split)`` of a Hub id."""
    if Path(source).is_dir():
        return load_local_dataset(source, config, split)
    from datasets import load_dataset

    return load_dataset(str(source), config, split=split)
