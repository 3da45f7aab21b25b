"""A model's test figures as the Hub's evaluation results files: ``.eval_results/<name>.yaml`` in the model folder,
beside the card's model-index (which the Hub now shows as "Eval Results (legacy)").

Each file is a list of results, each one value on one task of one benchmark dataset (``dataset.id``, ``task_id``,
``value``, ``date``, ``notes``; the schema the kit checks them against is ``data/hub/eval-results.schema.json``). The
Hub links a result to its dataset, so a figure gets a file only where its collection is a dataset on the Hub:
NanoBEIR's sets under their dataset's id (a task per set), a collection given by its Hub id, or a WIKIR collection
published with the model. A file holds one measure of one system (the checkpoint, or its fusion with the first
stage): ``<benchmark>.yaml`` for nDCG@10, ``<benchmark>_<measure>.yaml`` for the others, ``..._fused`` for the
fusion; ``notes`` names the measure and the setting. Selection figures (queries anything was chosen on) never get
one. The values are the card's model-index values.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import yaml

from wikiformer_kit.eval.collections.resolve import split_spec
from wikiformer_kit.eval.nanobeir import split_name
from wikiformer_kit.eval.nanobeir_report import NanoBEIRRecord
from wikiformer_kit.home import kit_file

FOLDER = ".eval_results"
SCHEMA = kit_file("data/hub/eval-results.schema.json")
HUB_METRICS = {"nDCG@10": "ndcg_at_10", "RR@10": "mrr_at_10", "RR(rel=2)@10": "mrr_at_10", "nDCG@100": "ndcg_at_100"}
"""Measures (as ``eval`` names them) that the Hub gets, with their Hub metric types (model-index's too)."""
PRIMARY_METRIC = "ndcg_at_10"
"""The measure re-rankers are compared by: its file carries the benchmark's name alone."""


@dataclass(frozen=True)
class HubResult:
    """One value for the Hub: the benchmark dataset and task, the measure (a model-index metric type such as
    ``ndcg_at_10``), the system (``""`` for the checkpoint itself, ``"fused"`` for its fusion) and what the figure
    is (``notes``)."""

    dataset_id: str
    task_id: str
    metric: str
    value: float
    notes: str
    variant: str = ""

    def file_name(self) -> str:
        """The file this result goes in, by benchmark, measure and variant."""
        parts = [_slug(self.dataset_id.split("/")[-1])]
        if self.metric != PRIMARY_METRIC:
            parts.append(_slug(self.metric))
        if self.variant:
            parts.append(self.variant)
        return "_".join(parts) + ".yaml"

    def entry(self, when: str) -> dict:
        """The result as the file lists it."""
        return {
            "dataset": {"id": self.dataset_id, "task_id": self.task_id},
            "value": self.value,
            "date": when,
            "notes": self.notes,
        }


def is_hub_dataset_id(name: str) -> bool:
    """Whether ``name`` reads as a Hub dataset id (``owner/name``) and is not a local path."""
    return bool(re.fullmatch(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*", name)) and not Path(name).exists()


def hub_collection(spec: str) -> tuple[str, str] | None:
    """``(dataset id, split)`` of a collection named by its Hub id (``hf:ID[@split]``), else None."""
    fmt, dataset_id, split = split_spec(spec)
    return (dataset_id, split) if fmt == "hf" and is_hub_dataset_id(dataset_id) else None


def rerank_hub_results(spec: str, results: dict, systems: dict[str, str], setting: str) -> list[HubResult]:
    """``eval rerank``'s figures (``metrics.json``) of the systems named in ``systems`` (``{label: variant}``: the
    re-ranker ``""``, its fusion ``"fused"``) on a collection named by its Hub id; none for any other collection."""
    dataset = hub_collection(spec)
    if not dataset:
        return []
    return [
        HubResult(dataset[0], dataset[1], metric, round(float(value), 4), f"{measure}; {label}: {setting}", variant)
        for label, variant in systems.items()
        if label in results
        for measure, value in results[label]["means"].items()
        if (metric := HUB_METRICS.get(measure))
    ]


def write_eval_results(model_dir: str | Path, results: list[HubResult], when: str | None = None) -> list[Path]:
    """Write ``model_dir/.eval_results/`` (the files an earlier call wrote there are replaced), each file checked
    against the schema; returns the files written (none without results)."""
    folder = Path(model_dir) / FOLDER
    for stale in folder.glob("*.yaml") if folder.is_dir() else []:
        stale.unlink()
    files: dict[str, list[dict]] = {}
    for result in results:
        files.setdefault(result.file_name(), []).append(result.entry(when or date.today().isoformat()))
    written = []
    for name, entries in sorted(files.items()):
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        path.write_text(yaml.safe_dump(entries, sort_keys=False, allow_unicode=True), encoding="utf-8")
        check_eval_results(path)
        written.append(path)
    return written


def check_eval_results(path: str | Path) -> None:
    """Raise ValueError naming the file and each way it departs from the Hub's schema."""
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    problems = [
        f"{'/'.join(map(str, error.absolute_path)) or 'the file'}: {error.message}"
        for error in jsonschema.Draft202012Validator(schema).iter_errors(loaded)
    ]
    if problems:
        raise ValueError(f"{path}: not a Hub evaluation results file: " + "; ".join(problems))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "results"


def nanobeir_hub_results(record: NanoBEIRRecord) -> list[HubResult]:
    """NanoBEIR's per-set figures as the Hub's evaluation results, under the sets' dataset (a task per set, e.g.
    ``NanoMSMARCO``); none when the sets were read from a local folder or the checkpoint was chosen on them."""
    if record.chosen_on or not is_hub_dataset_id(record.dataset_id):
        return []
    setting = (
        f"the BM25 top {record.rerank_k} re-ranked"
        + (", every judged document added" if record.always_rerank_positives else "")
        + " (sentence-transformers' CrossEncoderNanoBEIREvaluator)"
    )
    return [
        HubResult(
            record.dataset_id,
            split_name(name),
            re.sub(r"@(\d+)$", r"_at_\1", key),
            round(float(record.results[f"{record.set_prefix(name)}_{key}"]), 4),
            f"{key} on {split_name(name)}: {setting}",
        )
        for name in record.sets
        for key in (record.metric_key("map"), record.metric_key("mrr"), record.metric_key("ndcg"))
    ]
