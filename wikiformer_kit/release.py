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
4. ``eval``: ``python -m eval tune-fusion --save`` (the fusion with BM25, chosen by cross-validation on the dev
   queries and stored in the model's ``config.json``), then per collection ``python -m eval rerank`` (this model
   raw and fused, and MiniLM with an untrained head) and ``python -m eval compare`` against its BM25 run
   (significance against the first stage) → ``OUT/eval/``
5. ``card``: ``model_card.md`` rendered with the measured results → ``OUT/wikiformer/README.md``; with
   ``--push-to-hub NS``, ``NS/wikiformer`` and ``NS/wikiformer-<task>`` are created or updated.

Selection is label-free by default: a WIKIR collection is built from the same corpus (``python -m
dataset_scripts.wikir`` → ``OUT/wikir/``, stage ``wikir`` after ``datasets``; on the vendored sample with the
relaxations ``SAMPLE_WIKIR_ARGS``), the checkpoint and the fusion are chosen on its validation split (the dev
queries, figures in ``OUT/eval/dev/``), and ``--eval-collection`` and the WIKIR test split (``OUT/eval/wikir/``)
are test collections: reported, never chosen on. Where the validation split has fewer than
``MIN_SELECTION_QUERIES`` queries, or with ``--select-on-eval-collection``, both are chosen on ``--eval-collection``
instead, and its figures are labelled dev on the console and in the card.

``--system prop`` or ``--system harp`` runs the same job for the two baselines the paper compares with (their
tasks, ``configs/{prop,harp}-demo-cpu.yaml`` at the Wikiformer demo's budget, ``OUT/{prop,harp}/``; the output folder
defaults to ``output/release-<system>``). ``--harp-variant original`` or ``--prop-variant original`` builds a
baseline's datasets as its authors' code built them (``--stopwords FILE``: e.g. HARP's own list), and the dataset
cards' "As built:" line names the variant; HARP's importance model stays the backbone the config trains.

A rerun reuses every stage that finished with the same command, the same input files (size and time) and the
same kit, after the same earlier stages (``OUT/stages/*.json``); otherwise one line says what changed and the
stage runs again. ``--redo STAGE`` runs one again (and the stages after it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

from wikiformer_kit import __version__
from wikiformer_kit.cli import KitArgumentParser, one_line_errors
from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.cli.durations import duration
from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.dataset_scripts.file_states import changed_files, file_states
from wikiformer_kit.dataset_scripts.tasks.registry import SYSTEMS
from wikiformer_kit.eval.hub_results import hub_collection
from wikiformer_kit.home import find_kit_file, kit_environment, kit_file
from wikiformer_kit.training.kit_arguments import EMBEDDED_MINILM, read_config

STAGES = ("datasets", "wikir", "train", "export", "eval", "card")
DEFAULT_STAGES = tuple(s for s in STAGES if s != "wikir")  # --wikir adds it
INTERRUPTED = (
    "interrupted: rerun the same command to go on (finished stages are reused; the stage that was running starts "
    "again, or resumes where its command does)"
)
MINILM_HUB_ID = "sentence-transformers/all-MiniLM-L6-v2"
"""The public checkpoint the embedded MiniLM (``embedded:minilm``) is a copy of: what a card names."""
SAMPLE_WIKIR_ARGS = "--min-links 1 --validation-size 10 --test-size 5 --bm25-k 20"
"""WIKIR settings for the 106-article vendored sample: at the defaults only Angola has 5 linking documents; with one
link enough, the sample gives 15 queries, 10 of them dev queries for selection, 5 a test split, none for training."""
MIN_SELECTION_QUERIES = 5
"""A WIKIR validation split with fewer judged queries chooses nothing (the eval collection does, labelled dev)."""
TASKS = SYSTEMS["wikiformer"]
DEMO_CONFIGS = {
    "wikiformer": "configs/demo-cpu.yaml",
    "prop": "configs/prop-demo-cpu.yaml",
    "harp": "configs/harp-demo-cpu.yaml",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = KitArgumentParser(
        prog="python release.py",
        description=__doc__.split("\n\n")[0],
        input_help="dump files, folders or a built corpus (default: the vendored enwiki sample)",
        input_default=[str(kit_file("data/samples/wikipedia/enwiki-sample.xml.bz2"))],
    )
    parser.add_argument("--system", choices=tuple(SYSTEMS), default="wikiformer", help="the pre-training method")
    parser.add_argument("--output-dir", default=None, help="default: output/release (output/release-<system>)")
    parser.add_argument("--config", default=None, help="training config for train.py (default: the system's demo)")
    parser.add_argument(
        "--eval-collection",
        default=str(kit_file("data/samples/eval/dl20-mini")),
        help="a collection with candidates and qrels (see python -m eval --help)",
    )
    parser.add_argument("--eval-candidates", default="bm25", help="the collection's run to re-rank")
    parser.add_argument("--eval-max-queries", type=int, default=None, help="the first N judged queries (default: all)")
    parser.add_argument(
        "--eval-depth", "--depth", type=int, default=20, help="candidates re-ranked per query (python -m eval --k)"
    )
    parser.add_argument("--eval-max-length", type=int, default=256, help="pair length in tokens at evaluation")
    parser.add_argument(
        "--nanobeir",
        nargs="*",
        metavar="SET",
        default=None,
        help="also measure the model on NanoBEIR (the sets by short name; none given: sentence-transformers' 11) and "
        "put the figures in the card's model-index as re-ranker cards report them",
    )
    parser.add_argument(
        "--nanobeir-data",
        default=None,
        help="the NanoBEIR dataset: a Hub id (default sentence-transformers/NanoBEIR-en) or a local folder",
    )
    parser.add_argument("--max-steps", type=int, default=None, help="override the config's max_steps")
    parser.add_argument("--seed", type=int, default=42, help="seed of the dataset build, training and tests")
    parser.add_argument("--num-proc", type=int, default=1, help="processes of the dataset and WIKIR builds")
    parser.add_argument(
        "--build-args",
        default="",
        help="more options for python -m dataset_scripts.build (every corpus and sampling option), e.g. "
        "\"--language ltg --see-also-title 'Verīs taipoš' --read-ahead off\"",
    )
    parser.add_argument(
        "--harp-variant",
        choices=("default", "paper", "original"),
        default=None,
        help="--system harp: all of HARP's build choices at once (python -m dataset_scripts.build --harp-variant; "
        "the importance model stays the backbone the config trains)",
    )
    parser.add_argument(
        "--prop-variant",
        choices=("paper", "original"),
        default=None,
        help="--system prop: all of PROP's build choices at once (python -m dataset_scripts.build --prop-variant)",
    )
    parser.add_argument(
        "--stopwords",
        default=None,
        help="--system prop or harp: a stopword file or vendored list names (python -m dataset_scripts.build "
        "--stopwords), e.g. a copy of HARP's own list for --harp-variant original",
    )
    parser.add_argument("--namespace", default=None, help="Hub namespace named in the cards (default: --push-to-hub's)")
    parser.add_argument(
        "--push-to-hub", metavar="NAMESPACE", default=None, help="push NAMESPACE/<system> and the task datasets"
    )
    parser.add_argument("--private", action="store_true", help="create the Hub repos private")
    parser.add_argument(
        "--stages",
        default=",".join(DEFAULT_STAGES),
        help=f"comma-separated subset of {','.join(STAGES)} (default: all {len(STAGES)}: wikir runs whenever train "
        "does, to choose the checkpoint and the fusion, unless --select-on-eval-collection; --wikir adds it to any "
        "subset)",
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
        help="select checkpoints on the WIKIR validation split (implies --wikir; the default)",
    )
    parser.add_argument(
        "--select-on-eval-collection",
        action="store_true",
        help="choose the checkpoint and the fusion on --eval-collection instead of WIKIR (its figures are then dev)",
    )
    parser.add_argument("--redo", choices=STAGES, default=None, help="run this stage again, and those after it")
    parser.add_argument(
        "--verbose", action="store_true", help="show every command's own output (default: OUT/logs/<stage>.log)"
    )
    args = parser.parse_args(argv)
    args.output_dir = args.output_dir or ("output/release" + ("" if args.system == "wikiformer" else f"-{args.system}"))
    args.config = args.config or str(kit_file(DEMO_CONFIGS[args.system]))
    try:
        variant_args(args)
    except ValueError as error:
        parser.error(str(error))
    missing = [f"{flag} {path}" for flag, path in (("--config", args.config), *(("INPUT", p) for p in args.input))]
    missing = [item for item in missing if find_kit_file(item.split(" ", 1)[1]) is None]
    if missing:  # before any stage runs: a stage would fail on it minutes later
        parser.error(f"{', '.join(missing)}: no such file or folder")
    # the stage commands run in the current directory; a path the kit ships is found in its folder
    args.config = str(find_kit_file(args.config))
    args.input = [str(find_kit_file(p)) for p in args.input]
    if find_kit_file(args.eval_collection) is not None:
        args.eval_collection = str(find_kit_file(args.eval_collection))
    return args


class Stages:
    """Runs stage commands, recording what each finished one was made from so that a rerun reuses it only when
    nothing changed.

    By default each stage is one console line (and a progress bar on a terminal, following the command's own
    bars): the commands' full output goes to ``OUT/logs/<stage>.log``, and its tail is shown if a command fails.
    With ``verbose`` the commands print to the console as they run.
    """

    def __init__(self, output_dir: Path, redo: str | None, verbose: bool = False):
        self.output_dir = output_dir
        self.record_dir = output_dir / "stages"
        self.record_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir = output_dir / "logs"
        self.redo_from = STAGES.index(redo) if redo else len(STAGES)
        self.verbose = verbose

    def signature(self, stage: str, arguments: list) -> dict:
        """What ``stage`` is made from: its arguments, the size and time of every file or folder they name outside
        the release's own folder, the kit's version, and the records of the stages before it (one that ran again
        with other inputs makes this one stale)."""
        earlier = {
            name: hashlib.sha256(path.read_bytes()).hexdigest()[:16]
            for name in STAGES[: STAGES.index(stage)]
            if (path := self.record_dir / f"{name}.json").is_file()
        }
        tokens = [str(item) for part in arguments for item in (part if isinstance(part, list) else [part])]
        return {
            "arguments": arguments,
            "inputs": file_states(tokens, outside=[self.output_dir]),
            "kit": __version__,
            "after": earlier,
        }

    def done(self, stage: str, signature: dict) -> bool:
        """Whether ``stage`` finished earlier from ``signature``; when it finished from something else, one line
        says what changed."""
        record = self.record_dir / f"{stage}.json"
        if STAGES.index(stage) >= self.redo_from or not record.exists():
            return False
        try:
            before = json.loads(record.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            before = None
        if before == signature:
            return True
        print(f"[{stage}] finished earlier from other inputs ({stage_changes(before, signature)}): running it again")
        return False

    def finish(self, stage: str, signature: dict) -> None:
        atomic_write(
            self.record_dir / f"{stage}.json",
            lambda tmp: tmp.write_text(json.dumps(signature, indent=1), encoding="utf-8"),
        )

    def run(self, stage: str, commands: list[list[str]], describe=None) -> None:
        """Run the stage's commands (each a subprocess in the current directory) unless already done.

        ``describe``, if given, returns what the stage produced, for its console line.
        """
        signature = self.signature(stage, [command[1:] for command in commands])  # not the interpreter path
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
                returncode = subprocess.run(command, env=kit_environment()).returncode
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
        print(f"[{stage}] done in {duration(time.monotonic() - started)}{produced and ': ' + produced}{where}")


_PROGRESS = re.compile(rb"(\d+)/(\d+) \[")
"""A tqdm bar's ``n/total [``, as the stage commands print them."""


def stage_changes(before: dict | None, now: dict) -> str:
    """What differs between a stage's recorded signature and this run's, in words."""
    if not isinstance(before, dict) or "arguments" not in before:
        return "its record is from an older kit or damaged"
    said = []
    if before["arguments"] != now["arguments"]:
        said.append("other command line")
    said += changed_files(before.get("inputs", {}), now["inputs"])
    if before.get("after") != now["after"]:
        again = sorted(
            k
            for k in set(before.get("after", {})) | set(now["after"])
            if before.get("after", {}).get(k) != now["after"].get(k)
        )
        said.append(f"stage {', '.join(again)} ran again")
    if before.get("kit") != now["kit"]:
        said.append(f"the kit's version {before.get('kit')} -> {now['kit']}")
    return "; ".join(said) or "its record differs"


def run_logged(command: list[str], log: Path, label: str, shown: str) -> int:
    """Run ``command`` with its output appended to ``log``; on a terminal a bar follows the command's own bars."""
    from tqdm.auto import tqdm

    with log.open("ab") as sink, tqdm(desc=label, total=0, leave=False, disable=None, dynamic_ncols=True) as bar:
        sink.write(f"$ {shown}\n".encode())
        sink.flush()
        process = subprocess.Popen(command, env=kit_environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
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


def importance_model_args(system: str, config: dict, build_args: str) -> list[str]:
    """HARP's word importance from the backbone the config trains (the paper: BERT-base for both), unless the
    build options name another model."""
    if system != "harp" or "--harp-importance-model" in build_args:
        return []
    return ["--harp-importance-model", str(config.get("model_name_or_path", "embedded:minilm"))]


def variant_args(args) -> list[str]:
    """The build options that ``--harp-variant``, ``--prop-variant`` and ``--stopwords`` ask for, for the system
    being built (a baseline's variant, or stopwords, given for another system is an error: it would build
    nothing differently)."""
    given = {
        "--harp-variant": (args.harp_variant, "harp"),
        "--prop-variant": (args.prop_variant, "prop"),
        "--stopwords": (args.stopwords, args.system if args.system != "wikiformer" else "prop or harp"),
    }
    wrong = [f"{flag} (--system {owner})" for flag, (value, owner) in given.items() if value and owner != args.system]
    if wrong:
        raise ValueError(f"{', '.join(wrong)}: not an option of --system {args.system}")
    return [item for flag, (value, _) in given.items() if value for item in (flag, value)]


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

    from wikiformer_kit.modeling_wikiformer import WikiformerForRanking, save_for_hub

    model = WikiformerForRanking.from_pretrained(train_dir)  # the class of the checkpoint's encoder
    tokenizer = AutoTokenizer.from_pretrained(train_dir)
    model.config.query_max_length = min(model.config.query_max_length, max_length // 2)
    # BERT: [CLS], 2 x [SEP]; XLM-R: <s>, 3 x </s>
    specials = tokenizer.num_special_tokens_to_add(pair=True)
    model.config.document_max_length = max_length - model.config.query_max_length - specials
    save_for_hub(model, tokenizer, model_dir, max_length=max_length)


def fresh_head_baseline(config: dict, model_dir: Path, seed: int) -> None:
    """The starting checkpoint with an untrained (seeded random) head: what the evaluation compares against."""
    import torch
    from transformers import AutoTokenizer

    from wikiformer_kit.modeling_wikiformer import WikiformerForRanking, save_for_hub
    from wikiformer_kit.train import resolve_model_path

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
    if recipe.get("model_name_or_path") == EMBEDDED_MINILM:  # the kit's copy of a public checkpoint: its public id
        recipe["model_name_or_path"] = MINILM_HUB_ID
    state_path = train_dir / "trainer_state.json"
    if state_path.exists():
        state = json.loads(state_path.read_text(encoding="utf-8"))
        recipe["optimizer steps run"] = state.get("global_step")
    return recipe


def checkpoint_selection(config: dict, train_dir: Path, dev_collection: str, eval_max_length: int) -> str:
    """How training chose the checkpoint, with the figure it chose by, named as what it is: a selection figure on
    the dev collection at training's evaluation length (empty without a recorded best checkpoint)."""
    state_path = train_dir / "trainer_state.json"
    if not state_path.exists():
        return ""
    state = json.loads(state_path.read_text(encoding="utf-8"))
    if state.get("best_metric") is None:
        return ""
    metric = measure_label(str(config.get("metric_for_best_model", "the evaluation metric")))
    step = state.get("best_global_step") or (
        Path(state["best_model_checkpoint"]).name.split("-")[-1] if state.get("best_model_checkpoint") else None
    )
    kept = config.get("load_best_model_at_end", False)
    candidates = f"the first stage's top {config['eval_depth']}, " if config.get("eval_depth") else ""
    length = config.get("eval_max_length", 512)
    text = (
        f"Checkpoint selection: training evaluated its checkpoints on the dev collection **{dev_collection}** "
        f"({candidates}pairs of up to {length} tokens); the best {metric} was "
        f"{state['best_metric']:.4f}" + (f", at step {step}" if step else "")
        + ("; that checkpoint is this model." if kept else "; the model is the last checkpoint.")
        + " A selection figure, not a result"
        + (f": the evaluation below uses pairs of up to {eval_max_length} tokens." if length != eval_max_length else ".")
    )  # fmt: skip
    return text


def measure_label(metric: str) -> str:
    """A Trainer metric name as the tables name it (``ndcg@10`` -> ``nDCG@10``, ``mrr@10`` -> ``MRR@10``)."""
    name = metric.removeprefix("eval_")
    for prefix, label in (("ndcg", "nDCG"), ("mrr", "MRR"), ("map", "MAP")):
        if name.lower().startswith(prefix):
            return label + name[len(prefix) :]
    return name


@one_line_errors(interrupted=INTERRUPTED)
def main(argv: list[str] | None = None) -> int:
    """Run the selected stages."""
    args = parse_args(argv)
    out = Path(args.output_dir).resolve()
    selected = [s.strip() for s in args.stages.split(",") if s.strip()]
    implied_wikir = not (args.wikir or args.select_on_wikir or "wikir" in selected)
    if (args.wikir or args.select_on_wikir or (not args.select_on_eval_collection and "train" in selected)) and (
        "wikir" not in selected
    ):
        selected.append("wikir")
    unknown = sorted(set(selected) - set(STAGES))
    if unknown:
        raise SystemExit(f"unknown stage(s) {', '.join(unknown)}; choose from {', '.join(STAGES)}")
    from wikiformer_kit.model_card import NAMESPACE_PLACEHOLDER

    namespace = args.namespace or args.push_to_hub or NAMESPACE_PLACEHOLDER
    stages = Stages(out, args.redo, args.verbose)
    started = time.monotonic()
    python = sys.executable
    config = read_config(Path(args.config))  # an error naming the file for a config that is not YAML or JSON
    system, tasks = args.system, SYSTEMS[args.system]
    model_dir, train_dir, eval_dir = out / system, out / "train", out / "eval"

    if "datasets" in selected:
        stages.run(
            "datasets",
            [
                [
                    python,
                    "-m",
                    "wikiformer_kit.dataset_scripts.build",
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
                    *importance_model_args(system, config, args.build_args),
                    *variant_args(args),
                    *shlex.split(args.build_args),
                ]
            ],
            describe=lambda: describe_datasets(out, tasks),
        )
    wikir_dir = out / "wikir"
    if "wikir" in selected:
        try:
            stages.run("wikir", [wikir_command(python, args, out)])
        except SystemExit:
            if not implied_wikir:
                raise
            print("[wikir] no WIKIR collection from this input: selection falls back to --eval-collection")
    dev = selection(args, wikir_dir, announce=bool({"train", "eval"} & set(selected)))
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
            "-m",
            "wikiformer_kit.train",
            args.config,
            "--train_datasets",
            *map(str, datasets),
            "--output_dir",
            str(train_dir),
            "--eval_dir",
            dev.spec,
        ]
        command += task_settings(config, datasets) if len(datasets) != len(config.get("train_datasets", [])) else []
        command += ["--test_dirs", str(wikir_dir / "test")] if dev.on_wikir else []
        command += [item for key, value in overrides.items() for item in (f"--{key}", str(value))]
        stages.run("train", [command], describe=lambda: describe_training(train_dir, config))
    if "export" in selected:
        export_signature = stages.signature("export", [str(train_dir), args.eval_max_length])
        if not stages.done("export", export_signature):
            if not args.verbose:  # in-process: no loading and writing bars on the console
                from huggingface_hub.utils import disable_progress_bars
                from transformers.utils.logging import disable_progress_bar

                disable_progress_bar()
                disable_progress_bars()
            export_model(train_dir, model_dir, args.eval_max_length)
            fresh_head_baseline(config, out / "baseline" / "minilm-fresh-head", args.seed)
            stages.finish("export", export_signature)
            stages.redo_from = min(stages.redo_from, STAGES.index("eval"))  # eval stores the fusion in config.json
            print(f"[export] done: {_short(model_dir)} (and the untrained-head baseline for the comparison)")
    if "eval" in selected:
        # The fusion with BM25 is chosen on the dev queries (never on a test collection) and stored in config.json;
        # every collection is then re-ranked with the same top-k of its BM25 run by every system.
        commands = [
            [python, "-m", "wikiformer_kit.eval", "tune-fusion", "--model", str(model_dir), "--save", "--no-resume",
             "--output-dir", str(eval_dir / "fusion"), *dev.arguments(args)],
        ]  # fmt: skip
        if dev.on_wikir:
            commands += collection_eval_commands(python, args, dev.spec, "bm25", eval_dir / "dev", None)
        commands += collection_eval_commands(
            python, args, args.eval_collection, args.eval_candidates, eval_dir, args.eval_max_queries
        )
        if (wikir_dir / "test" / "collection.json").exists():
            commands += collection_eval_commands(
                python, args, str(wikir_dir / "test"), "bm25", eval_dir / "wikir", args.eval_max_queries
            )
        commands += nanobeir_commands(python, args, model_dir, eval_dir / "nanobeir")
        stages.run("eval", commands, describe=lambda: f"{_short(eval_dir)}")
    if "card" in selected:
        name_dataset_cards(out, tasks, namespace)
        path = write_card(out, model_dir, eval_dir, namespace, config, overrides, args)
        print(f"[card] done: {_short(path)}")
        if args.push_to_hub:
            push(out, model_dir, args.push_to_hub, args.private, system)
    evaluations = evaluation_summaries(dev, eval_dir, args.eval_collection, wikir_dir)
    print(closing_summary(args, out, model_dir, eval_dir, tasks, selected, time.monotonic() - started, evaluations))
    return 0


def describe_datasets(out: Path, tasks: tuple[str, ...]) -> str:
    """Rows per task dataset, from the build's summary."""
    path = out / "datasets" / ".build" / "summary.json"
    if not path.exists():
        return _short(out / "datasets")
    rows = json.loads(path.read_text(encoding="utf-8"))
    return ", ".join(f"{task} {rows.get(task, {}).get('rows', 0):,} rows" for task in tasks)


def describe_training(train_dir: Path, config: dict) -> str:
    """Steps run and the kept checkpoint's selection figure, from the trainer's state, named with the pair length
    it was measured at (the evaluation stage measures at ``--eval-max-length``)."""
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
    name = measure_label(str(config.get("metric_for_best_model", "metric")))
    length = config.get("eval_max_length", 512)
    metric = f" (best dev {name} {best:.4f} at {length}-token pairs{kept})" if best is not None else ""
    return f"{state.get('global_step')} steps{metric}"


def closing_summary(
    args, out: Path, model_dir: Path, eval_dir: Path, tasks, selected: list[str], seconds: float, evaluations=()
) -> str:
    """The closing lines: where everything is, the results table (once) and what to do next."""
    lines = [f"\nFinished in {duration(seconds)}.", *evaluations]
    if (model_dir / "config.json").exists():  # only what this or an earlier run made
        lines.append(f"model:    {_short(model_dir)}  (card: {_short(model_dir / 'README.md')})")
    if (out / "datasets").is_dir():
        lines.append(f"datasets: {_short(out / 'datasets')}/wikiformer-{{{','.join(tasks)}}}")
    if (eval_dir / "compare").is_dir():
        lines.append(f"results:  {_short(eval_dir / 'compare')}  (per-query figures, significance, chart)")
    evaluate, release = as_run("python -m eval"), as_run("python release.py")
    if not args.verbose:
        lines.append(f"logs:     {_short(out / 'logs')}  (or rerun with --verbose)")
    if (model_dir / "config.json").exists():
        lines += [
            "Next:",
            f'  python -c "from sentence_transformers import CrossEncoder; '
            f"print(CrossEncoder('{_short(model_dir)}').predict([('what is albedo', 'Albedo is the fraction of "
            "light a surface reflects.'), ('what is albedo', 'Paris is in France.')]))\"",
            f"  {evaluate} rerank --model {_short(model_dir)} --collection YOUR_COLLECTION --output-dir OUT  (docs/evaluation.md)",
        ]
        if not args.push_to_hub:
            lines.append(f"  {release} --push-to-hub NAMESPACE   (publishes the model and datasets; "
                         "finished stages are reused)")  # fmt: skip
    return "\n".join(lines)


def wikir_command(python: str, args, out: Path) -> list[str]:
    """``python -m dataset_scripts.wikir`` on the corpus the datasets stage built (else on ``--input``)."""
    corpus = out / "datasets" / "corpus"
    inputs = [str(corpus)] if any((corpus / "data").glob("*.parquet")) else list(args.input)
    command = [
        python,
        "-m",
        "wikiformer_kit.dataset_scripts.wikir",
        "--input",
        *inputs,
        "--output-dir",
        str(out / "wikir"),
    ]
    return command + ["--num-proc", str(args.num_proc), *shlex.split(wikir_extra_args(args))]


def wikir_extra_args(args) -> str:
    """``--wikir-args``, else ``SAMPLE_WIKIR_ARGS`` on the vendored sample, else none."""
    on_sample = [str(Path(p).resolve()) for p in args.input] == [
        str(kit_file("data/samples/wikipedia/enwiki-sample.xml.bz2"))
    ]
    return args.wikir_args if args.wikir_args is not None else (SAMPLE_WIKIR_ARGS if on_sample else "")


def collection_eval_commands(
    python: str, args, collection: str, candidates: str, eval_dir: Path, max_queries: int | None
) -> list[list[str]]:
    """Re-rank a collection's first-stage run with the model (raw and with its stored fusion) and the fresh-head
    baseline, then compare them with significance against the first stage (``eval_dir/compare``)."""
    common = ["--collection", collection, "--candidates", candidates, "--k", str(args.eval_depth)]
    common += ["--max-length", str(args.eval_max_length), "--no-resume"]
    common += ["--max-queries", str(max_queries)] if max_queries else []
    commands, runs = [], []
    for tag, model in (
        (args.system, Path(args.output_dir).resolve() / args.system),
        ("minilm-fresh-head", Path(args.output_dir).resolve() / "baseline" / "minilm-fresh-head"),
    ):
        commands.append([python, "-m", "wikiformer_kit.eval", "rerank", "--model", str(model), "--tag", tag, "--output-dir",
                         str(eval_dir / tag), *common])  # fmt: skip
        runs.append(f"{tag}={eval_dir / tag / f'{tag}.run'}")
    fused = f"{args.system}+{candidates}"
    runs.insert(1, f"{fused}={eval_dir / args.system / f'{fused}.run'}")
    compare = [
        python,
        "-m",
        "wikiformer_kit.eval",
        "compare",
        f"{candidates}={eval_dir / args.system / f'{candidates}.run'}",
        *runs,
    ]
    compare += ["--collection", collection, "--reference", candidates, "--output-dir", str(eval_dir / "compare")]
    return commands + [compare + ["--seed", str(args.seed)]]


def nanobeir_commands(python: str, args, model_dir: Path, folder: Path) -> list[list[str]]:
    """``python -m eval nanobeir`` on the model (``--nanobeir``), writing ``folder/nanobeir.json``; none without it."""
    if args.nanobeir is None:
        return []
    command = [python, "-m", "wikiformer_kit.eval", "nanobeir", str(model_dir), "--output-dir", str(folder)]
    command += ["--sets", *args.nanobeir] if args.nanobeir else []
    command += ["--data", args.nanobeir_data] if args.nanobeir_data else []
    return [command + ["--max-length", str(args.eval_max_length)]]


def nanobeir_figures(eval_dir: Path):
    """The NanoBEIR figures the eval stage measured (``eval_dir/nanobeir/nanobeir.json``), or None. Release chooses
    the checkpoint and the fusion on WIKIR or ``--eval-collection``, never on NanoBEIR: they are test figures."""
    from wikiformer_kit.eval.nanobeir_report import FILE_NAME, NanoBEIRRecord

    path = eval_dir / "nanobeir" / FILE_NAME
    return NanoBEIRRecord.load(path) if path.exists() else None


class Selection:
    """Where the checkpoint and the fusion are chosen: the WIKIR validation split, or ``--eval-collection``."""

    def __init__(self, spec: str, on_wikir: bool, queries: int):
        self.spec, self.on_wikir, self.queries = spec, on_wikir, queries

    def arguments(self, args) -> list[str]:
        """``python -m eval tune-fusion``'s collection options for the dev queries."""
        candidates = "bm25" if self.on_wikir else args.eval_candidates
        common = ["--collection", self.spec, "--candidates", candidates, "--k", str(args.eval_depth)]
        common += ["--max-length", str(args.eval_max_length)]
        return common + (
            ["--max-queries", str(args.eval_max_queries)] if args.eval_max_queries and not self.on_wikir else []
        )

    def chosen_on(self, spec: str) -> str:
        """What was chosen on a collection's queries: ``""`` for a test collection."""
        return "the checkpoint and the fusion" if Path(spec).resolve() == Path(self.spec).resolve() else ""

    def role(self, spec: str, queries: int) -> str:
        """The console's label of a collection's figures."""
        if self.chosen_on(spec):
            return f"dev: {self.chosen_on(spec)} were chosen on these {queries} queries (not a test result)"
        return f"test: nothing was chosen on these {queries} queries"


def selection(args, wikir_dir: Path, announce: bool = True) -> Selection:
    """The WIKIR validation split where it has ``MIN_SELECTION_QUERIES`` judged queries (and
    ``--select-on-eval-collection`` is not given), else ``--eval-collection`` (said on the console if ``announce``)."""
    validation = wikir_dir / "validation"
    topics = validation / "topics.tsv"
    queries = (
        sum(1 for line in topics.read_text(encoding="utf-8").splitlines() if line.strip()) if topics.exists() else 0
    )
    if not args.select_on_eval_collection:
        if queries >= MIN_SELECTION_QUERIES:
            return Selection(str(validation), True, queries)
        if announce:
            print(
                f"[select] the WIKIR validation split has {queries} queries (fewer than {MIN_SELECTION_QUERIES}): the "
                f"checkpoint and the fusion are chosen on {args.eval_collection}, whose figures are dev figures",
                flush=True,
            )
    return Selection(args.eval_collection, False, 0)


def write_card(out: Path, model_dir: Path, eval_dir: Path, namespace: str, config: dict, overrides: dict, args) -> Path:
    """Render the model card from what this run measured (every figure read from the evaluation's files)."""
    from wikiformer_kit.eval.collections import load_collection
    from wikiformer_kit.model_card import CardInputs, write_model_card

    system = args.system
    dev = selection(args, out / "wikir", announce=False)
    base = config.get("model_name_or_path", EMBEDDED_MINILM)
    base = MINILM_HUB_ID if base == EMBEDDED_MINILM else base
    fresh_head = f"{Path(base).name} + untrained head"
    note = (
        f"`{fresh_head}` is the checkpoint training started from, with an untrained (seeded random) head. "
        "Every figure is computed from the evaluation's files (runs, per-query values, significance tests) by the "
        "Wikiformer kit's `python release.py`."
    )
    extra = wikir_extra_args(args)
    wikir = (
        "A WIKIR collection built from the same dump (`python -m dataset_scripts.wikir"
        + (f" {extra}" if extra else "")
        + "`"
        + (
            ": the minimum of linking documents relaxed for the 106-article sample"
            if extra == SAMPLE_WIKIR_ARGS
            else ""
        )
        + "). "
    )
    found = [
        collection_evaluation(
            folder, system, candidates, dev.chosen_on(spec), prefix + note, args, {"minilm-fresh-head": fresh_head}, hub
        )
        for folder, spec, candidates, prefix, hub in (
            (eval_dir, args.eval_collection, args.eval_candidates, "", hub_collection(args.eval_collection)),
            (eval_dir / "wikir", str(out / "wikir" / "test"), "bm25", wikir, published_wikir(out, namespace)),
            (eval_dir / "dev", dev.spec, "bm25", wikir, None),
        )
        if (folder / system / "metrics.json").exists() and (folder != eval_dir / "dev" or dev.on_wikir)
    ]
    evaluation, more = (found[0], found[1:]) if found else (None, [])
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
    selected_on = stored.get("fusion_dev_collection") or (
        load_collection(dev.spec).name if Path(dev.spec).exists() else Path(dev.spec).name
    )
    inputs = CardInputs(
        repo_id=f"{namespace}/{system}",
        base_model=base,
        training_datasets=[(name, description or "") for name, description in datasets],
        recipe=training_recipe(config, overrides, out / "train"),
        max_length=args.eval_max_length,
        evaluation=evaluation,
        fusion=fusion,
        method=system,
        fusion_evidence=stored.get("fusion_cv"),
        more_evaluations=more,
        chart=draw_chart(evaluation, model_dir),
        checkpoint_selection=checkpoint_selection(config, out / "train", selected_on, args.eval_max_length),
        nanobeir=nanobeir_figures(eval_dir),
    )
    return write_model_card(model_dir, inputs)


def published_wikir(out: Path, namespace: str) -> tuple[str, str] | None:
    """``(dataset id, "test")`` of the WIKIR collection the release publishes under ``namespace``, else None."""
    from wikiformer_kit.model_card import NAMESPACE_PLACEHOLDER

    summary = out / "wikir" / ".build" / "summary.json"
    if namespace == NAMESPACE_PLACEHOLDER or not summary.exists():
        return None
    return f"{namespace}/wikir-{json.loads(summary.read_text(encoding='utf-8'))['language'] or 'xx'}", "test"


def collection_evaluation(
    folder: Path,
    system: str,
    candidates: str,
    chosen_on: str,
    note: str,
    args,
    labels: dict[str, str] | None = None,
    hub_dataset: tuple[str, str] | None = None,
):
    """A collection's figures for the card, from the files the eval stage wrote in ``folder``: the means and the
    significance verdicts of ``compare/comparison.json`` (else the means of ``<system>/metrics.json``), the fusion
    as ``eval rerank`` recorded it, and whether the fused run ranks any query differently from the first stage's."""
    from wikiformer_kit.eval.report import Comparison
    from wikiformer_kit.model_card import Evaluation

    metrics = folder / system / "metrics.json"
    payload = json.loads(metrics.read_text(encoding="utf-8"))
    fused = f"{system}+{candidates}"
    options = {
        "fused_system": fused if fused in payload else None,
        "fusion": payload.get(fused, {}).get("fusion"),
        "fusion_changes_ranking": fused in payload
        and not same_ranking(folder / system / f"{fused}.run", folder / system / f"{candidates}.run"),
        "chosen_on": chosen_on,
        "note": note,
        "first_stage": candidates,
        "depth": args.eval_depth,
        "max_length": args.eval_max_length,
        "labels": labels or {},
        "hub_dataset": hub_dataset,
    }
    comparison = folder / "compare" / "comparison.json"
    if comparison.exists():
        record = Comparison.from_dict(json.loads(comparison.read_text(encoding="utf-8")))
        return Evaluation.from_comparison(record, system, **options)
    return Evaluation.from_metrics_json(metrics, system, folder.name, **options)


def same_ranking(run: Path, other: Path) -> bool:
    """Whether two TREC run files rank every query's documents in the same order (as trec_eval ranks them); a
    missing file ranks nothing like the other."""
    from wikiformer_kit.eval.collections import read_trec_run
    from wikiformer_kit.eval.collections.trec import ranked

    if not run.exists() or not other.exists():
        return False
    first, second = read_trec_run(run), read_trec_run(other)
    if first.keys() != second.keys():
        return False
    return all([doc for doc, _ in ranked(first[q])] == [doc for doc, _ in ranked(second[q])] for q in first)


def name_dataset_cards(out: Path, tasks: tuple[str, ...], namespace: str) -> None:
    """Put the Hub namespace into the dataset cards' loading snippets (the build writes the placeholder)."""
    from wikiformer_kit.model_card import NAMESPACE_PLACEHOLDER

    if namespace == NAMESPACE_PLACEHOLDER:
        return
    for folder in task_dirs(out, tasks):
        card = folder / "README.md"
        if card.exists():
            text = card.read_text(encoding="utf-8")
            card.write_text(
                text.replace(f"{NAMESPACE_PLACEHOLDER}/wikiformer-", f"{namespace}/wikiformer-"), encoding="utf-8"
            )


def draw_chart(evaluation, model_dir: Path) -> str | None:
    """Draw the card's comparison chart into the model folder: the systems the card's table shows, under its names,
    with the verdicts of ``python -m eval compare``; its name there, or None (no evaluation, or no folder)."""
    from wikiformer_kit.eval.report import bar_chart
    from wikiformer_kit.model_card import CHART

    if evaluation is None or not model_dir.is_dir():
        return None
    bar_chart(evaluation.shown(), model_dir / CHART)
    return CHART


def evaluation_summaries(dev, eval_dir: Path, eval_collection: str, wikir_dir: Path) -> list[str]:
    """Each evaluated collection labelled dev or test (what was chosen on it), one table of every system's nDCG@10
    (MRR@10) on each (the full tables are in each ``compare/table.md``), and the fusion's verdict."""
    lines, columns, figures = [], [], {}
    for folder, spec in (
        (eval_dir / "dev", dev.spec),
        (eval_dir, eval_collection),
        (eval_dir / "wikir", str(wikir_dir / "test")),
    ):
        comparison = folder / "compare" / "comparison.json"
        if comparison.exists():
            record = json.loads(comparison.read_text(encoding="utf-8"))
            lines.append(f"evaluation, {dev.role(spec, record['num_queries'])} ({_short(Path(spec))})")
            columns.append(record.get("collection") or Path(spec).name)
            for system, cells in _table_cells(folder / "compare" / "table.md").items():
                figures.setdefault(system, {})[len(columns) - 1] = (
                    f"{cells.get('nDCG@10', '')} ({cells.get('RR@10') or cells.get('MRR@10', '')})"
                )
    if columns:
        lines += ["| system | " + " | ".join(f"{c}: nDCG@10 (MRR@10)" for c in columns) + " |",
                  "|---" + "|---:" * len(columns) + "|"]  # fmt: skip
        lines += [f"| {system} | " + " | ".join(row.get(i, "") for i in range(len(columns))) + " |"
                  for system, row in figures.items()]  # fmt: skip
    fusion = eval_dir / "fusion" / "fusion.json"
    if fusion.exists() and not json.loads(fusion.read_text(encoding="utf-8"))["cross_validation"]["beats_first_stage"]:
        lines.append(
            "fusion: the fused model does not beat the first stage on the dev queries beyond the folds' noise; "
            "alpha 0 is stored (the first stage's order)"
        )
    nanobeir = nanobeir_figures(eval_dir)
    if nanobeir is not None:
        base = nanobeir.results.get(f"{nanobeir.aggregate}_base_ndcg@{nanobeir.at_k}", float("nan"))
        lines.append(
            f"NanoBEIR ({len(nanobeir.sets)} sets, test: nothing was chosen on them): {nanobeir.primary_metric} "
            f"{nanobeir.results[nanobeir.primary_metric]:.4f} (BM25's order {base:.4f}), in the card's model-index"
        )
    return lines


def _table_cells(table: Path) -> dict[str, dict[str, str]]:
    """``{system: {measure: cell}}`` of a ``compare/table.md`` (bold marks dropped, significance marks kept)."""
    rows = [line for line in table.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]
    if not rows:
        return {}
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    cells = {}
    for row in rows[1:]:
        values = [cell.strip().replace("**", "") for cell in row.strip("|").split("|")]
        cells[values[0]] = dict(zip(header[1:], values[1:], strict=False))
    return cells


def push(out: Path, model_dir: Path, namespace: str, private: bool, system: str = "wikiformer") -> None:
    """Create or update ``NS/<system>`` and ``NS/wikiformer-<task>`` with the real Hub client."""
    from huggingface_hub import HfApi

    from wikiformer_kit.dataset_scripts.hub.publish import push_dataset_folder

    api = HfApi()
    repo_id = f"{namespace}/{system}"
    api.create_repo(repo_id, private=private, exist_ok=True)
    api.upload_folder(folder_path=str(model_dir), repo_id=repo_id, commit_message=f"{system} release")
    print(f"[push] {model_dir} -> {repo_id}")
    for folder in task_dirs(out, SYSTEMS[system]):
        push_dataset_folder(folder, f"{namespace}/{folder.name}", private=private)
        print(f"[push] {folder} -> {namespace}/{folder.name}")
    wikir = published_wikir(out, namespace)
    if wikir:
        from wikiformer_kit.dataset_scripts.wikir.__main__ import push as push_wikir

        repo = wikir[0]
        push_wikir(out / "wikir", repo, private)
        print(f"[push] {out / 'wikir'} -> {repo}")


if __name__ == "__main__":
    sys.exit(main())
