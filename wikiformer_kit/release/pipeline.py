"""The release's stages composed: datasets (→ WIKIR) → train → export → eval → card (→ push)."""

from __future__ import annotations

import time
from pathlib import Path

from wikiformer_kit.cli import one_line_errors
from wikiformer_kit.dataset_scripts.stage_console import shown_path
from wikiformer_kit.dataset_scripts.tasks.registry import SYSTEMS
from wikiformer_kit.release import stages as stage
from wikiformer_kit.release.card import name_dataset_cards, write_card
from wikiformer_kit.release.options import STAGES, ReleaseOptions, parse_args
from wikiformer_kit.release.selection import selection
from wikiformer_kit.release.stage_records import Stages
from wikiformer_kit.release.summary import (
    closing_summary,
    describe_datasets,
    describe_training,
    evaluation_summaries,
)
from wikiformer_kit.training.kit_arguments import read_config

INTERRUPTED = (
    "interrupted: rerun the same command to go on (finished stages are reused; the stage that was running starts "
    "again, or resumes where its command does)"
)


@one_line_errors(interrupted=INTERRUPTED)
def main(argv: list[str] | None = None) -> int:
    """Run the selected stages."""
    return release(parse_args(argv))


def release(options: ReleaseOptions) -> int:
    """Run the stages ``options`` select, reusing those that finished earlier from the same inputs."""
    from wikiformer_kit.model_card import NAMESPACE_PLACEHOLDER

    out = Path(options.output_dir).resolve()
    selected = options.selected_stages()
    namespace = options.namespace or options.push_to_hub or NAMESPACE_PLACEHOLDER
    stages = Stages(out, options.redo, options.verbose)
    started = time.monotonic()
    config = read_config(Path(options.config))  # an error naming the file for a config that is not YAML or JSON
    system, tasks = options.system, SYSTEMS[options.system]
    model_dir, train_dir, eval_dir, wikir_dir = out / system, out / "train", out / "eval", out / "wikir"

    if "datasets" in selected:
        invocation = stage.dataset_build(options, out, config)
        stages.run("datasets", [invocation], describe=lambda: describe_datasets(out, tasks))
    if "wikir" in selected:
        try:
            stages.run("wikir", [stage.wikir_build(options, out)])
        except SystemExit:
            if options.wikir_asked():
                raise
            print("[wikir] no WIKIR collection from this input: selection falls back to --eval-collection")
    dev = selection(options, wikir_dir, announce=bool({"train", "eval"} & set(selected)))
    if "train" in selected:
        datasets = stage.trainable_datasets(options, out, config)
        invocation = stage.training(options, config, datasets, train_dir, dev, wikir_dir)
        stages.run("train", [invocation], describe=lambda: describe_training(train_dir, config))
    if "export" in selected:
        export(options, stages, config, train_dir, model_dir, out)
    if "eval" in selected:
        invocations = stage.evaluation(options, model_dir, eval_dir, dev, wikir_dir)
        stages.run("eval", invocations, describe=lambda: shown_path(eval_dir))
    if "card" in selected:
        name_dataset_cards(out, tasks, namespace)
        overrides = stage.training_overrides(options)
        path = write_card(out, model_dir, eval_dir, namespace, config, overrides, options)
        print(f"[card] done: {shown_path(path)}")
        if options.push_to_hub:
            from wikiformer_kit.release.push import push

            push(out, model_dir, options.push_to_hub, options.private, system)
    evaluations = evaluation_summaries(dev, eval_dir, options.eval_collection, wikir_dir)
    seconds = time.monotonic() - started
    print(closing_summary(options, out, model_dir, eval_dir, tasks, seconds, evaluations))
    return 0


def export(options: ReleaseOptions, stages: Stages, config: dict, train_dir: Path, model_dir: Path, out: Path) -> None:
    """The export stage, in this process: the Hub-ready model folder and the untrained-head baseline."""
    from wikiformer_kit.release.export import export_model, fresh_head_baseline

    signature = stages.signature("export", [str(train_dir), options.eval_max_length])
    if stages.done("export", signature):
        return
    if not options.verbose:  # no loading and writing bars on the console
        from huggingface_hub.utils import disable_progress_bars
        from transformers.utils.logging import disable_progress_bar

        disable_progress_bar()
        disable_progress_bars()
    export_model(train_dir, model_dir, options.eval_max_length)
    fresh_head_baseline(config, out / "baseline" / stage.FRESH_HEAD, options.seed)
    stages.finish("export", signature)
    stages.redo_from = min(stages.redo_from, STAGES.index("eval"))  # eval stores the fusion in config.json
    print(f"[export] done: {shown_path(model_dir)} (and the untrained-head baseline for the comparison)")
