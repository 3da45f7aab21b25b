"""The card stage: the model card from what the release measured (every figure read from the evaluation's files),
and the dataset cards named for the Hub namespace."""

from __future__ import annotations

import json
from pathlib import Path

from wikiformer_kit.dataset_scripts.tasks.registry import SYSTEMS
from wikiformer_kit.eval.hub_results import hub_collection
from wikiformer_kit.release.layout import json_record, nanobeir_figures, published_wikir, task_dirs
from wikiformer_kit.release.options import SAMPLE_WIKIR_ARGS, ReleaseOptions
from wikiformer_kit.release.selection import CHOSEN, selection
from wikiformer_kit.training.kit_arguments import EMBEDDED_MINILM

MINILM_HUB_ID = "sentence-transformers/all-MiniLM-L6-v2"
"""The public checkpoint the embedded MiniLM (``embedded:minilm``) is a copy of: what a card names."""


def write_card(
    out: Path, model_dir: Path, eval_dir: Path, namespace: str, config: dict, overrides: dict, options: ReleaseOptions
) -> Path:
    """Render the model card from what this run measured (every figure read from the evaluation's files)."""
    from wikiformer_kit.eval.collections import load_collection
    from wikiformer_kit.model_card import CardInputs, write_model_card

    system = options.system
    dev = selection(options, out / "wikir", announce=False)
    base = config.get("model_name_or_path", EMBEDDED_MINILM)
    base = MINILM_HUB_ID if base == EMBEDDED_MINILM else base
    fresh_head = f"{Path(base).name} + untrained head"
    note = (
        f"`{fresh_head}` is the checkpoint training started from, with an untrained (seeded random) head. "
        "Every figure is computed from the evaluation's files (runs, per-query values, significance tests) by the "
        "Wikiformer kit's `python release.py`."
    )
    extra = options.wikir_extra_args
    relaxed = (
        ": the minimum of linking documents relaxed for the 106-article sample" if extra == SAMPLE_WIKIR_ARGS else ""
    )
    command = "python -m dataset_scripts.wikir" + (f" {extra}" if extra else "")
    wikir = f"A WIKIR collection built from the same dump (`{command}`{relaxed}). "
    found = [
        collection_evaluation(
            folder,
            system,
            candidates,
            CHOSEN if dev.chose_on(spec) else "",
            prefix + note,
            options,
            {"minilm-fresh-head": fresh_head},
            hub,
        )
        for folder, spec, candidates, prefix, hub in (
            (eval_dir, options.eval_collection, options.eval_candidates, "", hub_collection(options.eval_collection)),
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
    built_from = f"built from {', '.join(Path(p).name for p in options.input)}"
    datasets = [
        (f"{namespace}/{path.name}", built_from if (path / "README.md").exists() else "")
        for path in task_dirs(out, SYSTEMS[system])
    ]
    selected_on = stored.get("fusion_dev_collection") or (
        load_collection(dev.spec).name if Path(dev.spec).exists() else Path(dev.spec).name
    )
    inputs = CardInputs(
        repo_id=f"{namespace}/{system}",
        base_model=base,
        training_datasets=datasets,
        recipe=training_recipe(config, overrides, out / "train"),
        max_length=options.eval_max_length,
        evaluation=evaluation,
        fusion=fusion,
        method=system,
        fusion_evidence=stored.get("fusion_cv"),
        more_evaluations=more,
        chart=draw_chart(evaluation, model_dir),
        checkpoint_selection=checkpoint_selection(config, out / "train", selected_on, options.eval_max_length),
        nanobeir=nanobeir_figures(eval_dir),
    )
    return write_model_card(model_dir, inputs)


def collection_evaluation(
    folder: Path,
    system: str,
    candidates: str,
    chosen_on: str,
    note: str,
    options: ReleaseOptions,
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
    settings = {
        "fused_system": fused if fused in payload else None,
        "fusion": payload.get(fused, {}).get("fusion"),
        "fusion_changes_ranking": fused in payload
        and not same_ranking(folder / system / f"{fused}.run", folder / system / f"{candidates}.run"),
        "chosen_on": chosen_on,
        "note": note,
        "first_stage": candidates,
        "depth": options.eval_depth,
        "max_length": options.eval_max_length,
        "labels": labels or {},
        "hub_dataset": hub_dataset,
    }
    comparison = folder / "compare" / "comparison.json"
    if comparison.exists():
        record = Comparison.from_dict(json.loads(comparison.read_text(encoding="utf-8")))
        return Evaluation.from_comparison(record, system, **settings)
    return Evaluation.from_metrics_json(metrics, system, folder.name, **settings)


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
    state = json_record(train_dir / "trainer_state.json")
    if state is not None:
        recipe["optimizer steps run"] = state.get("global_step")
    return recipe


def checkpoint_selection(config: dict, train_dir: Path, dev_collection: str, eval_max_length: int) -> str:
    """How training chose the checkpoint, with the figure it chose by, named as what it is: a selection figure on
    the dev collection at training's evaluation length (empty without a recorded best checkpoint)."""
    state = json_record(train_dir / "trainer_state.json") or {}
    if state.get("best_metric") is None:
        return ""
    metric = measure_label(str(config.get("metric_for_best_model", "the evaluation metric")))
    step = state.get("best_global_step") or (
        Path(state["best_model_checkpoint"]).name.split("-")[-1] if state.get("best_model_checkpoint") else None
    )
    kept = config.get("load_best_model_at_end", False)
    candidates = f"the first stage's top {config['eval_depth']}, " if config.get("eval_depth") else ""
    length = config.get("eval_max_length", 512)
    return (
        f"Checkpoint selection: training evaluated its checkpoints on the dev collection **{dev_collection}** "
        f"({candidates}pairs of up to {length} tokens); the best {metric} was "
        f"{state['best_metric']:.4f}" + (f", at step {step}" if step else "")
        + ("; that checkpoint is this model." if kept else "; the model is the last checkpoint.")
        + " A selection figure, not a result"
        + (f": the evaluation below uses pairs of up to {eval_max_length} tokens." if length != eval_max_length else ".")
    )  # fmt: skip


def measure_label(metric: str) -> str:
    """A Trainer metric name as the tables name it (``ndcg@10`` -> ``nDCG@10``, ``mrr@10`` -> ``MRR@10``)."""
    name = metric.removeprefix("eval_")
    for prefix, label in (("ndcg", "nDCG"), ("mrr", "MRR"), ("map", "MAP")):
        if name.lower().startswith(prefix):
            return label + name[len(prefix) :]
    return name
