"""The Hub's evaluation results files: written from the card's test figures only, for datasets on the Hub, each file
valid against the schema the kit keeps (and the schema refusing what the Hub's format does not allow)."""

from __future__ import annotations

import pytest
import yaml

from wikiformer_kit.eval.hub_results import (
    FOLDER,
    HubResult,
    check_eval_results,
    rerank_hub_results,
    write_eval_results,
)
from wikiformer_kit.eval.nanobeir_report import NanoBEIRRecord
from wikiformer_kit.model_card import CardInputs, Evaluation, hub_results, write_model_card

SYSTEMS = {
    "bm25": {"nDCG@10": 0.5, "RR@10": 0.6},
    "wikiformer": {"nDCG@10": 0.61234, "RR@10": 0.7},
    "wikiformer+bm25": {"nDCG@10": 0.65, "RR@10": 0.75},
}


def evaluation(**kwargs) -> Evaluation:
    options = {"num_queries": 5, "first_stage": "bm25", "depth": 20, "max_length": 256}
    options |= {"fused_system": "wikiformer+bm25", "fusion": {"method": "zscore", "alpha": 0.5}}
    return Evaluation("wikir-en-test", "wikir-en-test", SYSTEMS, "wikiformer", **options | kwargs)


def files_of(folder) -> dict[str, list[dict]]:
    return {p.name: yaml.safe_load(p.read_text()) for p in sorted((folder / FOLDER).glob("*.yaml"))}


def test_test_figures_of_a_hub_dataset_are_written_with_the_cards_values(tmp_path):
    inputs = CardInputs("ns/wikiformer", "base", evaluation=evaluation(hub_dataset=("ns/wikir-en", "test")))
    card = write_model_card(tmp_path, inputs).read_text()
    files = files_of(tmp_path)
    assert sorted(files) == [
        "wikir_en.yaml",
        "wikir_en_fused.yaml",
        "wikir_en_mrr_at_10.yaml",
        "wikir_en_mrr_at_10_fused.yaml",
    ]
    for name, entries in files.items():
        check_eval_results(tmp_path / FOLDER / name)
        assert [e["dataset"] for e in entries] == [{"id": "ns/wikir-en", "task_id": "test"}]
    assert files["wikir_en.yaml"][0]["value"] == 0.6123 and "nDCG@10" in files["wikir_en.yaml"][0]["notes"]
    assert files["wikir_en_mrr_at_10_fused.yaml"][0]["value"] == 0.75
    # the same values as the card's model-index
    header = yaml.safe_load(card.split("---")[1])
    index = {
        (result["task"]["type"], metric["type"]): metric["value"]
        for result in header["model-index"][0]["results"]
        for metric in result["metrics"]
    }
    assert index[("text-ranking", "ndcg_at_10")] == files["wikir_en.yaml"][0]["value"]
    assert index[("text-retrieval", "mrr_at_10")] == files["wikir_en_mrr_at_10_fused.yaml"][0]["value"]


def test_selection_figures_and_collections_off_the_hub_get_no_file(tmp_path):
    chosen = evaluation(hub_dataset=("ns/wikir-en", "validation"), chosen_on="the checkpoint")
    inputs = CardInputs("ns/wikiformer", "base", evaluation=evaluation(), more_evaluations=[chosen])
    write_model_card(tmp_path, inputs)
    assert hub_results(inputs) == [] and not (tmp_path / FOLDER).exists()


def test_a_rewrite_replaces_the_files_of_an_earlier_one(tmp_path):
    write_eval_results(tmp_path, [HubResult("ns/a", "test", "ndcg_at_10", 0.5, "nDCG@10")])
    write_eval_results(tmp_path, [HubResult("ns/b", "test", "ndcg_at_10", 0.4, "nDCG@10")])
    assert sorted(files_of(tmp_path)) == ["b.yaml"]


def test_nanobeir_sets_are_tasks_of_their_hub_dataset_unless_read_from_a_folder(tmp_path):
    results = {f"NanoMSMARCO_R100_{k}": v for k, v in (("map", 0.51234), ("mrr@10", 0.6), ("ndcg@10", 0.55))}
    record = NanoBEIRRecord("model", "sentence-transformers/NanoBEIR-en", ["msmarco"], 100, 10, True, results)
    files = {r.file_name(): r for r in hub_results(CardInputs("ns/m", "base", nanobeir=record))}
    assert sorted(files) == ["nanobeir_en.yaml", "nanobeir_en_map.yaml", "nanobeir_en_mrr_at_10.yaml"]
    assert (files["nanobeir_en_map.yaml"].task_id, files["nanobeir_en_map.yaml"].value) == ("NanoMSMARCO", 0.5123)
    local = NanoBEIRRecord("model", str(tmp_path), ["msmarco"], 100, 10, True, results)
    chosen = NanoBEIRRecord("model", "sentence-transformers/NanoBEIR-en", ["msmarco"], 100, 10, True, results, "it")
    assert hub_results(CardInputs("ns/m", "base", nanobeir=local)) == []
    assert hub_results(CardInputs("ns/m", "base", nanobeir=chosen)) == []


@pytest.mark.parametrize(
    ("entry", "complaint"),
    [
        ({"dataset": {"id": "ns/set"}, "value": 0.5}, "'task_id' is a required property"),
        ({"dataset": {"id": "not-an-id", "task_id": "t"}, "value": 0.5}, "does not match"),
        ({"dataset": {"id": "ns/set", "task_id": "t"}, "value": "high"}, "is not of type 'number'"),
        ({"dataset": {"id": "ns/set", "task_id": "t"}, "value": 0.5, "date": "yesterday"}, "does not match"),
        ({"dataset": {"id": "ns/set", "task_id": "t"}, "value": 0.5, "source": {"name": "x"}}, "'url' is a required"),
        ({"dataset": {"id": "ns/set", "task_id": "t"}, "value": 0.5, "metric": "ndcg"}, "Additional properties"),
    ],
)
def test_the_schema_refuses_what_the_hubs_format_does_not_allow(tmp_path, entry, complaint):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump([entry]))
    with pytest.raises(ValueError, match=complaint):
        check_eval_results(path)


def test_eval_rerank_figures_on_a_collection_named_by_its_hub_id():
    results = {name: {"means": means | {"P@5": 0.2}} for name, means in SYSTEMS.items()}
    systems = {"wikiformer": "", "wikiformer+bm25": "fused"}
    hub = rerank_hub_results("hf:mteb/scifact@test", results, systems, "re-ranking the bm25 top 20")
    assert {(r.dataset_id, r.task_id, r.metric, r.value, r.variant) for r in hub} == {
        ("mteb/scifact", "test", "ndcg_at_10", 0.6123, ""),
        ("mteb/scifact", "test", "mrr_at_10", 0.7, ""),
        ("mteb/scifact", "test", "ndcg_at_10", 0.65, "fused"),
        ("mteb/scifact", "test", "mrr_at_10", 0.75, "fused"),
    }
    assert rerank_hub_results("data/samples/eval/dl20-mini", results, systems, "") == []
    assert rerank_hub_results("irds:cranfield", results, systems, "") == []
