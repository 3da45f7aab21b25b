"""The main job end to end at reduced size, published to the local test Hub, then used as a downstream user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import PROJECT_ROOT
from tests.hub_server import run_python
from wikiformer_kit.eval.hub_results import check_eval_results
from wikiformer_kit.model_card import CardInputs, Evaluation, render_model_card

VARIANT_FLAGS = ("--harp-variant", "--prop-variant", "--stopwords")

pytestmark = pytest.mark.slow


def test_release_end_to_end_through_the_hub(hub, tmp_path):
    out = tmp_path / "release"
    command = [
        sys.executable, "release.py", "--output-dir", str(out), "--max-steps", "3", "--eval-max-queries", "2",
        "--eval-depth", "5", "--eval-max-length", "128", "--push-to-hub", "ns",
    ]  # fmt: skip
    result = subprocess.run(
        command,
        cwd=PROJECT_ROOT,
        env=hub.env(tmp_path / "home_publisher"),
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "[push]" in result.stdout and "| wikiformer |" in result.stdout
    # A quiet console: a line per stage, the table once, what to do next; the commands' output in the logs.
    console = result.stdout + result.stderr
    assert len(console.splitlines()) <= 40, console
    assert console.count("| wikiformer |") == 1 and "Next:" in console and "--push-to-hub" not in console
    assert "randomly initialised" not in console and "datatrove" not in console.lower()
    # the build's executor statistics: in its own stage logs (one console line a stage), or all in datasets.log
    build_logs = [out / "logs" / "datasets.log", *sorted((out / "datasets" / "logs").glob("*.log"))]
    assert any("Stats" in log.read_text() for log in build_logs) and (out / "logs" / "train.log").stat().st_size
    stages = sorted(p.stem for p in (out / "stages").glob("*.json"))
    assert stages == ["datasets", "eval", "export", "train", "wikir"]  # chosen on WIKIR validation by default
    assert "evaluation, test: nothing was chosen on these 2 queries" in result.stdout
    assert "evaluation, dev: the checkpoint and the fusion were chosen on these 10 queries" in result.stdout
    stored = json.loads((out / "wikiformer" / "config.json").read_text())
    assert stored["fusion_dev_collection"] == "wikir-en-validation" and stored["fusion_cv"]["dev_queries"] == 10
    # One maximum length for every loader (the evaluation's), the chart beside the card, the Hub ids in the cards.
    model_dir = out / "wikiformer"
    config = json.loads((model_dir / "config.json").read_text())
    assert json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"] == 128
    assert json.loads((model_dir / "tokenizer_config.json").read_text())["model_max_length"] == 128
    assert config["query_max_length"] + config["document_max_length"] + 3 == 128
    card = (model_dir / "README.md").read_text()
    assert "up to 128 tokens" in card and "](comparison.png)" in card and (model_dir / "comparison.png").exists()
    assert 'load_dataset("ns/wikiformer-srr"' in (out / "datasets" / "wikiformer-srr" / "README.md").read_text()

    # A rerun reuses every finished stage.
    again = subprocess.run(command[:-2], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stdout.count("with the same command: reused") == 4

    user = """
import json
import torch
from datasets import load_dataset
from huggingface_hub import HfApi, ModelCard, hf_hub_download
from sentence_transformers import CrossEncoder
from transformers import AutoModel, AutoTokenizer

model = AutoModel.from_pretrained("ns/wikiformer", trust_remote_code=True)
tokenizer = AutoTokenizer.from_pretrained("ns/wikiformer")
query, docs = "what is albedo", ["Albedo is the fraction of sunlight a surface reflects.", "Paris is in France."]
ours = model.score([query, query], docs, tokenizer)
cross = CrossEncoder("ns/wikiformer").predict([(query, d) for d in docs], activation_fn=torch.nn.Identity())
srr = load_dataset("ns/wikiformer-srr", split="train")
card = ModelCard.load("ns/wikiformer")
results = card.data.eval_results
hub_files = [f for f in HfApi().list_repo_files("ns/wikiformer") if f.startswith(".eval_results/")]
wikir = load_dataset("ns/wikir-en", "qrels", split="test")
print(json.dumps({
    "eval_results": {f: open(hf_hub_download("ns/wikiformer", f), encoding="utf-8").read() for f in hub_files},
    "wikir_index": {r.metric_type: r.metric_value for r in results
                    if r.dataset_type == "wikir-en-test" and r.task_type == "text-ranking"},
    "wikir_test_judgments": len(wikir),
    "class": type(model).__name__, "ours": [float(s) for s in ours], "cross": [float(s) for s in cross],
    "srr_rows": len(srr), "srr_columns": srr.column_names,
    "metrics": {r.metric_name: r.metric_value for r in results
                if r.dataset_type == results[0].dataset_type and r.task_type == "text-ranking"},
    "dataset": results[0].dataset_type, "datasets": sorted({r.dataset_type for r in results}),
}))
"""
    loaded = json.loads(run_python(user, hub.env(tmp_path / "home_user")).strip().splitlines()[-1])
    assert loaded["class"] == "WikiformerForRanking"
    assert loaded["ours"] == pytest.approx(loaded["cross"], abs=1e-4)
    assert loaded["srr_rows"] > 50 and {"query", "positive", "negatives"} <= set(loaded["srr_columns"])
    assert loaded["dataset"] == "dl20-mini"  # a test collection: nothing was chosen on it
    assert loaded["datasets"] == ["dl20-mini", "wikir-en-test"]  # the dev queries' figures are no results
    measured = json.loads((out / "eval" / "wikiformer" / "metrics.json").read_text())["wikiformer"]["means"]
    assert loaded["metrics"]["nDCG@10"] == pytest.approx(measured["nDCG@10"], abs=1e-4)
    # the Hub's evaluation results: the WIKIR test figures under the published WIKIR dataset, valid, the card's values
    # (dl20-mini is no Hub dataset, the dev queries chose the checkpoint: neither has a file)
    files = {name.split("/")[-1]: text for name, text in loaded["eval_results"].items()}
    assert {"wikir_en.yaml", "wikir_en_mrr_at_10.yaml"} <= set(files) and loaded["wikir_test_judgments"] > 0
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        check_eval_results(tmp_path / name)
        assert {entry["dataset"]["id"] for entry in yaml.safe_load(text)} == {"ns/wikir-en"}
    for name, metric in (("wikir_en.yaml", "ndcg_at_10"), ("wikir_en_mrr_at_10.yaml", "mrr_at_10")):
        [entry] = yaml.safe_load(files[name])
        assert entry["dataset"]["task_id"] == "test" and entry["value"] == loaded["wikir_index"][metric]


def test_card_states_only_measured_results(tmp_path):
    evaluation = Evaluation("dl20-mini", "dl20-mini", {"bm25": {"nDCG@10": 0.5}, "ours": {"nDCG@10": 0.4}}, "ours")
    card = render_model_card(CardInputs(repo_id="ns/wikiformer", base_model="bert-base-uncased", evaluation=evaluation))
    header = yaml.safe_load(str(card).split("---")[1])
    metrics = header["model-index"][0]["results"][0]["metrics"]
    assert metrics == [{"type": "ndcg_at_10", "value": 0.4, "name": "nDCG@10"}]
    assert "| bm25 | **0.5000** |" in str(card) and "| ours (this model) | 0.4000 |" in str(card)
    without = render_model_card(CardInputs(repo_id="ns/wikiformer", base_model="bert-base-uncased"))
    assert "model-index" not in str(without) and "No evaluation was run for this checkpoint." in str(without)


def test_every_corpus_option_reaches_the_build(tmp_path):
    from wikiformer_kit.release.pipeline import main

    extra = "--language ltg --see-also-title 'Verīs taipoš' --max-article-bytes 500000 --read-ahead off --limit 20"
    assert main(["--output-dir", str(tmp_path), "--stages", "datasets", "--build-args", extra]) == 0
    record = json.loads((tmp_path / "datasets" / "corpus" / "build_stats.json").read_text())
    assert record["inputs"] == ["enwiki-sample.xml.bz2"]
    # --language overrides what the dump's <siteinfo> says (English): the record says what was built
    assert record["options"]["reader"] == {
        "language": "ltg",
        "language_given": True,
        "see_also_titles": ["Verīs taipoš"],
        "max_article_bytes": 500000,
    }
    assert record["languages"] == {"ltg": 20}
    assert (record["options"]["read_ahead"], record["options"]["limit"]) == ("off", 20)
    assert record["statistics"]["articles"] == 20


def test_release_builds_a_wikir_collection_beside_the_datasets(tmp_path):
    out = tmp_path / "release"
    command = [sys.executable, "release.py", "--output-dir", str(out), "--stages", "wikir"]
    result = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    log = (out / "logs" / "wikir.log").read_text()
    assert "dataset_scripts.wikir --input" in log and "--min-links 1" in log  # the sample's
    assert result.stdout.startswith("[wikir] done in ")
    assert json.loads((out / "wikir" / "test" / "collection.json").read_text())["relevance_level"] == 1
    assert (out / "wikir" / "validation" / "candidates.json").exists()
    assert sorted(p.stem for p in (out / "stages").glob("*.json")) == ["wikir"]


class Command(list):
    """A plain command line as a stage runs it (what ``release.stage_runner.Invocation`` gives)."""

    def command(self) -> list[str]:
        return list(self)


def test_release_system_option_picks_the_method_config_output_and_task_settings(tmp_path):
    from wikiformer_kit.release.options import parse_args
    from wikiformer_kit.release.stages import task_settings

    args = parse_args(["--system", "harp"])
    assert args.output_dir == "output/release-harp" and args.config.endswith("configs/harp-demo-cpu.yaml")
    assert parse_args([]).output_dir == "output/release" and parse_args([]).config.endswith("configs/demo-cpu.yaml")
    config = yaml.safe_load((PROJECT_ROOT / "wikiformer_kit" / "configs" / "harp-demo-cpu.yaml").read_text())
    built = [tmp_path / "wikiformer-rqp", tmp_path / "wikiformer-rdp"]  # QDM and ACM without rows on a small corpus
    assert task_settings(config, built) == {"query_max_lengths": [30, 64], "doc_max_lengths": [96, 96]}


@pytest.mark.parametrize("system", ["prop", "harp"])
def test_baseline_configs_parse_with_the_originals_objective(system):
    from wikiformer_kit.training.arguments import parse_arguments

    for name in (f"{system}-bert-base.yaml", f"{system}-demo-cpu.yaml"):
        _, data, training = parse_arguments(
            [str(PROJECT_ROOT / "wikiformer_kit" / "configs" / name), "--output_dir", "/tmp/x", "--bf16", "false"]
        )
        # the loss both original codes trained with: margin 1 on the softmax of the pair, ranking and MLM 1:1
        assert training.loss == "softmax_margin" and training.hinge_margin == 1.0 and training.mlm_weight == 1.0
        assert training.ranking_weight in (None, 1.0) and data.task_mixture == (
            "proportional" if system == "harp" else "weights"
        )
        assert training.mlm_whole_word and training.mlm_max_predictions == 60 and training.mlm_probability == 0.15
        assert data.group_size == 2 and len(data.train_datasets) == (1 if system == "prop" else 4)
    _, data, training = parse_arguments(
        [str(PROJECT_ROOT / "wikiformer_kit" / "configs" / f"{system}-bert-base.yaml"), "--bf16", "false"]
    )
    # the papers' "batch size of 128" on 4 GPUs: PROP's code counts sequences (64 pairs of 2), HARP's counts pairs
    pairs = 4 * training.per_device_train_batch_size * training.gradient_accumulation_steps
    assert pairs * (data.group_size if system == "prop" else 1) == 128


def test_selection_is_on_wikir_validation_where_it_has_enough_queries(tmp_path, capsys):
    from wikiformer_kit.release.options import parse_args
    from wikiformer_kit.release.selection import MIN_SELECTION_QUERIES, selection
    from wikiformer_kit.release.stages import collection_evaluation

    args = parse_args(["--output-dir", str(tmp_path)])
    validation = tmp_path / "wikir" / "validation"
    validation.mkdir(parents=True)
    (validation / "topics.tsv").write_text("".join(f"q{i}\tquery {i}\n" for i in range(MIN_SELECTION_QUERIES)))
    dev = selection(args, tmp_path / "wikir")
    assert dev.on_wikir and dev.spec == str(validation) and not dev.chose_on(args.eval_collection)
    assert dev.role(str(validation), 5).startswith("dev: the checkpoint and the fusion were chosen on these 5")
    (validation / "topics.tsv").write_text("q1\tone query\n")
    fallback = selection(args, tmp_path / "wikir")
    assert not fallback.on_wikir and fallback.chose_on(args.eval_collection)
    assert "fewer than 5" in capsys.readouterr().out
    assert not selection(parse_args(["--select-on-eval-collection"]), tmp_path / "wikir").on_wikir
    compare = collection_evaluation(args, args.eval_collection, "bm25", tmp_path / "eval", None)[-1]
    assert compare.subcommand == "compare" and compare.options.reference == "bm25"  # against the first stage
    assert any(run.startswith("wikiformer+bm25=") for run in compare.options.runs)


def test_harp_scores_importance_with_the_backbone_its_config_trains():
    from wikiformer_kit.release.options import parse_args
    from wikiformer_kit.release.stages import dataset_build

    config = yaml.safe_load((PROJECT_ROOT / "wikiformer_kit" / "configs" / "harp-bert-base.yaml").read_text())
    out = Path("out")
    harp = dataset_build(parse_args(["--system", "harp"]), out, config).options
    assert harp.harp_importance_model == "google-bert/bert-base-uncased"
    given = parse_args(["--system", "harp", "--build-args", "--harp-importance-model other --language de"])
    assert (dataset_build(given, out, config).options.harp_importance_model, given.build_args) == (
        "other",
        "--harp-importance-model other --language de",
    )
    assert dataset_build(given, out, config).options.language == "de"
    assert not dataset_build(parse_args(["--system", "prop"]), out, config).options.harp_importance_model


def test_a_baselines_variant_and_stopwords_reach_the_build_and_its_cards():
    from wikiformer_kit.cli.options import to_argv
    from wikiformer_kit.dataset_scripts.tasks.baseline_options import built_choices
    from wikiformer_kit.release.options import parse_args
    from wikiformer_kit.release.stages import dataset_build

    def variant_args(args):
        built = dataset_build(args, Path("out"), {}).options
        argv = to_argv(built)
        return [t for i, t in enumerate(argv) if t in VARIANT_FLAGS or (i and argv[i - 1] in VARIANT_FLAGS)]

    args = parse_args(["--system", "harp", "--harp-variant", "original", "--stopwords", "harp-stopwords.txt"])
    assert args.baseline_choices() == {"harp_variant": "original", "stopwords": "harp-stopwords.txt"}
    assert sorted(variant_args(args)) == sorted(["--harp-variant", "original", "--stopwords", "harp-stopwords.txt"])
    assert variant_args(parse_args(["--system", "prop", "--prop-variant", "original"])) == [
        "--prop-variant",
        "original",
    ]
    assert variant_args(parse_args(["--system", "harp"])) == []
    # what the build makes of them: the options, and the line its cards print
    harp = dataset_build(args, Path("out"), {}).options.harp_options()
    assert (harp.variant_name, harp.draw_unit, harp.stopwords) == ("original", "pieces", "harp-stopwords.txt")
    line = built_choices("HARP", {f"harp.{k}": v for k, v in harp.to_dict().items()})
    assert line.startswith("As built: --harp-variant original; stopwords: harp-stopwords.txt")
    prop = dataset_build(parse_args(["--system", "prop", "--prop-variant", "original"]), Path("out"), {}).options
    prop = prop.prop_options()
    assert built_choices("PROP", {f"prop.{k}": v for k, v in prop.to_dict().items()}).startswith(
        "As built: --prop-variant original; stopwords: NLTK English + INQUERY"
    )
    for wrong in (
        ["--harp-variant", "original"],
        ["--system", "prop", "--harp-variant", "paper"],
        ["--stopwords", "x"],
    ):
        with pytest.raises(SystemExit):
            parse_args(wrong)


def test_a_stage_is_one_console_line_and_its_output_goes_to_the_log(tmp_path, capsys):
    from wikiformer_kit.release.stage_records import Stages

    chatty = Command(
        [
            sys.executable,
            "-c",
            "import sys\nfor i in range(50): print('banner', i); print(f'{i}/50 [', file=sys.stderr)",
        ]
    )
    stages = Stages(tmp_path, redo=None)
    stages.run("datasets", [chatty], describe=lambda: "4 datasets")
    console = capsys.readouterr()
    assert (
        console.out.count("\n") == 1 and console.out.startswith("[datasets] done in ") and "4 datasets" in console.out
    )
    log = (tmp_path / "logs" / "datasets.log").read_text()
    assert log.count("banner 4") == 11 and log.startswith("$ python -c ")
    stages.run("datasets", [chatty])
    assert capsys.readouterr().out == "[datasets] finished earlier with the same command: reused\n"

    failing = Command([sys.executable, "-c", "import sys\nprint('the cause'); sys.exit(3)"])
    with pytest.raises(SystemExit, match=r"\[train\] failed \(exit 3\) \(full output: .*train.log\)"):
        stages.run("train", [failing])
    assert "the cause" in capsys.readouterr().err  # the log's tail is shown


def test_verbose_stages_print_the_commands_output(tmp_path, capfd):
    from wikiformer_kit.release.stage_records import Stages

    Stages(tmp_path, redo=None, verbose=True).run("eval", [Command([sys.executable, "-c", "print('table')"])])
    out = capfd.readouterr().out
    assert "[eval] $ python -c " in out and "table" in out and not (tmp_path / "logs").exists()


def test_a_stage_is_reused_only_while_its_inputs_and_the_stages_before_it_are_unchanged(tmp_path, capsys):
    from wikiformer_kit.release.stage_records import Stages

    dump = tmp_path / "dump.xml"
    dump.write_text("first download, cut short")
    out = tmp_path / "out"
    copy = [sys.executable, "-c", "import shutil, sys; shutil.copy(sys.argv[1], sys.argv[2])"]
    datasets = Command([*copy, str(dump), str(out / "rows.txt")])
    train = Command([*copy, str(out / "rows.txt"), str(out / "model.txt")])

    def run_both():
        stages = Stages(out, redo=None)
        stages.run("datasets", [datasets])
        stages.run("train", [train])
        return capsys.readouterr().out

    run_both()
    assert run_both().count("finished earlier with the same command: reused") == 2
    dump.write_text("the whole download, under the same name")
    console = run_both()
    assert "[datasets] finished earlier from other inputs (input replaced (size or time): dump.xml)" in console
    assert "[train] finished earlier from other inputs (stage datasets ran again)" in console
    assert (out / "model.txt").read_text() == "the whole download, under the same name"
    assert run_both().count("reused") == 2

    other = tmp_path / "other.xml"
    other.write_text("another input")
    Stages(out, redo=None).run("datasets", [Command([*copy, str(other), str(out / "rows.txt")])])
    assert "other command line; other input: other.xml; input no longer given: dump.xml" in capsys.readouterr().out
