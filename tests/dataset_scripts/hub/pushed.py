"""A pushed dataset as the Hub's viewer and a user meet it: loaded by id, config and split in a fresh process, its
card's features declared, its ``croissant.json`` valid for mlcroissant and reading the same rows."""

from __future__ import annotations

import json

import pytest

from tests.hub_server import run_python

CHECK = """
import json, logging
import mlcroissant as mlc
from datasets import load_dataset
from huggingface_hub import DatasetCard, snapshot_download

repo = {repo!r}
folder = snapshot_download(repo, repo_type="dataset")
card = DatasetCard.load(repo, repo_type="dataset").data.to_dict()
infos = card.get("dataset_info")
infos = [infos] if isinstance(infos, dict) else infos or []
rows = {{}}
for config in card["configs"]:
    for files in config["data_files"]:
        rows[config["config_name"] + "/" + files["split"]] = len(load_dataset(repo, config["config_name"], split=files["split"]))
records = {{}}
with_warnings = []
logging.getLogger("absl").addHandler(type("H", (logging.Handler,), {{"emit": lambda self, r: with_warnings.append(r.getMessage())}})())
dataset = mlc.Dataset(jsonld=folder + "/croissant.json")
for record_set in dataset.metadata.record_sets:
    records[record_set.name] = sum(1 for _ in dataset.records(record_set=record_set.name))
print(json.dumps({{"rows": rows, "records": records, "declared": sorted(i["config_name"] for i in infos),
                  "configs": sorted(c["config_name"] for c in card["configs"]), "license": card.get("license"),
                  "warnings": with_warnings}}))
"""


def check_pushed_dataset(repo_id: str, env: dict) -> dict:
    """Load ``repo_id`` from the Hub ``env`` points at as the viewer and a user would; return what was read."""
    pytest.importorskip("mlcroissant")
    seen = json.loads(run_python(CHECK.format(repo=repo_id), env).strip().splitlines()[-1])
    assert seen["declared"] == seen["configs"], seen  # every config's features in the card
    assert seen["license"], seen
    assert seen["warnings"] == [], seen["warnings"]
    for config, count in seen["records"].items():  # the Croissant record sets read the configs' rows
        assert count == sum(n for name, n in seen["rows"].items() if name.split("/")[0] == config), (config, seen)
    assert all(count > 0 for count in seen["rows"].values()), seen
    return seen
