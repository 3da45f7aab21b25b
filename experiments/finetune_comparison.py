"""The paper's fine-tuned comparison at the budget of this machine: the same fine-tuning from (a) the start model,
(b) Wikiformer, (c) PROP and (d) HARP pre-trained at the same budget, tested on held-out queries.

Its tables: docs/finetuning.md and docs/baselines.md::

    nice python -m experiments.finetune_comparison --pretrain-steps 100 --finetune-steps 120 --output-dir /tmp/bench-finetune
    nice python -m experiments.finetune_comparison --pretrain-steps 2 --finetune-steps 2 --max-queries 3 --depth 5   # smoke

Method: docs/benchmarks.md ("How each experiment runs", ``finetune_comparison``).
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import yaml

from experiments.pretraining import PROJECT_ROOT, pretraining_configs, train_system
from wikiformer_kit.benchmarks.common import ENWIKI_SAMPLE, SHARED_DATA, children_cpu
from wikiformer_kit.eval.collections import write_trec_run
from wikiformer_kit.eval.first_stage import BM25Options, BM25Retriever
from wikiformer_kit.eval.metrics import evaluate_run
from wikiformer_kit.eval.report import compare, markdown_table
from wikiformer_kit.eval.rerank import PairScorer, rerank
from wikiformer_kit.eval.splits import load_collection_part

START = "(a) start model"
PRETRAINED = {"(b) Wikiformer": "wikiformer", "(c) PROP": "prop", "(d) HARP": "harp"}
MEASURES = ["nDCG@10", "RR@10", "P@10"]
FINETUNE_CONFIG = PROJECT_ROOT / "wikiformer_kit" / "configs" / "finetune-cranfield-cpu.yaml"


def _flag(parser, name: str, **kwargs) -> None:
    names = [name] + (["--" + name[2:].replace("-", "_")] if "-" in name[2:] else [])
    parser.add_argument(*names, **kwargs)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    _flag(parser, "--collection", default=str(SHARED_DATA / "eval" / "cranfield"),
          help="the labelled collection (irds:cranfield reads Cranfield by its ir_datasets id; the default is the "
          "local copy for development)")  # fmt: skip
    _flag(parser, "--input", nargs="+", default=[str(ENWIKI_SAMPLE)], help="the corpus every method is pre-trained on")
    _flag(parser, "--start-model", default="embedded:minilm", help="the start of every pre-training, and (a)")
    _flag(parser, "--pretrain-steps", type=int, default=100, help="pre-training steps, the same for each method")
    _flag(parser, "--pretrain-doc-length", type=int, default=64, help="document tokens in pre-training (CPU)")
    _flag(parser, "--pretrain-set", nargs="*", default=[], metavar="[SYSTEM:]KEY=VALUE",
          help="set a pre-training config value (YAML), for every system or one (prop:doc_max_lengths=[128]); "
          "applied last, e.g. to match a given checkpoint's batch and schedule")  # fmt: skip
    _flag(parser, "--checkpoint", nargs="*", default=[], metavar="NAME=FOLDER",
          help="use a pre-trained checkpoint instead of pre-training: wikiformer=, prop= or harp=")  # fmt: skip
    _flag(parser, "--finetune-steps", type=int, default=120, help="fine-tuning steps, the same for each start")
    _flag(parser, "--min-rank", type=int, default=10, help="mined negatives: the best rank")
    _flag(parser, "--mine-depth", type=int, default=100, help="mined negatives: the worst rank (BM25 depth)")
    _flag(parser, "--depth", type=int, default=30, help="BM25 candidates re-ranked (dev and test)")
    _flag(parser, "--max-length", type=int, default=160, help="pair length at evaluation")
    _flag(parser, "--dev-queries", type=int, default=30, help="#dev queries that choose each checkpoint")
    _flag(parser, "--max-queries", type=int, default=None, help="test queries kept (smoke runs); all by default")
    _flag(parser, "--batch-size", type=int, default=32)
    _flag(parser, "--permutations", type=int, default=10_000)
    _flag(parser, "--seed", type=int, default=42)
    _flag(parser, "--output-dir", default="/tmp/bench-finetune")
    return parser.parse_args(argv)


def _run(command: list[str]) -> float:
    """Run a command in the project root; returns its CPU seconds (user + system of the child)."""
    before = children_cpu()
    logging.info("$ %s", " ".join(command[1:]))
    subprocess.run(command, cwd=PROJECT_ROOT, check=True)
    return children_cpu() - before


def pretrained_starts(args, out: Path) -> dict[str, str]:
    """(b), (c), (d): given checkpoints, else pre-trained here (``release.py`` reuses finished stages)."""
    given = dict(item.split("=", 1) for item in args.checkpoint)
    configs = pretraining_configs(
        out / "pretrain-configs", args.pretrain_steps, args.start_model, args.pretrain_doc_length, args.pretrain_set
    )
    options = SimpleNamespace(
        seed=args.seed, max_steps=args.pretrain_steps, input=args.input, config_dir=configs, num_proc=1
    )
    starts = {}
    for label, system in PRETRAINED.items():
        if system in given:
            starts[label] = str(Path(given[system]).resolve())
        else:
            started = time.process_time()
            starts[label] = str(train_system(system, options, out / "pretrain"))
            logging.info("%s pre-trained (%.0f CPU s in this process)", label, time.process_time() - started)
    return starts


def mine(args, out: Path) -> Path:
    """The fine-tuning groups of the ``#train`` queries."""
    groups = out / "groups"
    command = [sys.executable, "-m", "dataset_scripts.finetune", "--collection", f"{args.collection}#train"]
    command += ["--output-dir", str(groups), "--depth", str(args.mine_depth), "--min-rank", str(args.min_rank)]
    command += ["--seed", str(args.seed)]
    _run(command)
    return groups


def finetune(args, label: str, start: str, groups: Path, out: Path) -> tuple[Path, float]:
    """Fine-tune one start with the recipe's config (only the start, data, steps and paths changed)."""
    folder = out / "finetuned" / label.split()[0].strip("()")
    if (folder / "model.safetensors").exists():
        return folder, 0.0
    config = yaml.safe_load(FINETUNE_CONFIG.read_text(encoding="utf-8"))
    every = max(1, args.finetune_steps // 3)
    config.update(
        model_name_or_path=start, train_datasets=[str(groups)], output_dir=str(folder), max_steps=args.finetune_steps,
        eval_dir=f"{args.collection}#dev", test_dirs=[], eval_depth=args.depth, eval_max_length=args.max_length,
        eval_max_queries=args.dev_queries, eval_steps=every, save_steps=every, seed=args.seed,
    )  # fmt: skip
    path = out / "finetune-configs" / f"{folder.name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return folder, _run([sys.executable, "train.py", str(path)])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    out = Path(args.output_dir).resolve()
    starts = {START: args.start_model, **pretrained_starts(args, out)}
    groups = mine(args, out)
    models, cpu = {}, {}
    for label, start in starts.items():
        models[label], cpu[label] = finetune(args, label, start, groups, out)
    test = load_collection_part(f"{args.collection}#heldout")
    query_ids = test.judged_query_ids()[: args.max_queries]
    candidates = BM25Retriever(test.documents, BM25Options()).retrieve(test.queries, args.depth, query_ids)
    write_trec_run(candidates, out / "test" / "bm25.run", tag="bm25")
    runs = {"BM25": candidates}
    for label, model in models.items():
        scorer = PairScorer(str(model), max_length=args.max_length, batch_size=args.batch_size)
        name = label.split()[0].strip("()")
        runs[label] = rerank(test, candidates, scorer, out / "test" / f"{name}.run", query_ids=query_ids, tag=name)
    qrels = {qid: test.qrels[qid] for qid in query_ids if qid in candidates}
    evaluations = {
        label: evaluate_run({q: r for q, r in run.items() if q in qrels}, qrels, MEASURES, test.relevance_level)
        for label, run in runs.items()
    }
    comparison = compare(
        f"{test.name} ({len(qrels)} queries)", evaluations, MEASURES, reference=START,
        permutations=args.permutations, seed=args.seed,
    )  # fmt: skip
    comparison.save_json(out / "comparison.json")
    table = markdown_table(comparison)
    (out / "table.md").write_text(table, encoding="utf-8")
    (out / "cpu_seconds.json").write_text(json.dumps(cpu, indent=1), encoding="utf-8")
    print(
        f"pre-training {args.pretrain_steps} steps each from {args.start_model}; fine-tuning {args.finetune_steps} "
        "steps each on the #train groups, chosen on #dev; test: #heldout, BM25 top "
        f"{args.depth} re-ranked; * / † = significantly worse / better than {START} (Fisher, p < 0.05)\n\n{table}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
