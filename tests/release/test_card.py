"""The card stage against hand-made evaluation folders laid out as the eval stage writes them: the card claims only
what the files measured (test results in model-index, a fusion only where it changed the ranking, selection figures
kept out, one significance verdict, one name per measure, no internal names, one namespace placeholder)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.eval.collections import load_collection, read_trec_run, write_trec_run
from wikiformer_kit.eval.collections.trec import ranked
from wikiformer_kit.eval.metrics import evaluate_run
from wikiformer_kit.eval.rerank.fusion import fuse_run

DL20 = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "eval" / "dl20-mini"
WIKIR_VALIDATION = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "eval" / "wikir-en-mini" / "validation"
MEASURES = ["RR@10", "RR@100", "nDCG@10", "nDCG@20", "P@5"]
DEPTH = 20


def judged_first(candidates: dict, qrels: dict) -> dict:
    """A hand-made re-ranker's run: each query's candidates by judged grade, then in reverse first-stage order."""
    run = {}
    for qid, ranking in candidates.items():
        order = [doc for doc, _ in ranked(ranking)]
        grades = qrels.get(qid, {})
        run[qid] = {doc: grades.get(doc, 0) * 100 + position for position, doc in enumerate(order)}
    return run


def reversed_order(candidates: dict) -> dict:
    """A hand-made run that ranks each query's candidates in reverse first-stage order (an untrained head)."""
    return {qid: {doc: float(p) for p, (doc, _) in enumerate(ranked(ranking))} for qid, ranking in candidates.items()}


def write_eval_folder(folder: Path, collection_dir: Path, alpha: float) -> None:
    """``folder`` as the eval stage writes it for one collection: ``python -m eval rerank``'s runs and metrics.json
    for the model (raw and fused with BM25 at ``alpha``, z-scores) and for the untrained-head baseline, then
    ``python -m eval compare``'s comparison.json, table.md and chart against BM25."""
    from wikiformer_kit.eval.cli import main as eval_main

    collection = load_collection(str(collection_dir))
    bm25 = read_trec_run(collection_dir / "bm25.run")
    candidates = {qid: dict(ranked(ranking)[:DEPTH]) for qid, ranking in bm25.items() if qid in collection.qrels}
    model = judged_first(candidates, collection.qrels)
    runs = {
        "wikiformer": {"bm25": candidates, "wikiformer": model, "wikiformer+bm25": fuse_run(model, candidates, "zscore", alpha)},
        "minilm-fresh-head": {"bm25": candidates, "minilm-fresh-head": reversed_order(candidates)},
    }  # fmt: skip
    for tag, systems in runs.items():
        results = {}
        for name, run in systems.items():
            write_trec_run(run, folder / tag / f"{name}.run", tag=name)
            evaluation = evaluate_run(run, collection.qrels, MEASURES, collection.relevance_level)
            results[name] = evaluation.to_dict()
            if "+" in name:
                results[name]["fusion"] = {"method": "zscore", "alpha": alpha, "first_stage": "bm25"}
        (folder / tag / "metrics.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    compared = [f"{name}={folder / 'wikiformer' / f'{name}.run'}" for name in ("wikiformer", "wikiformer+bm25")]
    compared.append(f"minilm-fresh-head={folder / 'minilm-fresh-head' / 'minilm-fresh-head.run'}")
    assert (
        eval_main(
            [
                "compare",
                f"bm25={folder / 'wikiformer' / 'bm25.run'}",
                *compared,
                "--collection",
                str(collection_dir),
                "--reference",
                "bm25",
                "--measures",
                *MEASURES,
                "--output-dir",
                str(folder / "compare"),
            ]
        )  # fmt: skip
        == 0
    )


def release_output(tmp_path: Path, alpha: float) -> Path:
    """A release output folder with finished train, export and eval stages, made by hand: the WIKIR validation
    split (the vendored one) chose the checkpoint and the fusion; dl20-mini is the test collection."""
    out = tmp_path / "release"
    shutil.copytree(WIKIR_VALIDATION, out / "wikir" / "validation")
    write_eval_folder(out / "eval", DL20, alpha)
    write_eval_folder(out / "eval" / "dev", out / "wikir" / "validation", alpha)
    model_dir = out / "wikiformer"
    model_dir.mkdir()
    evidence = {
        "dev_collection": "wikir-en-mini-validation", "measure": "nDCG@10", "beats_first_stage": alpha > 0, "folds": 5,
        "dev_queries": 5, "estimate": 0.9, "interval": [0.8, 1.0], "first_stage": 0.9, "gain": 0.0 if not alpha else 0.05,
        "gain_interval": [0.0, 0.0] if not alpha else [0.01, 0.09],
    }  # fmt: skip
    stored = {"fusion_method": "zscore", "fusion_alpha": alpha, "fusion_dev_collection": "wikir-en-mini-validation"}
    (model_dir / "config.json").write_text(json.dumps({**stored, "fusion_cv": evidence}), encoding="utf-8")
    (out / "train").mkdir()
    state = {"global_step": 100, "best_metric": 0.5807, "best_model_checkpoint": str(out / "train" / "checkpoint-100")}
    (out / "train" / "trainer_state.json").write_text(json.dumps(state), encoding="utf-8")
    return out


def render(out: Path, namespace: str = "your-namespace") -> tuple[str, dict]:
    """The card stage on ``out`` with the demo's settings: the card's text and its YAML header."""
    from wikiformer_kit.release.card import write_card
    from wikiformer_kit.release.options import parse_args
    from wikiformer_kit.training.kit_arguments import read_config

    args = parse_args(["--output-dir", str(out)])
    config = read_config(Path(args.config))
    path = write_card(out, out / "wikiformer", out / "eval", namespace, config, {"seed": 42}, args)
    text = path.read_text(encoding="utf-8")
    return text, yaml.safe_load(text.split("---")[1])


def comparison_means(out: Path, folder: str = "eval") -> dict:
    return json.loads((out / folder / "compare" / "comparison.json").read_text(encoding="utf-8"))["means"]


def results_of(header: dict) -> list[dict]:
    return header["model-index"][0]["results"]


@pytest.fixture(scope="module")
def kept_bm25(tmp_path_factory):
    """alpha 0: the stored fusion keeps BM25's order."""
    out = release_output(tmp_path_factory.mktemp("alpha0"), 0.0)
    return out, *render(out)


@pytest.fixture(scope="module")
def fused(tmp_path_factory):
    """alpha 0.5: the fusion changes the ranking."""
    out = release_output(tmp_path_factory.mktemp("alpha05"), 0.5)
    return out, *render(out)


def test_at_alpha_0_no_fusion_is_listed_and_the_card_says_it_kept_bm25s_order(kept_bm25):
    out, text, header = kept_bm25
    results = results_of(header)
    # the model's own test results only: one entry, text-ranking, on dl20-mini; no fusion, no dev figures
    assert [(r["task"]["type"], r["dataset"]["type"]) for r in results] == [("text-ranking", "dl20-mini")]
    means = comparison_means(out)["wikiformer"]
    assert {m["name"]: m["value"] for m in results[0]["metrics"]} == {
        "MRR@10": round(means["RR@10"], 4),
        "nDCG@10": round(means["nDCG@10"], 4),
    }
    assert "The stored fusion (zscore, alpha 0) kept BM25's order on every query" in text
    assert "(fusion)" not in text and "| wikiformer+bm25 |" not in text
    assert "`fusion_alpha: 0.0`" in text and "does not beat the first stage beyond the folds' noise" in text


def test_a_fusion_that_changes_the_ranking_is_a_system_of_two_with_results_of_its_own(fused):
    out, text, header = fused
    results = results_of(header)
    assert [(r["task"]["type"], r["task"]["name"]) for r in results] == [
        ("text-ranking", "wikiformer: re-ranking the first stage's candidates"),
        ("text-retrieval", "wikiformer + BM25 (fusion)"),
    ]
    means = comparison_means(out)
    for result, system in zip(results, ("wikiformer", "wikiformer+bm25"), strict=True):
        assert {m["type"]: m["value"] for m in result["metrics"]} == {
            "mrr_at_10": round(means[system]["RR@10"], 4),
            "ndcg_at_10": round(means[system]["nDCG@10"], 4),
        }
    assert "| wikiformer + BM25 (fusion) |" in text and "kept BM25's order" not in text


def test_selection_figures_are_labelled_in_prose_and_never_in_model_index(fused):
    out, text, header = fused
    assert all(
        "wikir" not in r["dataset"]["type"] and "validation" not in r["dataset"]["name"] for r in results_of(header)
    )
    selection = text.split("### Selection figures (not results)", 1)[1].split("## Usage", 1)[0]
    assert "**wikir-en-mini-validation: 5 queries, BM25 top 20, pairs of up to 256 tokens**; **selection figures**: " \
        "the checkpoint and the fusion were chosen on these queries, so they are not a test result." in selection  # fmt: skip
    dev_means = comparison_means(out, "eval/dev")["wikiformer"]
    assert f"| wikiformer (this model) | {dev_means['RR@10']:.4f}" in selection.replace("**", "")
    # the figure training chose the checkpoint by, with its collection and the length it was computed at
    assert (
        "training evaluated its checkpoints on the dev collection **wikir-en-mini-validation** (the first stage's top 20, "
        "pairs of up to 160 tokens); the best nDCG@10 was 0.5807, at step 100; that checkpoint is this model. A "
        "selection figure, not a result: the evaluation below uses pairs of up to 256 tokens." in text
    )
    assert "best zero-shot eval metric" not in text


def test_the_evaluated_data_is_described_as_what_it_is(kept_bm25):
    _, text, header = kept_bm25
    dataset = results_of(header)[0]["dataset"]
    assert dataset["type"] == "dl20-mini" and "split" not in dataset
    assert dataset["name"] == (
        "dl20-mini (a sample of TREC Deep Learning 2020 passage ranking, on MS MARCO passages): 10 queries, BM25 top "
        "20, pairs of up to 256 tokens"
    )
    assert dataset["args"] == {"queries": 10, "first_stage": "bm25", "depth": 20, "max_length": 256}
    assert "Tevatron" not in text and "dl20\n" not in text


def table_marks(table: str, measures: list[str]) -> dict:
    """``{(row label, measure): mark}`` of a markdown table (``*``, ``†`` or none)."""
    lines = [line for line in table.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    marks = {}
    for line in lines[1:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        for measure in measures:
            cell = cells[header.index(measure)]
            marks[(cells[0], measure)] = "*" if cell.endswith("\\*") else "†" if cell.endswith("†") else ""
    return marks


def test_one_significance_verdict_in_table_md_the_cards_table_and_its_chart(fused, monkeypatch):
    out, text, _ = fused
    shown = ["MRR@10", "MRR@100", "nDCG@10", "nDCG@20", "P@5"]
    from_eval = table_marks((out / "eval" / "compare" / "table.md").read_text(encoding="utf-8"), shown)
    card_table = text.split("## Evaluation", 1)[1].split("\n\n![", 1)[0]
    in_card = table_marks(card_table, shown)
    names = {"BM25": "bm25", "wikiformer (this model)": "wikiformer", "wikiformer + BM25 (fusion)": "wikiformer+bm25",
             "all-MiniLM-L6-v2 + untrained head": "minilm-fresh-head"}  # fmt: skip
    assert {(names[row], measure): mark for (row, measure), mark in in_card.items()} == from_eval
    assert set(from_eval.values()) == {"", "*", "†"}  # both verdicts occur (RR@100 included)
    # the chart in the model folder is drawn from the same verdicts, under the same names
    from tests.eval.report.test_report import drawn_chart
    from wikiformer_kit.eval.metrics import display_name
    from wikiformer_kit.release.card import collection_evaluation
    from wikiformer_kit.release.options import parse_args

    args = parse_args(["--output-dir", str(out)])
    labels = {"minilm-fresh-head": "all-MiniLM-L6-v2 + untrained head"}
    evaluation = collection_evaluation(out / "eval", "wikiformer", "bm25", "", "", args, labels)
    drawn = drawn_chart(evaluation.shown(), out / "chart.png", monkeypatch)["marks"]
    assert {(row, display_name(measure)): mark for (row, measure), mark in drawn.items()} == in_card
    assert (out / "wikiformer" / "comparison.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_measures_are_named_the_same_everywhere(fused):
    out, text, header = fused
    table_md = (out / "eval" / "compare" / "table.md").read_text(encoding="utf-8")
    assert "| MRR@10 |" in table_md and "| MRR@10 |" in text
    names = {m["name"] for r in results_of(header) for m in r["metrics"]}
    assert names == {"MRR@10", "nDCG@10"}
    assert "RR@10" not in text.replace("MRR@10", "")


def test_no_internal_names_one_placeholder_and_the_text_ranking_format(kept_bm25):
    _, text, header = kept_bm25
    for internal in ("SAMPLE_WIKIR_ARGS", "OUT/", "<namespace>", "minilm-fresh-head"):
        assert internal not in text, internal
    assert "your-namespace/wikiformer" in text and "your-namespace/wikiformer-srr" not in text  # no datasets built
    assert header["pipeline_tag"] == "text-ranking" and "widget" not in header
    assert "pairs = [\n" in text and "scores = model.predict(pairs)" in text and "ranks = model.rank(" in text
    assert "non-commercial research use" in text  # the evaluated MS MARCO passages' terms


def test_the_dataset_cards_name_the_same_placeholder_until_a_namespace_is_given(tmp_path):
    from wikiformer_kit.release.card import name_dataset_cards

    card = tmp_path / "datasets" / "wikiformer-srr" / "README.md"
    card.parent.mkdir(parents=True)
    card.write_text('load_dataset("your-namespace/wikiformer-srr")\n', encoding="utf-8")
    name_dataset_cards(tmp_path, ("srr",), "your-namespace")
    assert "your-namespace/wikiformer-srr" in card.read_text()
    name_dataset_cards(tmp_path, ("srr",), "ns")
    assert card.read_text() == 'load_dataset("ns/wikiformer-srr")\n'


def test_the_stages_help_says_what_runs_by_default(capsys):
    from wikiformer_kit.release.options import STAGES, parse_args

    with pytest.raises(SystemExit):
        parse_args(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"(default: all {len(STAGES)}: wikir runs whenever train does" in help_text
    assert "default: datasets,train,export,eval,card" not in help_text


def test_nanobeir_figures_measured_by_the_eval_stage_are_in_model_index(kept_bm25, tmp_path):
    """``release.py --nanobeir``: the eval stage's command (run here in a fresh process on a tiny real-tokenizer
    ranker and a NanoBEIR-layout folder built from the vendored collections) writes the figures the card reports."""
    import subprocess

    from tests.conftest import PROJECT_ROOT
    from tests.eval.conftest import save_tiny_ranker
    from tests.eval.nanobeir_data import DEPTH, build_mini_nanobeir
    from wikiformer_kit.eval.nanobeir_report import NanoBEIRRecord
    from wikiformer_kit.release.options import parse_args
    from wikiformer_kit.release.stages import nanobeir_evaluation

    out = tmp_path / "release"
    shutil.copytree(kept_bm25[0], out)
    ranker = save_tiny_ranker(tmp_path / "ranker", initializer_range=0.2)
    data = build_mini_nanobeir(tmp_path)
    args = parse_args(["--output-dir", str(out), "--nanobeir", "msmarco", "--nanobeir-data", str(data)])
    assert parse_args(["--output-dir", str(out)]).nanobeir is None  # not measured unless asked
    [invocation] = nanobeir_evaluation(args, ranker, out / "eval" / "nanobeir")
    command = invocation.command()
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    result = subprocess.run(
        [*command, "--rerank-k", str(DEPTH)], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    record = NanoBEIRRecord.load(out / "eval" / "nanobeir")
    assert record.settings["max_length"] == args.eval_max_length
    text, header = render(out)
    results = {
        (entry["dataset"]["type"], metric["type"]): metric["value"]
        for entry in results_of(header)
        for metric in entry["metrics"]
        if entry["task"]["type"].startswith("cross-encoder")
    }
    assert results == {
        (prefix, key): round(record.results[f"{prefix}_{key}"], 4)
        for prefix in ("NanoMSMARCO_R20", "NanoBEIR_R20_mean")
        for key in ("map", "mrr@10", "ndcg@10")
    }
    assert "### NanoBEIR, as re-ranker model cards report it" in text
    from wikiformer_kit.release.selection import selection
    from wikiformer_kit.release.summary import evaluation_summaries

    [line] = [
        line
        for line in evaluation_summaries(
            selection(args, out / "wikir", False), out / "eval", args.eval_collection, out / "wikir"
        )
        if line.startswith("NanoBEIR")
    ]
    assert f"NanoBEIR_R20_mean_ndcg@10 {record.results['NanoBEIR_R20_mean_ndcg@10']:.4f}" in line
