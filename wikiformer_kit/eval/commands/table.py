"""``python -m eval table FILE...``: markdown or LaTeX tables from ``eval compare``'s comparison.json files."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from wikiformer_kit.cli import InputError
from wikiformer_kit.cli.options import POSITIONAL, option


@dataclass(kw_only=True)
class TableOptions:
    """render tables from comparison.json files (one per collection)"""

    comparisons: list[str] = option(
        flags=(POSITIONAL,), nargs="+", help="comparison.json files written by python -m eval compare"
    )
    measures: list[str] | None = option(help="measures shown (default: those of the first file)")
    latex: bool = option(False, help="LaTeX tables instead of markdown")


def _read_comparison(comparison_class, path: Path):
    """A ``comparison.json``; an error naming the file when it is not one."""
    try:
        return comparison_class.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, AttributeError) as error:
        raise InputError(
            f"{path}: not a comparison.json written by python -m eval compare ({type(error).__name__}: {error})"
        ) from error


def run(options: TableOptions) -> int:
    """Print the tables: one markdown table of every file (a LaTeX table each with ``--latex``)."""
    from wikiformer_kit.eval.report import Comparison, combined_markdown_table, latex_table, markdown_table

    comparisons = [_read_comparison(Comparison, Path(p)) for p in options.comparisons]
    measures = options.measures or comparisons[0].measures
    for comparison in comparisons:
        unknown = [m for m in measures if m not in comparison.measures]
        if unknown:
            raise ValueError(f"{comparison.collection}: no values for {unknown} (has {comparison.measures})")
    if options.latex:
        for comparison in comparisons:
            comparison.measures = list(measures)
            print(latex_table(comparison))
    elif len(comparisons) == 1:
        comparisons[0].measures = list(measures)
        print(markdown_table(comparisons[0]))
    else:
        print(combined_markdown_table(comparisons, measures))
    return 0
