"""train.py on every encoder Wikiformer pre-trains (tiny random BERT, XLM-RoBERTa, ModernBERT, DeBERTa-v2): the
joint objective for 3 steps on the task datasets built from the vendored sample, then the checkpoint loads four ways
with equal scores and ``eval rerank`` and ``eval nanobeir`` run on it; a multilingual corpus through an XLM-R-style
tokenizer; a 4,096-token LTM pair with a tiny ModernBERT; each encoder's pair layout and masking in the collator."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from tests.conftest import PROJECT_ROOT, SAMPLES
from tests.tiny_backbones import BACKBONE_NAMES, sample_texts, save_tiny_encoder, tokenizer_for
from tests.training.conftest import DL20_MINI, clean_env, run_train, train_command
from wikiformer_kit.training.collator import GroupCollator
from wikiformer_kit.training.data import Task

TASKS = ("srr", "rwi", "ati", "ltm")
PAIRS = [
    ("what is anarchism", "Anarchism is a political philosophy and movement."),
    ("what is anarchism", "Albedo is the fraction of sunlight that is diffusely reflected by a body."),
    ("what is albedo", "Albedo is the fraction of sunlight that is diffusely reflected by a body."),
]
PLAIN_CLASSES = {
    "bert": "BertForSequenceClassification",
    "xlm-roberta": "XLMRobertaForSequenceClassification",
    "modernbert": "ModernBertForSequenceClassification",
    "deberta-v2": "DebertaV2ForSequenceClassification",
}

LOAD_EVERY_WAY = """
import json, sys, torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer
from sentence_transformers import CrossEncoder
path, pairs = sys.argv[1], json.loads(sys.argv[2])
tokenizer = AutoTokenizer.from_pretrained(path)
encoded = tokenizer([q for q, _ in pairs], [d for _, d in pairs], padding=True, return_tensors="pt")
out = {}
for name, trust in (("plain", False), ("remote", True)):
    model = AutoModelForSequenceClassification.from_pretrained(path, trust_remote_code=trust).eval()
    with torch.no_grad():
        out[name] = [type(model).__name__, model(**encoded).logits.view(-1).tolist()]
    out[f"cross_encoder_{name}"] = CrossEncoder(
        path, trust_remote_code=trust, activation_fn=torch.nn.Identity()
    ).predict(pairs).tolist()
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def nano_folder(tmp_path_factory):
    from tests.eval.nanobeir_data import build_mini_nanobeir

    return build_mini_nanobeir(tmp_path_factory.mktemp("nanobeir"))


def run_python(args: list[str], tmp_path, cwd=PROJECT_ROOT, timeout: int = 600) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, *args], cwd=cwd, env=clean_env(tmp_path), capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    return result


@pytest.mark.slow
@pytest.mark.parametrize("name", BACKBONE_NAMES)
def test_train_py_pre_trains_each_encoder_and_its_checkpoint_loads_and_evaluates(
    name, built_tasks, nano_folder, tmp_path
):
    encoder = save_tiny_encoder(name, tmp_path / "encoder", tokenizer_for(name))
    output = tmp_path / "run"
    datasets = [str(built_tasks / f"wikiformer-{task}") for task in TASKS]
    run = run_train(
        train_command(encoder, datasets[0], output, "--max_steps", "3", "--mlm_weight", "0.5")
        + ["--head_lr_multiplier", "100"]
        + ["--train_datasets", *datasets, "--query_max_lengths", "16", "16", "16", "48", "--doc_max_lengths", "48"],
        tmp_path,
    )
    logs = json.loads((output / "trainer_state.json").read_text())["log_history"]
    steps = [log for log in logs if "loss" in log]
    assert [log["step"] for log in steps] == [1, 2, 3] and all(log["loss"] == log["loss"] for log in steps)
    assert "Traceback" not in run.stderr

    loaded = run_python(["-c", LOAD_EVERY_WAY, str(output), json.dumps(PAIRS)], tmp_path, cwd=tmp_path)
    scores = json.loads(loaded.stdout.strip().splitlines()[-1])
    assert scores["plain"][0] == PLAIN_CLASSES[name] and scores["remote"][0].startswith("Wikiformer")
    for key in ("remote", "cross_encoder_plain", "cross_encoder_remote"):
        values = scores[key][1] if key == "remote" else scores[key]
        assert values == pytest.approx(scores["plain"][1], abs=1e-5), key
    assert len(set(scores["plain"][1])) > 1  # the trained head tells the pairs apart

    reranked = tmp_path / "rerank"
    args = ["-m", "eval", "rerank", "--model", str(output), "--collection", str(DL20_MINI), "--max-queries", "2"]
    run_python(args + ["--depth", "5", "--max-length", "64", "--output-dir", str(reranked)], tmp_path)
    assert any(reranked.rglob("*.run")) or any(reranked.rglob("*.json"))
    nano = tmp_path / "nanobeir"
    args = ["-m", "eval", "nanobeir", str(output), "--sets", "msmarco", "--data", str(nano_folder)]
    result = run_python(args + ["--rerank-k", "5", "--output-dir", str(nano)], tmp_path)
    assert "NanoBEIR_R5_mean_ndcg@10" in result.stdout


def test_a_multilingual_corpus_trains_an_xlm_r_encoder_through_its_unigram_tokenizer(tmp_path):
    """Tasks built from the Latgalian dump sample and the Japanese page, a unigram (sentencepiece-style) vocabulary
    learnt from those texts: Japanese and Latgalian pairs tokenize without unknown pieces, and train.py trains."""
    from wikiformer_kit.benchmarks.languages import write_dump
    from wikiformer_kit.dataset_scripts.build import main as build

    tasks = tmp_path / "tasks"
    dump = SAMPLES / "wikipedia" / "ltgwiki-sample.xml.bz2"
    inputs = [str(dump), str(write_dump("ja", tmp_path))]
    assert build(["--input", *inputs, "--output-dir", str(tasks), "--num-proc", "1"]) == 0
    tokenizer = tokenizer_for("xlm-roberta")
    srr = _rows(tasks / "wikiformer-srr")
    japanese = next(row for row in srr if any("\u3040" <= char <= "\u30ff" for char in row["query"] + row["positive"]))
    latgalian = next(row for row in srr if "ū" in row["positive"] or "ō" in row["positive"])
    for row in (japanese, latgalian):
        ids = tokenizer(row["query"], row["positive"], truncation=True, max_length=128)["input_ids"]
        assert tokenizer.unk_token_id not in ids and ids[0] == tokenizer.cls_token_id
    encoder = save_tiny_encoder("xlm-roberta", tmp_path / "encoder", tokenizer)
    datasets = [str(tasks / f"wikiformer-{task}") for task in ("srr", "rwi", "ati")]
    run_train(
        train_command(encoder, datasets[0], tmp_path / "run", "--max_steps", "2", "--mlm_weight", "1")
        + ["--train_datasets", *datasets],
        tmp_path,
    )
    assert json.loads((tmp_path / "run" / "config.json").read_text())["model_type"] == "xlm-roberta"


def _rows(folder) -> list[dict]:
    import pyarrow.parquet as pq

    return [row for path in sorted(folder.rglob("*.parquet")) for row in pq.read_table(path).to_pylist()]


def test_a_4096_token_ltm_pair_trains_and_scores_on_a_cpu_with_a_tiny_modernbert(tmp_path):
    """Whole texts of 2,046 and 2,047 tokens make a 4,096-token LTM pair (ModernBERT reads 8,192): two steps train on
    it, and the trained checkpoint scores a pair of that length."""
    tokenizer = tokenizer_for("modernbert")
    words = [word for word in sample_texts()[0].split() if word.isalpha()]  # the English dump's start
    texts = [" ".join(words[start : start + 2600]) for start in (0, 2600, 5200)]
    assert all(len(tokenizer(text, add_special_tokens=False)["input_ids"]) > 2047 for text in texts)
    data = tmp_path / "ltm.jsonl"
    data.write_text(json.dumps({"query": texts[0], "positive": texts[1], "negatives": [texts[2]]}) + "\n")
    encoder = save_tiny_encoder("modernbert", tmp_path / "encoder", tokenizer)
    command = train_command(encoder, data, tmp_path / "run", "--max_steps", "2", "--group_size", "2")
    command += ["--per_device_train_batch_size", "1", "--query_max_lengths", "2046", "--doc_max_lengths", "2047"]
    command += ["--max_tokens_per_batch", "8192"]
    run_train(command, tmp_path, timeout=900)
    from wikiformer_kit.modeling_wikiformer import WikiformerForRanking
    from wikiformer_kit.training.data import load_task

    task = load_task(str(data), "ltm", 2046, 2047)
    group = {"task": 0, "fixed": texts[0], "candidates": texts[1:]}
    batch = GroupCollator(tokenizer, [task], 2, max_length=8192)([group])
    assert batch["input_ids"].shape == (2, 4096)
    model = WikiformerForRanking.from_pretrained(tmp_path / "run").eval()
    scores = model.score(texts[0][:12000], texts[1:], tokenizer, max_length=4096)
    assert scores.isfinite().all() and scores[0] != scores[1]


@pytest.mark.parametrize("name", BACKBONE_NAMES)
def test_the_collator_lays_pairs_out_as_each_tokenizer_does(name):
    tokenizer = tokenizer_for(name)
    task = Task("srr", None, False, query_max_length=4, doc_max_length=6)
    candidates = ["paris is the capital city of france"] * 2
    group = {"task": 0, "fixed": "the history of paris france", "candidates": candidates}
    batch = GroupCollator(tokenizer, [task], 2, max_length=512)([group])
    expected = tokenizer(
        tokenizer.convert_tokens_to_string(tokenizer.tokenize(group["fixed"])[:4]),
        group["candidates"][0],
        truncation="only_second",
        max_length=4 + 6 + tokenizer.num_special_tokens_to_add(pair=True),
    )["input_ids"]
    assert batch["input_ids"][0].tolist() == expected
    assert ("token_type_ids" in batch) == (name in ("bert", "deberta-v2"))
    special_tokens = 4 if name == "xlm-roberta" else 3  # <s> q </s></s> d </s>
    assert len(expected) == 4 + 6 + special_tokens


@pytest.mark.parametrize("name", BACKBONE_NAMES)
def test_mlm_masks_document_tokens_with_each_tokenizers_mask_and_never_its_special_tokens(name):
    tokenizer = tokenizer_for(name)
    task = Task("srr", None, False, query_max_length=8, doc_max_length=64)
    group = {"task": 0, "fixed": "history of paris", "candidates": ["paris is the capital and largest city " * 6] * 2}
    plain = GroupCollator(tokenizer, [task], 2)([group])
    torch.manual_seed(0)
    batch = GroupCollator(tokenizer, [task], 2, mlm_probability=0.5)([group])
    predicted = batch["mlm_labels"] != -100
    assert predicted.any()
    special = torch.tensor(
        [[token in tokenizer.all_special_ids for token in row] for row in plain["input_ids"].tolist()]
    )
    assert not (predicted & special).any()
    assert (batch["input_ids"][predicted] == tokenizer.mask_token_id).float().mean() > 0.5
    query_end = plain["input_ids"][0].tolist().index(tokenizer.sep_token_id)
    assert not predicted[:, : query_end + 1].any()  # the query side is never masked


def test_a_tokenizer_without_a_mask_token_is_refused_for_mlm():
    from transformers import AutoTokenizer

    from tests.tiny_backbones import minilm_path

    tokenizer = AutoTokenizer.from_pretrained(minilm_path(), mask_token=None)
    tokenizer.mask_token = None
    with pytest.raises(ValueError, match="has no mask token: the joint MLM loss"):
        GroupCollator(tokenizer, [Task("srr", None, False, 8, 8)], 2, mlm_probability=0.15)


def test_configs_name_each_encoders_recipe():
    from wikiformer_kit.training.arguments import parse_arguments

    configs = PROJECT_ROOT / "wikiformer_kit" / "configs"
    for config, model in (
        ("wikiformer-bert-base.yaml", "google-bert/bert-base-uncased"),
        ("wikiformer-modernbert-base.yaml", "answerdotai/ModernBERT-base"),
        ("wikiformer-xlm-roberta-base.yaml", "FacebookAI/xlm-roberta-base"),
    ):
        model_args, data_args, training = parse_arguments([str(configs / config), "--use_cpu", "true"])
        assert model_args.model_name_or_path == model, config
        assert len(data_args.train_datasets) == 4 and training.max_steps > 0
