"""What the release says on its console: each stage's product, the evaluations labelled dev or test, and the closing
lines."""

from __future__ import annotations

import json
from pathlib import Path

from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.cli.durations import duration
from wikiformer_kit.dataset_scripts.stage_console import shown_path
from wikiformer_kit.release.card import measure_label
from wikiformer_kit.release.layout import json_record, nanobeir_figures
from wikiformer_kit.release.options import ReleaseOptions
from wikiformer_kit.release.selection import Selection


def describe_datasets(out: Path, tasks: tuple[str, ...]) -> str:
    """Rows per task dataset, from the build's summary."""
    rows = json_record(out / "datasets" / ".build" / "summary.json")
    if rows is None:
        return shown_path(out / "datasets")
    return ", ".join(f"{task} {rows.get(task, {}).get('rows', 0):,} rows" for task in tasks)


def describe_training(train_dir: Path, config: dict) -> str:
    """Steps run and the kept checkpoint's selection figure, from the trainer's state, named with the pair length
    it was measured at (the evaluation stage measures at ``--eval-max-length``)."""
    state = json_record(train_dir / "trainer_state.json")
    if state is None:
        return shown_path(train_dir)
    best = state.get("best_metric")
    checkpoint = state.get("best_model_checkpoint")
    kept = f", kept step {Path(checkpoint).name.split('-')[-1]}" if checkpoint else ""
    name = measure_label(str(config.get("metric_for_best_model", "metric")))
    length = config.get("eval_max_length", 512)
    metric = f" (best dev {name} {best:.4f} at {length}-token pairs{kept})" if best is not None else ""
    return f"{state.get('global_step')} steps{metric}"


def closing_summary(
    options: ReleaseOptions, out: Path, model_dir: Path, eval_dir: Path, tasks, seconds: float, evaluations=()
) -> str:
    """The closing lines: where everything is, the results table (once) and what to do next."""
    lines = [f"\nFinished in {duration(seconds)}.", *evaluations]
    if (model_dir / "config.json").exists():  # only what this or an earlier run made
        lines.append(f"model:    {shown_path(model_dir)}  (card: {shown_path(model_dir / 'README.md')})")
    if (out / "datasets").is_dir():
        lines.append(f"datasets: {shown_path(out / 'datasets')}/wikiformer-{{{','.join(tasks)}}}")
    if (eval_dir / "compare").is_dir():
        lines.append(f"results:  {shown_path(eval_dir / 'compare')}  (per-query figures, significance, chart)")
    evaluate, release = as_run("python -m eval"), as_run("python release.py")
    if not options.verbose:
        lines.append(f"logs:     {shown_path(out / 'logs')}  (or rerun with --verbose)")
    if (model_dir / "config.json").exists():
        lines += [
            "Next:",
            f'  python -c "from sentence_transformers import CrossEncoder; '
            f"print(CrossEncoder('{shown_path(model_dir)}').predict([('what is albedo', 'Albedo is the fraction of "
            "light a surface reflects.'), ('what is albedo', 'Paris is in France.')]))\"",
            f"  {evaluate} rerank --model {shown_path(model_dir)} --collection YOUR_COLLECTION --output-dir OUT  (docs/evaluation.md)",
        ]
        if not options.push_to_hub:
            lines.append(f"  {release} --push-to-hub NAMESPACE   (publishes the model and datasets; "
                         "finished stages are reused)")  # fmt: skip
    return "\n".join(lines)


def evaluation_summaries(dev: Selection, eval_dir: Path, eval_collection: str, wikir_dir: Path) -> list[str]:
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
            lines.append(f"evaluation, {dev.role(spec, record['num_queries'])} ({shown_path(Path(spec))})")
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
