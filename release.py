"""The main job: from a Wikipedia dump to a published Wikiformer model and its four task datasets.

    python release.py [--system wikiformer|prop|harp] [--output-dir output/release] [--push-to-hub NAMESPACE]

On a fresh machine with no argument it runs the CPU demo on the vendored real data: the enwiki dump sample →
the SRR, RWI, ATI and LTM datasets with cards → pre-training with ``configs/demo-cpu.yaml`` (the embedded
all-MiniLM-L6-v2) → zero-shot re-ranking of the vendored TREC DL 2020 sample against BM25 → a Hub-ready model
folder with a model card that carries the measured results. Each stage is the project's own command line, shown
as it runs, so any stage can also be run alone:

1. ``datasets``: ``python -m dataset_scripts.build`` → ``OUT/datasets/wikiformer-<task>/``
2. ``train``: ``python train.py CONFIG`` → ``OUT/train/``
3. ``export``: the trained model as a Hub-ready folder → ``OUT/wikiformer/``
4. ``eval``: ``python -m eval tune-fusion --save`` (the fusion with BM25, chosen on the eval queries and stored
   in the model's ``config.json``), ``python -m eval rerank`` (this model raw and fused, and MiniLM with an
   untrained head) and ``python -m eval compare`` against the collection's BM25 run → ``OUT/eval/``
5. ``card``: ``model_card.md`` rendered with the measured results → ``OUT/wikiformer/README.md``; with
   ``--push-to-hub NS``, ``NS/wikiformer`` and ``NS/wikiformer-<task>`` are created or updated.

With ``--wikir``, a WIKIR collection is built from the same corpus (``python -m dataset_scripts.wikir`` →
``OUT/wikir/``, stage ``wikir`` after ``datasets``) and the eval stage also re-ranks its test split
(``OUT/eval/wikir/``); ``--select-on-wikir`` makes training keep the checkpoint that is best on its validation
split instead of on ``--eval-collection``.

``--system prop`` or ``--system harp`` runs the same job for the two baselines the paper compares with (their
tasks, ``configs/{prop,harp}-demo-cpu.yaml`` at the Wikiformer demo's budget, ``OUT/{prop,harp}/``; the output folder
defaults to ``output/release-<system>``).

A rerun reuses every stage that finished with the same command (``OUT/stages/*.json``); ``--redo STAGE`` runs
one again (and the stages after it).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

from dataset_scripts.tasks.registry import SYSTEMS

ROOT = Path(__file__).resolve().parent
STAGES = ("datasets", "wikir", "train", "export", "eval", "card")
DEFAULT_STAGES = tuple(s for s in STAGES if s != "wikir")  # --wikir adds it
SAMPLE_WIKIR_ARGS = "--min-links 1 --validation-size 5 --test-size 5 --bm25-k 20"
"""WIKIR settings for the 106-article vendored sample (at the defaults only Angola has 5 linking documents)."""
TASKS = SYSTEMS["wikiformer"]
DEMO_CONFIGS = {
    "wikiformer": "configs/demo-cpu.yaml",
    "prop": "configs/prop-demo-cpu.yaml",
    "harp": "configs/harp-demo-cpu.yaml",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--input",
        nargs="+",
        default=[str(ROOT / "data/samples/wikipedia/enwiki-sample.xml.bz2")],
        help="dump files, folders or a built corpus (default: the vendored enwiki sample)",
    )
    parser.add_argument("--system", choices=tuple(SYSTEMS), default="wikiformer", help="the pre-training method")
    parser.add_argument("--output-dir", default=None, help="default: output/release (output/release-<system>)")
    parser.add_argument("--config", default=None, help="training config for train.py (default: the system's demo)")
    parser.add_argument(
        "--eval-collection",
        default=str(ROOT / "data/samples/eval/dl20-mini"),
        help="a collection with candidates and qrels (see python -m eval --help)",
    )
    parser.add_argument("--eval-candidates", default="bm25", help="the collection's run to re-rank")
    parser.add_argument("--eval-max-queries", type=int, default=None)
    parser.add_argument("--eval-depth", type=int, default=20, help="candidates re-ranked per query")
    parser.add_argument("--eval-max-length", type=int, default=256)
    parser.add_argument("--max-steps", type=int, default=None, help="override the config's max_steps")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--num-proc", type=int, default=1)
    parser.add_argument(
        "--build-args",
        default="",
        help="more options for python -m dataset_scripts.build (every corpus and sampling option), e.g. "
        "\"--language ltg --see-also-title 'Verīs taipoš' --read-ahead off\"",
    )
    parser.add_argument("--namespace", default=None, help="Hub namespace named in the cards (default: --push-to-hub's)")
    parser.add_argument("--push-to-hub", metavar="NAMESPACE", default=None)
    parser.add_argument("--private", action="store_true")
    parser.add_argument(
        "--stages", default=",".join(DEFAULT_STAGES), help="comma-separated subset of " + ",".join(STAGES)
    )
    parser.add_argument("--wikir", action="store_true", help="build a WIKIR collection and report on its test split")
    parser.add_argument(
        "--wikir-args",
        default=None,
        help=f"options for python -m dataset_scripts.wikir (default: its own, or {SAMPLE_WIKIR_ARGS!r} on the sample)",
    )
    parser.add_argument(
        "--select-on-wikir",
        action="store_true",
        help="select checkpoints on the WIKIR validation split (implies --wikir)",
    )
    parser.add_argument("--redo", choices=STAGES, default=None, help="run this stage again, and those after it")
    parser.add_argument(
        "--verbose", action="store_true", help="show every command's own output (default: OUT/logs/<stage>.log)"
    )
    args = parser.parse_args(argv)
    args.output_dir = args.output_dir or ("output/release" + ("" if args.system == "wikiformer" else f"-{args.system}"))
    args.config = args.config or str(ROOT / DEMO_CONFIGS[args.system])
    return args


class Stages:
    """Runs stage commands, recording each finished one so that a rerun with the same command reuses it.

    By default each stage is one console line (and a progress bar on a terminal, following the command's own
    bars): the commands' full output goes to ``OUT/logs/<stage>.log``, and its tail is shown if a command fails.
    With ``verbose`` the commands print to the console as they run.
    """

    def __init__(self, output_dir: Path, redo: str | None, verbose: bool = False):
        self.record_dir = output_dir / "stages"
        self.record_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir = output_dir / "logs"
        self.redo_from = STAGES.index(redo) if redo else len(STAGES)
        self.verbose = verbose

    def done(self, stage: str, signature: object) -> bool:
        record = self.record_dir / f"{stage}.json"
        if STAGES.index(stage) >= self.redo_from or not record.exists():
            return False
        return json.loads(record.read_text(encoding="utf-8")) == signature

    def finish(self, stage: str, signature: object) -> None:
        (self.record_dir / f"{stage}.json").write_text(json.dumps(signature, indent=1), encoding="utf-8")

    def run(self, stage: str, commands: list[list[str]], describe=None) -> None:
        """Run the stage's commands (each a subprocess in the project root) unless already done.

        ``describe``, if given, returns what the stage produced, for its console line.
        """
        signature = [command[1:] for command in commands]  # not the interpreter path
        if self.done(stage, signature):
            print(f"[{stage}] finished earlier with the same command: reused", flush=True)
            return
        started = time.monotonic()
        log = self.log_dir / f"{stage}.log"
        if not self.verbose:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log.write_text("", encoding="utf-8")
        for command in commands:
            shown = shlex.join(["python", *command[1:]])
            if self.verbose:
                print(f"[{stage}] $ {shown}", flush=True)
                returncode = subprocess.run(command, cwd=ROOT).returncode
            else:
                returncode = run_logged(command, log, f"[{stage}]", shown)
            if returncode != 0:
                if not self.verbose:
                    tail = log.read_text(encoding="utf-8", errors="replace").replace("\r", "\n").splitlines()
                    print("\n".join(line for line in tail[-40:] if line.strip()), file=sys.stderr)
                    print(f"[{stage}] $ {shown}", file=sys.stderr)
                where = "" if self.verbose else f" (full output: {log})"
                raise SystemExit(
                    f"[{stage}] failed (exit {returncode}){where}; fix it and rerun: finished stages are reused"
                )
        self.finish(stage, signature)
        produced = describe() if describe else ""
        where = "" if self.verbose else f" · log: {_short(log)}"
        print(f"[{stage}] done in {_duration(time.monotonic() - started)}{produced and ': ' + produced}{where}")


_PROGRESS = re.compile(rb"(\d+)/(\d+) \[")
"""A tqdm bar's ``n/total [``, as the stage commands print them."""


def run_logged(command: list[str], log: Path, label: str, shown: str) -> int:
    """Run ``command`` with its output appended to ``log``; on a terminal a bar follows the command's own bars."""
    from tqdm.auto import tqdm

    with log.open("ab") as sink, tqdm(desc=label, total=0, leave=False, disable=None, dynamic_ncols=True) as bar:
        sink.write(f"$ {shown}\n".encode())
        sink.flush()
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        while chunk := process.stdout.read1(65536):
            sink.write(chunk)
            sink.flush()  # the log can be followed while the stage runs
            found = _PROGRESS.findall(chunk)
            if found and not bar.disable:
                done, total = map(int, found[-1])
                bar.total, bar.n = total, done
                bar.refresh()
        return process.wait()


def _short(path: Path) -> str:
    """``path`` relative to the working directory where it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds // 60:.0f} min {seconds % 60:02.0f} s"


def task_dirs(out: Path, tasks: tuple[str, ...] = TASKS) -> list[Path]:
    """The task dataset folders the build wrote, in the paper's order."""
    return [
        out / "datasets" / f"wikiformer-{task}" for task in tasks if (out / "datasets" / f"wikiformer-{task}").is_dir()
    ]


def task_settings(config: dict, datasets: list[Path]) -> list[str]:
    """``train.py`` flags giving each built task the weight and lengths its entry in the config has (a build can
    leave a task without rows, e.g. HARP's QDM on a small corpus, and the per-task lists must then shrink)."""
    names = [Path(d).name for d in config.get("train_datasets", [])]
    flags = []
    for key in ("task_weights", "query_max_lengths", "doc_max_lengths"):
        values = config.get(key)
        if isinstance(values, list) and len(values) == len(names) > 1:
            flags += [f"--{key}", *(str(values[names.index(d.name)]) for d in datasets)]
    return flags


def export_model(train_dir: Path, model_dir: Path, max_length: int) -> None:
    """Save the trained model as a Hub-ready folder (weights, config with auto_map, code, tokenizer, CrossEncoder files)
    with one maximum pair length for every loader: the length it was evaluated at."""
    from transformers import AutoTokenizer

    from modeling_wikiformer import WikiformerForRanking, save_for_hub

    model = WikiformerForRanking.from_pretrained(train_dir)
    model.config.query_max_length = min(model.config.query_max_length, max_length // 2)
    model.config.document_max_length = max_length - model.config.query_max_length - 3  # [CLS], 2 x [SEP]
    tokenizer = AutoTokenizer.from_pretrained(train_dir)
    save_for_hub(model, tokenizer, model_dir, max_length=max_length)


def fresh_head_baseline(config: dict, model_dir: Path, seed: int) -> None:
    """The starting checkpoint with an untrained (seeded random) head: what the evaluation compares against."""
    import torch
    from transformers import AutoTokenizer

    from modeling_wikiformer import WikiformerForRanking, save_for_hub
    from train import resolve_model_path

    path = resolve_model_path(config.get("model_name_or_path", "embedded:minilm"))
    torch.manual_seed(seed)
    # the new head is this baseline's point; its "randomly initialised head" notice would read as the model's
    notices = logging.getLogger("transformers.wikiformer")
    level = notices.level
    notices.setLevel(logging.ERROR)
    try:
        model = WikiformerForRanking.from_bert(path)
    finally:
        notices.setLevel(level)
    save_for_hub(model, AutoTokenizer.from_pretrained(path), model_dir)


def training_recipe(config: dict, overrides: dict, train_dir: Path) -> dict:
    """The settings the checkpoint was trained with, and what training reports it did."""
    keys = (
        "model_name_or_path",
        "learning_rate",
        "lr_drop_step",
        "lr_drop_factor",
        "warmup_steps",
        "max_steps",
        "per_device_train_batch_size",
        "gradient_accumulation_steps",
        "group_size",
        "query_max_lengths",
        "doc_max_lengths",
        "task_weights",
        "bf16",
        "seed",
        "metric_for_best_model",
    )
    recipe = {key: value for key, value in {**config, **overrides}.items() if key in keys}
    state_path = train_dir / "trainer_state.json"
    if state_path.exists():
        state = json.loads(state_path.read_text(encoding="utf-8"))
        recipe["optimizer steps run"] = state.get("global_step")
        if state.get("best_metric") is not None:
            recipe["best zero-shot eval metric during training"] = round(state["best_metric"], 4)
    return recipe


def main(argv: list[str] | None = None) -> int:
    """Run the selected stages."""
    args = parse_args(argv)
    out = Path(args.output_dir).resolve()
    selected = [s.strip() for s in args.stages.split(",") if s.strip()]
    if (args.wikir or args.select_on_wikir) and "wikir" not in selected:
        selected.append("wikir")
    unknown = sorted(set(selected) - set(STAGES))
    if unknown:
        raise SystemExit(f"unknown stage(s) {', '.join(unknown)}; choose from {', '.join(STAGES)}")
    namespace = args.namespace or args.push_to_hub or "your-namespace"
    stages = Stages(out, args.redo, args.verbose)
    started = time.monotonic()
    python = sys.executable
    config = yaml.safe_load(Path(args.config).read_text(encoding="utf-8")) or {}
    system, tasks = args.system, SYSTEMS[args.system]
    model_dir, train_dir, eval_dir = out / system, out / "train", out / "eval"

    if "datasets" in selected:
        stages.run(
            "datasets",
            [
                [
                    python,
                    "-m",
                    "dataset_scripts.build",
                    "--input",
                    *args.input,
                    "--output-dir",
                    str(out / "datasets"),
                    "--tasks",
                    ",".join(tasks),
                    "--seed",
                    str(args.seed),
                    "--num-proc",
                    str(args.num_proc),
                    *shlex.split(args.build_args),
                ]
            ],
            describe=lambda: describe_datasets(out, tasks),
        )
    wikir_dir = out / "wikir"
    if "wikir" in selected:
        stages.run("wikir", [wikir_command(python, args, out)])
    overrides = {"seed": args.seed, **({"max_steps": args.max_steps} if args.max_steps else {})}
    if "train" in selected:
        datasets = task_dirs(out, tasks)
        summary = out / "datasets" / ".build" / "summary.json"
        if system != "wikiformer" and summary.exists():  # a baseline task without rows is an empty dataset: skip it
            rows = json.loads(summary.read_text(encoding="utf-8"))
            datasets = [d for d in datasets if rows.get(d.name.removeprefix("wikiformer-"), {}).get("rows", 1) > 0]
        if not datasets or (system == "wikiformer" and len(datasets) != len(config.get("train_datasets", TASKS))):
            raise SystemExit(
                f"the config trains on {len(config.get('train_datasets', []))} tasks but "
                f"{out / 'datasets'} holds {len(datasets)}: run the datasets stage first"
            )
        command = [
            python,
            "train.py",
            args.config,
            "--train_datasets",
            *map(str, datasets),
            "--output_dir",
            str(train_dir),
            "--eval_dir",
            str(wikir_dir / "validation") if args.select_on_wikir else args.eval_collection,
        ]
        command += task_settings(config, datasets) if len(datasets) != len(config.get("train_datasets", [])) else []
        command += ["--test_dirs", str(wikir_dir / "test")] if args.select_on_wikir else []
        command += [item for key, value in overrides.items() for item in (f"--{key}", str(value))]
        stages.run("train", [command], describe=lambda: describe_training(train_dir))
    if "export" in selected:
        if not stages.done("export", [str(train_dir), args.eval_max_length]):
            if not args.verbose:  # in-process: no loading and writing bars on the console
                from huggingface_hub.utils import disable_progress_bars
                from transformers.utils.logging import disable_progress_bar

                disable_progress_bar()
                disable_progress_bars()
            export_model(train_dir, model_dir, args.eval_max_length)
            fresh_head_baseline(config, out / "baseline" / "minilm-fresh-head", args.seed)
            stages.finish("export", [str(train_dir), args.eval_max_length])
            stages.redo_from = min(stages.redo_from, STAGES.index("eval"))  # eval stores the fusion in config.json
            print(f"[export] done: {_short(model_dir)} (and the untrained-head baseline for the comparison)")
    if "eval" in selected:
        # The same top-k of the collection's BM25 run for every system, so the comparison is like for like.
        common = [
            "--collection",
            args.eval_collection,
            "--candidates",
            args.eval_candidates,
            "--k",
            str(args.eval_depth),
            "--max-length",
            str(args.eval_max_length),
        ]
        common += ["--max-queries", str(args.eval_max_queries)] if args.eval_max_queries else []
        model_fusion = eval_dir / "fusion"
        commands = [
            # the fusion with BM25 is chosen on these (dev) queries and stored in the model's config.json
            [python, "-m", "eval", "tune-fusion", "--model", str(model_dir), "--save", "--no-resume",
             "--output-dir", str(model_fusion), *common],
        ]  # fmt: skip
        runs = []
        for tag, model in ((system, model_dir), ("minilm-fresh-head", out / "baseline" / "minilm-fresh-head")):
            commands.append(
                [
                    python,
                    "-m",
                    "eval",
                    "rerank",
                    "--model",
                    str(model),
                    "--tag",
                    tag,
                    "--no-resume",
                    "--output-dir",
                    str(eval_dir / tag),
                    *common,
                ]
            )
            runs.append(f"{tag}={eval_dir / tag / f'{tag}.run'}")
        fused = f"{system}+{args.eval_candidates}"
        runs.insert(1, f"{fused}={eval_dir / system / f'{fused}.run'}")
        first_stage = f"bm25={eval_dir / system / (args.eval_candidates + '.run')}"
        commands.append(
            [
                python,
                "-m",
                "eval",
                "compare",
                first_stage,
                *runs,
                "--collection",
                args.eval_collection,
                "--reference",
                fused,
                "--output-dir",
                str(eval_dir / "compare"),
                "--seed",
                str(args.seed),
            ]
        )
        if "wikir" in selected:
            commands += wikir_eval_commands(python, args, out, eval_dir / "wikir")
        stages.run("eval", commands, describe=lambda: f"{_short(eval_dir)}")
    if "card" in selected:
        name_dataset_cards(out, tasks, namespace)
        path = write_card(out, model_dir, eval_dir, namespace, config, overrides, args)
        print(f"[card] done: {_short(path)}")
        if args.push_to_hub:
            push(out, model_dir, args.push_to_hub, args.private, system)
    print(closing_summary(args, out, model_dir, eval_dir, tasks, selected, time.monotonic() - started))
    return 0


def describe_datasets(out: Path, tasks: tuple[str, ...]) -> str:
    """Rows per task dataset, from the build's summary."""
    path = out / "datasets" / ".build" / "summary.json"
    if not path.exists():
        return _short(out / "datasets")
    rows = json.loads(path.read_text(encoding="utf-8"))
    return ", ".join(f"{task} {rows.get(task, {}).get('rows', 0):,} rows" for task in tasks)


def describe_training(train_dir: Path) -> str:
    """Steps run and the kept checkpoint's zero-shot metric, from the trainer's state."""
    path = train_dir / "trainer_state.json"
    if not path.exists():
        return _short(train_dir)
    state = json.loads(path.read_text(encoding="utf-8"))
    best = state.get("best_metric")
    kept = (
        f", kept step {Path(state['best_model_checkpoint']).name.split('-')[-1]}"
        if state.get("best_model_checkpoint")
        else ""
    )
    metric = f" (best dev metric {best:.4f}{kept})" if best is not None else ""
    return f"{state.get('global_step')} steps{metric}"


def closing_summary(
    args, out: Path, model_dir: Path, eval_dir: Path, tasks, selected: list[str], seconds: float
) -> str:
    """The closing lines: where everything is, the results table (once) and what to do next."""
    lines = [f"\nFinished in {_duration(seconds)}."]
    table = eval_dir / "compare" / "table.md"
    if table.exists() and not args.verbose:  # with --verbose the compare command has just printed it
        lines += [f"Re-ranking {_short(Path(args.eval_collection))} ({args.eval_candidates} top {args.eval_depth}):",
                  table.read_text(encoding="utf-8").strip()]  # fmt: skip
    wikir_table = eval_dir / "wikir" / "compare" / "table.md"
    if "wikir" in selected and wikir_table.exists() and not args.verbose:
        lines += ["WIKIR test split:", wikir_table.read_text(encoding="utf-8").strip()]
    lines += [
        f"model:    {_short(model_dir)}  (card: {_short(model_dir / 'README.md')})",
        f"datasets: {_short(out / 'datasets')}/wikiformer-{{{','.join(tasks)}}}",
        f"results:  {_short(eval_dir / 'compare')}  (per-query figures, significance, chart)",
    ]
    if not args.verbose:
        lines.append(f"logs:     {_short(out / 'logs')}  (or rerun with --verbose)")
    if (model_dir / "config.json").exists():
        lines += [
            "Next:",
            f'  python -c "from sentence_transformers import CrossEncoder; '
            f"print(CrossEncoder('{_short(model_dir)}').predict([('what is albedo', 'Albedo is the fraction of "
            "light a surface reflects.'), ('what is albedo', 'Paris is in France.')]))\"",
            f"  python -m eval rerank --model {_short(model_dir)} --collection YOUR_COLLECTION --output-dir OUT  (docs/evaluation.md)",
        ]
        if not args.push_to_hub:
            lines.append("  python release.py --push-to-hub NAMESPACE   (publishes the model and datasets; "
                         "finished stages are reused)")  # fmt: skip
    return "\n".join(lines)


def wikir_command(python: str, args, out: Path) -> list[str]:
    """``python -m dataset_scripts.wikir`` on the corpus the datasets stage built (else on ``--input``)."""
    corpus = out / "datasets" / "corpus"
    inputs = [str(corpus)] if any((corpus / "data").glob("*.parquet")) else list(args.input)
    on_sample = [str(Path(p).resolve()) for p in args.input] == [
        str(ROOT / "data/samples/wikipedia/enwiki-sample.xml.bz2")
    ]
    extra = args.wikir_args if args.wikir_args is not None else (SAMPLE_WIKIR_ARGS if on_sample else "")
    command = [python, "-m", "dataset_scripts.wikir", "--input", *inputs, "--output-dir", str(out / "wikir")]
    return command + ["--num-proc", str(args.num_proc), *shlex.split(extra)]


def wikir_eval_commands(python: str, args, out: Path, eval_dir: Path) -> list[list[str]]:
    """Re-rank the WIKIR test split's BM25 run with the model and the fresh-head baseline, then compare."""
    collection = str(out / "wikir" / "test")
    common = ["--collection", collection, "--candidates", "bm25", "--k", str(args.eval_depth)]
    common += ["--max-length", str(args.eval_max_length), "--no-resume"]
    common += ["--max-queries", str(args.eval_max_queries)] if args.eval_max_queries else []
    commands, runs = [], []
    for tag, model in (
        (args.system, out / args.system),
        ("minilm-fresh-head", out / "baseline" / "minilm-fresh-head"),
    ):
        commands.append([python, "-m", "eval", "rerank", "--model", str(model), "--tag", tag, "--output-dir",
                         str(eval_dir / tag), *common])  # fmt: skip
        runs.append(f"{tag}={eval_dir / tag / f'{tag}.run'}")
    compare = [python, "-m", "eval", "compare", f"bm25={eval_dir / args.system / 'bm25.run'}", *runs]
    compare += ["--collection", collection, "--reference", args.system, "--output-dir", str(eval_dir / "compare")]
    return commands + [compare + ["--seed", str(args.seed)]]


def write_card(out: Path, model_dir: Path, eval_dir: Path, namespace: str, config: dict, overrides: dict, args) -> Path:
    """Render the model card from what this run measured."""
    from eval.collections import load_collection
    from model_card import CardInputs, Evaluation, write_model_card

    evaluation = None
    system = args.system
    metrics = eval_dir / system / "metrics.json"
    if metrics.exists():
        name = load_collection(args.eval_collection).name  # eval's reader: the one that knows collection.json
        fused = f"{system}+{args.eval_candidates}"
        evaluation = Evaluation.from_metrics_json(
            metrics,
            system,
            name,
            fused_system=fused if fused in json.loads(metrics.read_text(encoding="utf-8")) else None,
            setup={"candidates": args.eval_candidates, "depth": args.eval_depth, "max_length": args.eval_max_length}
            | ({"max_queries": args.eval_max_queries} if args.eval_max_queries else {}),
            note=(
                f"Candidates: the collection's `{args.eval_candidates}` run, top {args.eval_depth} re-ranked per query"
                + (f", first {args.eval_max_queries} queries" if args.eval_max_queries else "")
                + f"; pairs truncated to {args.eval_max_length} tokens. `{fused}` is this model fused with the "
                "first stage as stored in `config.json` (chosen on these same queries, which also chose the "
                "checkpoint: dev figures, not a test result). `minilm-fresh-head` is the starting checkpoint with "
                "an untrained head. Produced by `python release.py` of the Wikiformer kit."
            ),
        )
        baseline = eval_dir / "minilm-fresh-head" / "metrics.json"
        if baseline.exists():
            evaluation.systems["minilm-fresh-head"] = json.loads(baseline.read_text())["minilm-fresh-head"]["means"]
    stored = json.loads((model_dir / "config.json").read_text(encoding="utf-8")) if model_dir.exists() else {}
    fusion = (
        (stored["fusion_method"], stored.get("fusion_alpha", 0.7), stored.get("fusion_dev_collection", ""))
        if stored.get("fusion_method")
        else None
    )
    datasets = [
        (
            f"{namespace}/{path.name}",
            (path / "README.md").exists() and f"built from {', '.join(Path(p).name for p in args.input)}",
        )
        for path in task_dirs(out, SYSTEMS[system])
    ]
    from train import EMBEDDED_MINILM

    base = config.get("model_name_or_path", EMBEDDED_MINILM)
    inputs = CardInputs(
        repo_id=f"{namespace}/{system}",
        base_model="sentence-transformers/all-MiniLM-L6-v2" if base == EMBEDDED_MINILM else base,
        training_datasets=[(name, description or "") for name, description in datasets],
        recipe=training_recipe(config, overrides, out / "train"),
        max_length=args.eval_max_length,
        evaluation=evaluation,
        fusion=fusion,
        method=system,
        chart=copy_chart(eval_dir / "compare" / "chart.png", model_dir),
    )
    return write_model_card(model_dir, inputs)


def name_dataset_cards(out: Path, tasks: tuple[str, ...], namespace: str) -> None:
    """Put the Hub namespace into the dataset cards' loading snippets (the build writes a placeholder)."""
    if namespace == "your-namespace":
        return
    for folder in task_dirs(out, tasks):
        card = folder / "README.md"
        if card.exists():
            text = card.read_text(encoding="utf-8")
            card.write_text(text.replace("<namespace>/wikiformer-", f"{namespace}/wikiformer-"), encoding="utf-8")


def copy_chart(chart: Path, model_dir: Path) -> str | None:
    """Copy the comparison chart into the model folder (the card shows it); its name there, or None."""
    from model_card import CHART

    if not chart.exists() or not model_dir.is_dir():
        return None
    shutil.copyfile(chart, model_dir / CHART)
    return CHART


def push(out: Path, model_dir: Path, namespace: str, private: bool, system: str = "wikiformer") -> None:
    """Create or update ``NS/<system>`` and ``NS/wikiformer-<task>`` with the real Hub client."""
    from huggingface_hub import HfApi

    from dataset_scripts.hub.publish import push_dataset_folder

    api = HfApi()
    repo_id = f"{namespace}/{system}"
    api.create_repo(repo_id, private=private, exist_ok=True)
    api.upload_folder(folder_path=str(model_dir), repo_id=repo_id, commit_message=f"{system} release")
    print(f"[push] {model_dir} -> {repo_id}")
    for folder in task_dirs(out, SYSTEMS[system]):
        push_dataset_folder(folder, f"{namespace}/{folder.name}", private=private)
        print(f"[push] {folder} -> {namespace}/{folder.name}")
    summary = out / "wikir" / ".build" / "summary.json"
    if summary.exists():
        from dataset_scripts.wikir.__main__ import push as push_wikir

        repo = f"{namespace}/wikir-{json.loads(summary.read_text(encoding='utf-8'))['language'] or 'xx'}"
        push_wikir(out / "wikir", repo, private)
        print(f"[push] {out / 'wikir'} -> {repo}")


if __name__ == "__main__":
    sys.exit(main())
