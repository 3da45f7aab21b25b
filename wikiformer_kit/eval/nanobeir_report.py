"""NanoBEIR figures as a file and a table: what ``python -m eval nanobeir`` writes, and what the card reads back.

``nanobeir.json`` holds the settings the figures were measured with and the figures under sentence-transformers'
keys (``NanoBEIR_R100_mean_ndcg@10``, ``NanoMSMARCO_R100_mrr@10``, ...), so that a model card, a checkpoint choice
or a reader compares them with the figures other re-ranker cards quote.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from wikiformer_kit.eval.nanobeir import split_name

FILE_NAME = "nanobeir.json"
METRICS = ("ndcg", "mrr", "map")
"""The figures per set, in the order tables show them (nDCG@k first: the cards' primary metric)."""


@dataclass
class NanoBEIRRecord:
    """NanoBEIR figures with the settings that produced them.

    Args:
        model: the checkpoint (folder or Hub id) that was evaluated.
        dataset_id: the NanoBEIR dataset (Hub id or local folder) the sets were read from.
        sets: the sets' short names (``msmarco``, ``nfcorpus``, ...), in the order evaluated.
        rerank_k, at_k, always_rerank_positives: as `eval.nanobeir.NanoBEIREvaluator`'s.
        results: the figures under sentence-transformers' keys.
        chosen_on: what was chosen on these queries (``"the checkpoint"``), empty when nothing was.
        settings: how pairs were scored (``max_length``, ``long_documents``, ...), as recorded.
    """

    model: str
    dataset_id: str
    sets: list[str]
    rerank_k: int
    at_k: int
    always_rerank_positives: bool
    results: dict[str, float]
    chosen_on: str = ""
    settings: dict = field(default_factory=dict)

    @property
    def aggregate(self) -> str:
        """The prefix of the means, e.g. ``NanoBEIR_R100_mean``."""
        return f"NanoBEIR_R{self.rerank_k}_mean"

    @property
    def primary_metric(self) -> str:
        """The key cards compare re-rankers by, e.g. ``NanoBEIR_R100_mean_ndcg@10``."""
        return f"{self.aggregate}_ndcg@{self.at_k}"

    def set_prefix(self, name: str) -> str:
        """The key prefix of one set, e.g. ``NanoMSMARCO_R100``."""
        return f"{split_name(name)}_R{self.rerank_k}"

    def metric_key(self, metric: str) -> str:
        """``ndcg`` -> ``ndcg@10``; ``map`` stays ``map``."""
        return metric if metric == "map" else f"{metric}@{self.at_k}"

    def rows(self) -> list[tuple[str, dict[str, float], dict[str, float]]]:
        """Per set, then the mean: ``(row label, re-ranked figures, BM25 order's figures)`` keyed by metric key."""
        prefixes = [(self.set_prefix(name), self.set_prefix(name)) for name in self.sets]
        prefixes.append((self.aggregate, f"mean of {len(self.sets)} sets"))
        rows = []
        for prefix, label in prefixes:
            keys = [self.metric_key(metric) for metric in METRICS]
            missing = [f"{prefix}_{key}" for key in keys if f"{prefix}_{key}" not in self.results]
            if missing:
                raise ValueError(f"NanoBEIR figures lack {', '.join(missing)}")
            rows.append(
                (
                    label,
                    {key: self.results[f"{prefix}_{key}"] for key in keys},
                    {key: self.results.get(f"{prefix}_base_{key}", float("nan")) for key in keys},
                )
            )
        return rows

    def markdown_table(self) -> str:
        """One row per set and one for the mean: the re-ranked figures, each with BM25's order's beside it."""
        keys = [self.metric_key(metric) for metric in METRICS]
        header = "| set | " + " | ".join(f"{key} | BM25 {key}" for key in keys) + " |"
        lines = [header, "|---|" + "---:|---:|" * len(keys)]
        for label, reranked, base in self.rows():
            cells = [f"{reranked[key]:.4f} | {base[key]:.4f}" for key in keys]
            bold = label.startswith("mean")
            label = f"**{label}**" if bold else label
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"

    def save(self, folder: str | Path) -> Path:
        """Write ``folder/nanobeir.json`` and return its path."""
        path = Path(folder) / FILE_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> NanoBEIRRecord:
        """Read a ``nanobeir.json`` (or the one in a folder); an error naming the file when it is not one."""
        path = Path(path)
        if path.is_dir():
            path = path / FILE_NAME
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
            return cls(**payload)
        except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as error:
            raise ValueError(
                f"{path}: not a {FILE_NAME} written by python -m eval nanobeir ({type(error).__name__}: {error})"
            ) from error
