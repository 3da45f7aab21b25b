"""The release's stages, each from typed options: the options object of the command it runs (the dataclass that
command parses its own command line into), so that a renamed or removed option fails here, in the tests, and not
minutes into a release. Each returns what it made."""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

from wikiformer_kit.cli.options import changed_from_default
from wikiformer_kit.dataset_scripts.build import BuildCommandOptions
from wikiformer_kit.dataset_scripts.build import parse_options as parse_build_options
from wikiformer_kit.dataset_scripts.tasks.registry import SYSTEMS
from wikiformer_kit.dataset_scripts.wikir.__main__ import WikirCommandOptions
from wikiformer_kit.dataset_scripts.wikir.__main__ import parse_options as parse_wikir_options
from wikiformer_kit.eval.commands.compare import CompareOptions
from wikiformer_kit.eval.commands.nanobeir import NanoBEIROptions
from wikiformer_kit.eval.commands.rerank import RerankOptions
from wikiformer_kit.eval.commands.tune_fusion import TuneFusionOptions
from wikiformer_kit.release.layout import TASKS, json_record, task_dirs
from wikiformer_kit.release.options import ReleaseOptions
from wikiformer_kit.release.selection import Selection
from wikiformer_kit.release.stage_runner import Invocation
from wikiformer_kit.training.arguments import train_arguments

BUILD = "wikiformer_kit.dataset_scripts.build"
WIKIR = "wikiformer_kit.dataset_scripts.wikir"
TRAIN = "wikiformer_kit.train"
EVAL = "wikiformer_kit.eval"
FRESH_HEAD = "minilm-fresh-head"


def with_given(base, parse, inputs: list[str], extra: str):
    """``base`` with every option the user's ``extra`` arguments (parsed by the command's own ``parse`` with these
    inputs and ``base``'s output folder) set to other than its default: the user's own options win."""
    user = parse(["--input", *inputs, "--output-dir", str(base.output_dir), *shlex.split(extra)])
    return dataclasses.replace(base, **changed_from_default(user))


def dataset_build(options: ReleaseOptions, out: Path, config: dict) -> Invocation:
    """``dataset_scripts.build`` of the system's tasks into ``OUT/datasets``, with ``--build-args`` on top."""
    built = BuildCommandOptions(
        input=[Path(p) for p in options.input],
        output_dir=out / "datasets",
        tasks=",".join(SYSTEMS[options.system]),
        seed=options.seed,
        num_proc=options.num_proc,
        **options.baseline_choices(),
    )
    built = with_given(built, parse_build_options, options.input, options.build_args)
    if options.system == "harp" and not built.harp_importance_model:
        # HARP's word importance from the backbone the config trains (the paper: BERT-base for both)
        built = dataclasses.replace(
            built, harp_importance_model=str(config.get("model_name_or_path", "embedded:minilm"))
        )
    shown = ("output_dir", "tasks", "seed", "num_proc")
    baseline = ("harp_importance_model", "harp_variant", "prop_variant", "stopwords")
    return Invocation(BUILD, built, shown=shown, shown_when_given=baseline)


def wikir_build(options: ReleaseOptions, out: Path) -> Invocation:
    """``dataset_scripts.wikir`` on the corpus the datasets stage built (else on ``--input``), with
    ``--wikir-args`` (or the sample's relaxations) on top."""
    corpus = out / "datasets" / "corpus"
    inputs = [str(corpus)] if any((corpus / "data").glob("*.parquet")) else list(options.input)
    built = WikirCommandOptions(input=[Path(p) for p in inputs], output_dir=out / "wikir", num_proc=options.num_proc)
    built = with_given(built, parse_wikir_options, inputs, options.wikir_extra_args)
    return Invocation(WIKIR, built, shown=("output_dir", "num_proc"))


def trainable_datasets(options: ReleaseOptions, out: Path, config: dict) -> list[Path]:
    """The built task datasets training takes (a baseline's task without rows is left out); an error when the
    datasets stage has not run."""
    datasets = task_dirs(out, SYSTEMS[options.system])
    rows = json_record(out / "datasets" / ".build" / "summary.json") if options.system != "wikiformer" else None
    if rows is not None:  # a baseline task without rows is an empty dataset
        datasets = [d for d in datasets if rows.get(d.name.removeprefix("wikiformer-"), {}).get("rows", 1) > 0]
    if not datasets or (options.system == "wikiformer" and len(datasets) != len(config.get("train_datasets", TASKS))):
        raise SystemExit(
            f"the config trains on {len(config.get('train_datasets', []))} tasks but "
            f"{out / 'datasets'} holds {len(datasets)}: run the datasets stage first"
        )
    return datasets


def task_settings(config: dict, datasets: list[Path]) -> dict[str, list]:
    """``train.py`` settings giving each built task the weight and lengths its entry in the config has (a build can
    leave a task without rows, e.g. HARP's QDM on a small corpus, and the per-task lists must then shrink)."""
    names = [Path(d).name for d in config.get("train_datasets", [])]
    if len(datasets) == len(names):
        return {}
    settings = {}
    for key in ("task_weights", "query_max_lengths", "doc_max_lengths"):
        values = config.get(key)
        if isinstance(values, list) and len(values) == len(names) > 1:
            settings[key] = [values[names.index(d.name)] for d in datasets]
    return settings


def training(
    options: ReleaseOptions, config: dict, datasets: list[Path], train_dir: Path, dev: Selection, wikir_dir: Path
) -> Invocation:
    """``train.py`` with the release's config on the built datasets, choosing checkpoints on the dev queries."""
    settings = {
        "train_datasets": [str(d) for d in datasets],
        "output_dir": str(train_dir),
        "eval_dir": dev.spec,
        **task_settings(config, datasets),
        **({"test_dirs": [str(wikir_dir / "test")]} if dev.on_wikir else {}),
        **training_overrides(options),
    }
    return Invocation(TRAIN, leading=tuple(train_arguments(options.config, **settings)))


def training_overrides(options: ReleaseOptions) -> dict:
    """What the release's own options change in the config: the seed, and ``--max-steps`` where given."""
    return {"seed": options.seed, **({"max_steps": options.max_steps} if options.max_steps else {})}


def fusion_tuning(options: ReleaseOptions, model_dir: Path, eval_dir: Path, dev: Selection) -> Invocation:
    """``eval tune-fusion --save`` on the dev queries: the fusion with the first stage, stored in the model."""
    tuning = TuneFusionOptions(
        model=str(model_dir),
        collection=dev.spec,
        candidates="bm25" if dev.on_wikir else options.eval_candidates,
        k=options.eval_depth,
        max_length=options.eval_max_length,
        max_queries=None if dev.on_wikir else options.eval_max_queries,  # on WIKIR: all its dev queries
        save=True,
        no_resume=True,
        output_dir=str(eval_dir / "fusion"),
    )
    return Invocation(EVAL, tuning, subcommand="tune-fusion")


def collection_evaluation(
    options: ReleaseOptions, collection: str, candidates: str, eval_dir: Path, max_queries: int | None
) -> list[Invocation]:
    """Re-rank a collection's first-stage run with the model (raw and with its stored fusion) and the fresh-head
    baseline, then compare them with significance against the first stage (``eval_dir/compare``)."""
    out = Path(options.output_dir).resolve()
    invocations, runs = [], []
    for tag, model in ((options.system, out / options.system), (FRESH_HEAD, out / "baseline" / FRESH_HEAD)):
        reranking = RerankOptions(
            model=str(model),
            tag=tag,
            output_dir=str(eval_dir / tag),
            collection=collection,
            candidates=candidates,
            k=options.eval_depth,
            max_length=options.eval_max_length,
            no_resume=True,
            max_queries=max_queries,
        )
        invocations.append(Invocation(EVAL, reranking, subcommand="rerank"))
        runs.append(f"{tag}={eval_dir / tag / f'{tag}.run'}")
    fused = f"{options.system}+{candidates}"
    runs.insert(1, f"{fused}={eval_dir / options.system / f'{fused}.run'}")
    comparison = CompareOptions(
        runs=[f"{candidates}={eval_dir / options.system / f'{candidates}.run'}", *runs],
        collection=collection,
        reference=candidates,
        output_dir=str(eval_dir / "compare"),
        seed=options.seed,
    )
    return [*invocations, Invocation(EVAL, comparison, subcommand="compare")]


def nanobeir_evaluation(options: ReleaseOptions, model_dir: Path, folder: Path) -> list[Invocation]:
    """``eval nanobeir`` on the model (``--nanobeir``), writing ``folder/nanobeir.json``; none without it."""
    if options.nanobeir is None:
        return []
    measuring = NanoBEIROptions(
        model=str(model_dir),
        output_dir=str(folder),
        sets=options.nanobeir or None,
        data=options.nanobeir_data,
        max_length=options.eval_max_length,
    )
    return [Invocation(EVAL, measuring, subcommand="nanobeir")]


def evaluation(
    options: ReleaseOptions, model_dir: Path, eval_dir: Path, dev: Selection, wikir_dir: Path
) -> list[Invocation]:
    """The eval stage: the fusion chosen on the dev queries (never on a test collection), then every collection
    re-ranked with the same top-k of its first-stage run by every system, and NanoBEIR where asked."""
    invocations = [fusion_tuning(options, model_dir, eval_dir, dev)]
    if dev.on_wikir:
        invocations += collection_evaluation(options, dev.spec, "bm25", eval_dir / "dev", None)
    invocations += collection_evaluation(
        options, options.eval_collection, options.eval_candidates, eval_dir, options.eval_max_queries
    )
    if (wikir_dir / "test" / "collection.json").exists():
        invocations += collection_evaluation(
            options, str(wikir_dir / "test"), "bm25", eval_dir / "wikir", options.eval_max_queries
        )
    return invocations + nanobeir_evaluation(options, model_dir, eval_dir / "nanobeir")
