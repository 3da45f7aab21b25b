"""What the Hub's dataset viewer needs of a dataset folder before it is pushed: Parquet data only, a ``configs``
block naming each config's files per split, every config's features declared in the card (``dataset_info``), and a
licence (CC BY-SA 4.0 with its attribution for text from Wikipedia)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from huggingface_hub import DatasetCard

WIKIPEDIA_LICENSE = "cc-by-sa-4.0"


@dataclass(frozen=True)
class Config:
    """One config of a dataset folder: its files per split and their Arrow schema."""

    name: str
    splits: dict[str, list[Path]]
    schema: pa.Schema | None
    patterns: tuple[str, ...] = ()


def card_of(folder: Path) -> DatasetCard:
    """The folder's card; a ValueError naming the folder without one."""
    path = Path(folder) / "README.md"
    if not path.is_file():
        raise ValueError(f"{folder}: no README.md (the dataset card the Hub reads)")
    return DatasetCard.load(path)


def configs_of(folder: Path, card: DatasetCard) -> list[Config]:
    """The configs the card's ``configs`` block names, each with its local files per split."""
    configs = []
    for entry in card.data.to_dict().get("configs") or []:
        splits: dict[str, list[Path]] = {}
        named: list[str] = []
        for files in entry.get("data_files") or []:
            patterns = [p for p in (files["path"] if isinstance(files.get("path"), list) else [files.get("path")]) if p]
            named += patterns
            splits[files.get("split", "train")] = sorted(p for pattern in patterns for p in folder.glob(pattern))
        parquet = [path for paths in splits.values() for path in paths if path.suffix == ".parquet"]
        schema = pq.read_schema(parquet[0]) if parquet else None
        configs.append(Config(entry.get("config_name", "default"), splits, schema, tuple(dict.fromkeys(named))))
    return configs


def viewer_problems(folder: str | Path) -> list[str]:
    """What keeps the dataset viewer from showing the folder's dataset, one line each (empty when nothing does)."""
    folder = Path(folder)
    card = card_of(folder)
    metadata = card.data.to_dict()
    configs = configs_of(folder, card)
    problems = [] if configs else ["the card has no configs block naming the data files"]
    declared = {
        info.get("config_name", "default") for info in _as_list(metadata.get("dataset_info")) if info.get("features")
    }
    for config in configs:
        if not config.splits:
            problems.append(f"config {config.name!r} names no data files per split")
        for split, paths in config.splits.items():
            if not paths:
                problems.append(f"config {config.name!r} split {split!r}: its pattern matches no file")
            problems += [
                f"config {config.name!r} split {split!r}: {p.name} is not Parquet"
                for p in paths
                if p.suffix != ".parquet"
            ]
        if config.name not in declared:
            problems.append(f"config {config.name!r}: its features are not declared (dataset_info)")
    license_id = metadata.get("license")
    if not license_id:
        problems.append("the card names no licence")
    elif license_id == WIKIPEDIA_LICENSE and "Wikipedia contributors" not in card.text:
        problems.append("CC BY-SA 4.0 text without its attribution (© Wikipedia contributors) in the card")
    return [f"{folder}: {problem}" for problem in problems]


def declare_features(folder: str | Path) -> None:
    """Write every config's features (from its Parquet schema) into the card's ``dataset_info``."""
    from datasets import Features

    folder = Path(folder)
    card = card_of(folder)
    infos = [
        {"config_name": config.name, "features": Features.from_arrow_schema(config.schema)._to_yaml_list()}
        for config in configs_of(folder, card)
        if config.schema is not None
    ]
    card.data.dataset_info = infos if len(infos) != 1 or infos[0]["config_name"] != "default" else infos[0]
    card.save(folder / "README.md")


def _as_list(value) -> list[dict]:
    if isinstance(value, dict):
        return [value]
    return [item for item in value or [] if isinstance(item, dict)]
