"""The effectiveness study: train with a step budget, then re-rank TREC DL 2020, Cranfield and NPL zero-shot.

Its tables: docs/evaluation.md. Learning curve, ablation and data-size studies, each row raw and fused with the first
stage, with Fisher's randomization test against BM25; no checkpoint is selected on test queries::

    python -m experiments.effectiveness --config configs/cpu-hour.yaml --steps 1500 --device cuda --input WIKIPEDIA_FILES --data irds

Method: docs/benchmarks.md ("How each experiment runs", ``effectiveness``).
"""

from __future__ import annotations

import argparse
import json
import logging
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from wikiformer_kit.benchmarks.common import ENWIKI_SAMPLE, SHARED_DATA, TASKS, build_task_datasets
from wikiformer_kit.benchmarks.device import add_device_arguments, describe, resolve_device
from wikiformer_kit.eval.collections import Collection, Run, write_trec_run
from wikiformer_kit.eval.metrics import evaluate_run
from wikiformer_kit.eval.report import compare
from wikiformer_kit.eval.rerank import PairScorer, fuse_run, rerank, tune_fusion
from wikiformer_kit.eval.splits import load_collection_part, same_source, split_spec
from wikiformer_kit.training.evaluation import first_stage_candidates

PROJECT_ROOT = Path(__file__).resolve().parent.parent

COLLECTIONS = {
    # name: (folder under --data, relevance level for binary measures)
    "dl20": ("trec_dl20_passage", 2),
    "cranfield": ("cranfield", 1),
    "npl": ("npl", 1),
}
IRDS_IDS = {"dl20": "msmarco-passage/trec-dl-2020/judged", "cranfield": "cranfield", "npl": "vaswani"}
"""The collections' ir_datasets ids, read with ``--data irds``."""
IRDS_DATA = "irds"
STUDIES = ("curve", "ablation", "size")
MEASURE = "nDCG@10"


@dataclass(frozen=True)
class Variant:
    """One training run: which tasks, how many groups per task, and where it writes."""

    name: str
    tasks: tuple[str, ...]
    max_train_samples: int | None = None

    @property
    def folder(self) -> str:
        return slug(self.name)


def slug(name: str) -> str:
    """A row's name as a file name and run tag."""
    return name.replace(" ", "_").replace(",", "").replace("/", "-")


def variants(studies: list[str], sizes: list[int]) -> list[Variant]:
    """The training runs the chosen studies need (the four-task run is shared)."""
    runs = [Variant("all tasks", TASKS)]
    if "ablation" in studies:
        runs += [Variant(f"without {t.upper()}", tuple(x for x in TASKS if x != t)) for t in TASKS]
        runs += [Variant(f"{t.upper()} only", (t,)) for t in TASKS]
    if "size" in studies:
        runs += [Variant(f"all tasks, {n} groups/task", TASKS, n) for n in sizes]
    return runs


def tasks_folder(args: argparse.Namespace) -> Path:
    """Where the task datasets are (``--tasks-dir``), or are built from ``--input`` when missing."""
    return Path(args.tasks_dir or Path(args.output_dir) / "datasets")


def _per_task(config: dict, key: str, tasks: tuple[str, ...]) -> list[str]:
    values = config.get(key)
    if not isinstance(values, list) or len(values) != len(TASKS):
        return [str(values)] if values is not None and not isinstance(values, list) else []
    return [str(values[TASKS.index(t)]) for t in tasks]


def training_config(args: argparse.Namespace, config: dict) -> Path:
    """The config without its test collections: this script evaluates every row itself, on every collection."""
    path = Path(args.output_dir) / "train-config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({k: v for k, v in config.items() if k != "test_dirs"}), encoding="utf-8")
    return path


def train(variant: Variant, args: argparse.Namespace, tasks_dir: Path, config: dict) -> list[tuple[int, Path]]:
    """Train one variant for ``--steps`` (resumable: a finished run is reused); ``[(step, checkpoint)]``."""
    out = Path(args.output_dir) / "models" / variant.folder
    curve = variant.name == "all tasks" and "curve" in args.studies
    every = max(1, args.steps // args.curve_points) if curve else args.steps
    if not (out / "config.json").exists():
        command = [sys.executable, "train.py", str(training_config(args, config))]
        command += ["--output_dir", str(out), "--max_steps", str(args.steps)]
        command += ["--train_datasets", *(str(tasks_dir / f"wikiformer-{t}") for t in variant.tasks)]
        for key in ("task_weights", "query_max_lengths", "doc_max_lengths"):
            values = _per_task(config, key, variant.tasks)
            if values:
                command += [f"--{key}", *values]
        if config.get("lr_drop_step") and config.get("max_steps"):  # the config's schedule, scaled to the budget
            command += ["--lr_drop_step", str(int(config["lr_drop_step"] * args.steps / config["max_steps"]))]
        command += ["--eval_strategy", "no", "--load_best_model_at_end", "false", "--save_strategy", "steps"]
        command += ["--save_steps", str(every), "--save_total_limit", str(args.curve_points + 1)]
        command += ["--use_cpu", str(args.device == "cpu").lower(), "--bf16", str(args.bf16).lower()]
        command += ["--report_to", "none", "--seed", str(args.seed)]
        if variant.max_train_samples:
            command += ["--max_train_samples", str(variant.max_train_samples)]
        print("$", " ".join(command), flush=True)
        subprocess.run(command, cwd=PROJECT_ROOT, check=True)
    checkpoints = sorted(
        ((int(p.name.split("-")[1]), p) for p in out.glob("checkpoint-*") if (p / "config.json").exists()),
        key=lambda item: item[0],
    )
    points = [(step, path) for step, path in checkpoints if curve and step % every == 0 and step < args.steps]
    return points + [(args.steps, out)]


@dataclass
class Bench:
    """The collections, their BM25 candidates, and every system's per-query values."""

    collections: dict[str, tuple[Collection, list[str], Run]]
    args: argparse.Namespace

    def evaluate(self, label: str, checkpoint: Path, fusion: tuple[str, float]) -> dict[str, dict[str, Run]]:
        """Re-rank every collection with a checkpoint: ``{collection: {"raw": run, "fused": run}}``."""
        scorer = PairScorer(str(checkpoint), self.args.max_length, self.args.batch_size, self.args.device)
        runs = {}
        for name, (collection, query_ids, candidates) in self.collections.items():
            tag = slug(label)
            path = Path(self.args.output_dir) / "runs" / name / f"{tag}.run"
            raw = rerank(collection, candidates, scorer, path, query_ids=query_ids, tag=tag)
            runs[name] = {"raw": raw, "fused": fuse_run(raw, candidates, *fusion)}
        return runs

    def table(self, title: str, rows: dict[str, dict[str, dict[str, Run]]]) -> str:
        """Markdown: a row per system, raw and fused nDCG@10 per collection, marks from Fisher's test vs BM25."""
        header = "| " + title + " | " + " | ".join(f"{c} raw | {c} fused" for c in self.collections) + " |"
        lines = [header, "|---" + "|---:" * 2 * len(self.collections) + "|"]
        bm25_cells = []
        results: dict[str, dict] = {}
        for name, (collection, query_ids, candidates) in self.collections.items():
            qrels = {q: collection.qrels[q] for q in query_ids}
            runs = {"BM25": candidates} | {
                f"{system} ({kind})": row[name][kind] for system, row in rows.items() for kind in ("raw", "fused")
            }
            evaluations = {
                label: evaluate_run(run, qrels, [MEASURE], collection.relevance_level) for label, run in runs.items()
            }
            reference = "BM25" if len(query_ids) > 1 else None  # a paired test needs two queries
            comparison = compare(
                name, evaluations, [MEASURE], reference, permutations=self.args.permutations, seed=self.args.seed
            )
            results[name] = comparison.to_dict()
            bm25_cells += [f"{comparison.means['BM25'][MEASURE]:.4f}"] * 2
        lines.append("| BM25 | " + " | ".join(bm25_cells) + " |")
        for system in rows:
            cells = []
            for name in self.collections:
                result = results[name]
                for kind in ("raw", "fused"):
                    key = f"{system} ({kind})"
                    value, base = result["means"][key][MEASURE], result["means"]["BM25"][MEASURE]
                    significant = result["p_values"].get(key, {}).get(MEASURE, 1.0) < 0.05
                    cells.append(f"{value:.4f}" + ((" ▲" if value > base else " ▼") if significant else ""))
            lines.append(f"| {system} | " + " | ".join(cells) + " |")
        out = Path(self.args.output_dir) / "tables"
        out.mkdir(parents=True, exist_ok=True)
        slug = title.split()[0].lower()
        (out / f"{slug}.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        (out / f"{slug}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return "\n".join(lines)


def add_data_argument(parser: argparse.ArgumentParser) -> None:
    """``--data``: where the evaluation collections come from (their public ids, or a local folder)."""
    parser.add_argument(
        "--data",
        default=str(SHARED_DATA / "eval"),
        help="'irds' (the collections by their ir_datasets ids: pip install ir_datasets) or a folder with "
        "trec_dl20_passage/, cranfield/ and npl/ (docs/evaluation.md says where each comes from); the default is the "
        "local copy for development",
    )


def collection_spec(data: str, name: str) -> str:
    """``cranfield#test`` -> ``DATA/cranfield#test`` (``irds:cranfield#test`` with ``--data irds``): the folder or
    id of a study collection, with its query part."""
    base, part = split_spec(name)
    path = f"irds:{IRDS_IDS[base]}" if data == IRDS_DATA else str(Path(data) / COLLECTIONS[base][0])
    return f"{path}#{part}" if part else path


def load_collections(
    args: argparse.Namespace, runs_dir: Path | None = None
) -> dict[str, tuple[Collection, list[str], Run]]:
    """Every test collection found under ``--data``, its judged queries and its BM25 candidates (written to
    ``runs_dir/<collection>/bm25.run``, default ``--output-dir/runs``)."""
    runs_dir = Path(args.output_dir) / "runs" if runs_dir is None else runs_dir
    found = {}
    for name in args.collections:
        spec, level = collection_spec(args.data, name), COLLECTIONS[split_spec(name)[0]][1]
        if args.data != IRDS_DATA and not Path(split_spec(spec)[0]).exists():
            logging.warning("%s: %s not found, skipped", name, split_spec(spec)[0])
            continue
        collection = load_collection_part(spec, relevance_level=level)
        collection.name = name
        query_ids = collection.judged_query_ids()[: args.max_queries]
        candidates = first_stage_candidates(collection, query_ids, args.depth)[1]
        write_trec_run(candidates, runs_dir / name / "bm25.run", tag="bm25")
        found[name] = (collection, query_ids, candidates)
    return found


def choose_fusion(args: argparse.Namespace, checkpoint: Path) -> tuple[str, float]:
    """``--fusion``/``--alpha``, or the fusion of the four-task model chosen by cross-validation on ``--tune-on`` (a
    dev collection; alpha 0, the first stage alone, when no fusion beats it beyond the folds' noise)."""
    if not args.tune_on:
        return args.fusion, args.alpha
    dev = load_collection_part(args.tune_on)
    query_ids = dev.judged_query_ids()
    candidates = first_stage_candidates(dev, query_ids, args.depth)[1]
    scorer = PairScorer(str(checkpoint), args.max_length, args.batch_size, args.device)
    raw = rerank(dev, candidates, scorer, Path(args.output_dir) / "runs" / "dev" / "all_tasks.run", query_ids=query_ids)
    choice = tune_fusion(
        raw, candidates, {q: dev.qrels[q] for q in query_ids}, MEASURE, relevance_level=dev.relevance_level
    )
    print(f"fusion chosen on {dev.name} ({len(query_ids)} queries):\n{choice.table()}\n{choice.summary()}\n")
    return choice.method, choice.alpha


def wikir_validation(args: argparse.Namespace) -> str:
    """The validation split of a WIKIR collection built from the task build's corpus (else from ``--input``) with
    the kit's own command, in ``--output-dir/wikir`` (reused when built)."""
    out = Path(args.output_dir) / "wikir"
    if not (out / "validation" / "collection.json").exists():
        corpus = tasks_folder(args) / "corpus"
        inputs = [str(corpus)] if any((corpus / "data").glob("*.parquet")) else list(args.input)
        command = [sys.executable, "-m", "dataset_scripts.wikir", "--input", *inputs, "--output-dir", str(out)]
        command += shlex.split(args.wikir_args)
        print("$", " ".join(command), flush=True)
        subprocess.run(command, cwd=PROJECT_ROOT, check=True)
    if not (out / "validation" / "collection.json").exists():
        raise SystemExit(f"{out}: the WIKIR build gave no validation queries; give --tune-on DEV or --wikir-args")
    return str(out / "validation")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--config", default=str(PROJECT_ROOT / "wikiformer_kit" / "configs" / "cpu-hour.yaml"), help="training config"
    )
    parser.add_argument("--steps", type=int, default=1500, help="the step budget of every training run")
    add_device_arguments(parser)
    parser.add_argument("--studies", nargs="*", default=list(STUDIES), choices=STUDIES, help="none: --model rows only")
    parser.add_argument(
        "--model", action="append", default=[], metavar="NAME=PATH", help="a trained checkpoint to add (repeatable)"
    )
    parser.add_argument("--curve-points", type=int, default=4, help="learning-curve points (evenly spaced steps)")
    parser.add_argument("--sizes", nargs="+", type=int, default=[100, 300, 1000], help="groups per task")
    parser.add_argument("--tasks-dir", help="folder with wikiformer-{srr,rwi,ati,ltm} (default: built from --input)")
    parser.add_argument("--input", nargs="+", default=[str(ENWIKI_SAMPLE)])
    add_data_argument(parser)
    parser.add_argument(
        "--collections",
        nargs="+",
        default=list(COLLECTIONS),
        metavar="NAME[#PART]",
        help=f"of {', '.join(COLLECTIONS)}; NAME#test for the queries a NAME#dev --tune-on (or training) did not see",
    )
    parser.add_argument("--max-queries", type=int, help="first N judged queries per collection (default: all)")
    parser.add_argument("--depth", type=int, default=100, help="BM25 candidates re-ranked per query")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--fusion", default="zscore", choices=("zscore", "minmax", "rrf"))
    parser.add_argument("--alpha", type=float, default=0.7, help="the re-ranker's weight in the fusion")
    parser.add_argument(
        "--tune-on",
        help="choose the fusion by cross-validation on this dev collection (not DL20, Cranfield or NPL); 'wikir': on "
        "the validation split of a WIKIR collection built from --input",
    )
    parser.add_argument(
        "--wikir-args", default="", help="options for python -m dataset_scripts.wikir (--tune-on wikir)"
    )
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--output-dir", default="/tmp/bench-effectiveness")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    resolve_device(args)
    print(f"device: {describe(args.device)}; bf16 training: {args.bf16}", flush=True)
    if not args.studies and not args.model:
        parser.error("nothing to do: give --studies and/or --model NAME=PATH")
    unknown = [c for c in args.collections if split_spec(c)[0] not in COLLECTIONS]
    if unknown:
        parser.error(f"--collections {' '.join(unknown)}: choose from {', '.join(COLLECTIONS)} (optionally #dev/#test)")
    tests = [collection_spec(args.data, name) for name in args.collections]
    if args.tune_on and any(same_source(args.tune_on, test) for test in tests):
        parser.error(f"--tune-on {args.tune_on} overlaps a test collection of this study; give a dev collection")
    config = yaml.safe_load(Path(args.config).read_text(encoding="utf-8")) or {}
    bench = Bench(load_collections(args), args)
    if not bench.collections:
        raise SystemExit(f"no collection found under {args.data}")
    given = dict(spec.split("=", 1) for spec in args.model)
    if args.studies:  # with the kit's own command, before a WIKIR validation split is built from their corpus
        build_task_datasets(tasks_folder(args), args.input, TASKS, quiet=False)
    if args.tune_on == "wikir":
        args.tune_on = wikir_validation(args)
    planned = variants(args.studies, args.sizes) if args.studies else []
    trained = {variant: train(variant, args, tasks_folder(args), config) for variant in planned}
    full = next((v for v in trained if v.name == "all tasks"), None)
    fusion = choose_fusion(args, trained[full][-1][1] if full else Path(next(iter(given.values()), "")))
    print(f"fusion: {fusion[0]}, alpha {fusion[1]:g}; depth {args.depth}; max length {args.max_length}\n")
    if given:
        print(bench.table("Checkpoints", {n: bench.evaluate(n, Path(p), fusion) for n, p in given.items()}) + "\n")
    final = {v.name: bench.evaluate(v.name, trained[v][-1][1], fusion) for v in trained}
    if "curve" in args.studies:
        points = {
            f"step {step}": bench.evaluate(f"all tasks step {step}", path, fusion) for step, path in trained[full][:-1]
        }
        points[f"step {args.steps}"] = final["all tasks"]
        print(bench.table("Learning curve (four tasks)", points) + "\n")
    if "ablation" in args.studies:
        rows = {name: runs for name, runs in final.items() if "groups/task" not in name}
        print(bench.table("Ablation", rows) + "\n")
    if "size" in args.studies:
        rows = {name: runs for name, runs in final.items() if "groups/task" in name}
        rows[f"all tasks, all groups ({full.name})"] = final["all tasks"]
        print(bench.table("Data size", rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
