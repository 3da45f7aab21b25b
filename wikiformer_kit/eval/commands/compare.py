"""``python -m eval compare RUN...``: evaluate runs, test significance against a reference, write tables, a chart."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wikiformer_kit.cli.options import POSITIONAL, option
from wikiformer_kit.eval.collections import Run
from wikiformer_kit.eval.commands.groups import CollectionOptions
from wikiformer_kit.eval.commands.shared import load, read_run
from wikiformer_kit.eval.metrics import DEFAULT_MEASURES, evaluate_run


@dataclass(kw_only=True)
class CompareOptions(CollectionOptions):
    """evaluate runs, test significance, write tables and a chart"""

    runs: list[str] = option(flags=(POSITIONAL,), nargs="+", help="TREC run files (named by file stem, or NAME=PATH)")
    reference: str | None = option(help="the run the others are tested against (a name or a file)")
    measures: list[str] = option(list(DEFAULT_MEASURES), help="measures compared")
    test: Literal["fisher", "ttest"] = option("fisher", help="fisher: randomization test; ttest: paired t")
    alpha: float = option(0.05, help="significance level")
    permutations: int = option(10_000, help="permutations of the randomization test")
    seed: int = option(42, help="seed of the randomization test")
    complete: bool = option(False, help="score judged queries missing from a run as 0 (trec_eval -c)")
    output_dir: str | None = option(help="write comparison.json, table.md, table.tex, chart.png, metrics.json")


def _named_runs(specs: list[str]) -> tuple[dict[str, Run], dict[str, str]]:
    """The runs of ``NAME=PATH`` or ``PATH`` specs by name, and each name's file."""
    runs, paths = {}, {}
    for spec in specs:
        name, equals, path = spec.partition("=")
        if not equals:
            name, path = Path(spec).stem, spec
        if name in runs:
            raise ValueError(f"two runs are named {name!r}; name them as NAME=PATH")
        runs[name], paths[name] = read_run(path), path
    return runs, paths


def run(options: CompareOptions) -> int:
    """Evaluate the runs, compare them with the reference, print the table and write the files."""
    from wikiformer_kit.eval.report import bar_chart, compare, latex_table, markdown_table

    collection = load(options)
    runs, paths = _named_runs(options.runs)
    reference = None
    if options.reference:
        reference = options.reference if options.reference in runs else Path(options.reference).stem
        if reference not in runs:
            runs = {reference: read_run(options.reference), **runs}
            paths[reference] = options.reference
    judged = (collection.qrels, options.measures, collection.relevance_level)
    checks = {"complete": options.complete, "documents": set(collection.documents)}
    # a run whose document ids match nothing of the collection is refused, a partial match warned about
    evaluations = {name: evaluate_run(ranking, *judged, source=paths[name], **checks) for name, ranking in runs.items()}
    test = (options.test, options.alpha, options.permutations, options.seed)
    comparison = compare(collection.name, evaluations, options.measures, reference, *test)
    print(markdown_table(comparison))
    if options.output_dir:
        out = Path(options.output_dir)
        comparison.save_json(out / "comparison.json")
        (out / "table.md").write_text(markdown_table(comparison), encoding="utf-8")
        (out / "table.tex").write_text(latex_table(comparison), encoding="utf-8")
        bar_chart(comparison, out / "chart.png")
        per_query = {name: e.to_dict() for name, e in evaluations.items()}
        (out / "metrics.json").write_text(json.dumps(per_query, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out}/comparison.json, table.md, table.tex, chart.png, metrics.json")
    return 0
