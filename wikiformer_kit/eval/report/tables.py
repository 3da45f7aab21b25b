"""Markdown and LaTeX tables with the paper's conventions: best value per column in bold, ``*`` where a system is
significantly worse than the reference, ``†`` where it is significantly better."""

from __future__ import annotations

from collections.abc import Sequence

from wikiformer_kit.eval.metrics import display_name
from wikiformer_kit.eval.report.comparison import Comparison


def _cell(
    comparison: Comparison, system: str, measure: str, digits: int, bold=("**", "**"), star="\\*", dagger="†"
) -> str:
    """One figure: in bold where it is the column's best, marked where it differs significantly from the reference."""
    text = f"{comparison.means[system][measure]:.{digits}f}"
    if system in comparison.best(measure, digits):
        text = f"{bold[0]}{text}{bold[1]}"
    return text + {"worse": star, "better": dagger}.get(comparison.verdict(system, measure), "")


def _caption(comparison: Comparison) -> str:
    text = f"{comparison.collection}, {comparison.num_queries} queries."
    if comparison.relevance_level is not None:
        text += f" Binary measures count grades >= {comparison.relevance_level} as relevant."
    if comparison.reference:
        test = "Fisher's randomization test" if comparison.test == "fisher" else "paired t-test (Bonferroni)"
        text += f" * = significantly worse than {comparison.reference} ({test}, p < {comparison.alpha})."
        if any(any(flags.values()) for flags in comparison.better.values()):
            text += f" † = significantly better than {comparison.reference}."
    return text


def _level(comparison: Comparison) -> str:
    return "" if comparison.relevance_level is None else f", relevant >= {comparison.relevance_level}"


def markdown_table(comparison: Comparison, digits: int = 4) -> str:
    """One markdown table: a row per system, a column per measure, with a caption line below."""
    header = ["system", *(display_name(m) for m in comparison.measures)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" + "---:|" * len(comparison.measures)]
    for system in comparison.means:
        cells = [_cell(comparison, system, measure, digits) for measure in comparison.measures]
        lines.append("| " + " | ".join([system, *cells]) + " |")
    return "\n".join(lines) + f"\n\n{_caption(comparison)}\n"


_LATEX_SPECIALS = {
    "\\": "\\textbackslash{}",
    "&": "\\&",
    "%": "\\%",
    "$": "\\$",
    "#": "\\#",
    "_": "\\_",
    "{": "\\{",
    "}": "\\}",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(char, char) for char in text)


def latex_table(comparison: Comparison, digits: int = 4) -> str:
    """A LaTeX ``table`` (booktabs) with the same content as `markdown_table`."""
    columns = "l" + "r" * len(comparison.measures)
    caption = _latex_escape(_caption(comparison)).replace("†", "$^\\dagger$")
    header = " & ".join(["System", *(_latex_escape(display_name(m)) for m in comparison.measures)])
    marks = {"bold": ("\\textbf{", "}"), "star": "$^*$", "dagger": "$^\\dagger$"}
    rows = [
        " & ".join(
            [_latex_escape(system), *(_cell(comparison, system, m, digits, **marks) for m in comparison.measures)]
        )
        + " \\\\"
        for system in comparison.means
    ]
    return (
        "\n".join(
            [
                "\\begin{table}[t]",
                "\\centering",
                f"\\begin{{tabular}}{{{columns}}}",
                "\\toprule",
                header + " \\\\",
                "\\midrule",
                *rows,
                "\\bottomrule",
                "\\end{tabular}",
                f"\\caption{{{caption}}}",
                "\\end{table}",
            ]
        )
        + "\n"
    )


def combined_markdown_table(comparisons: Sequence[Comparison], measures: Sequence[str], digits: int = 4) -> str:
    """One markdown table across collections: a row per system, a column per (collection, measure).

    Bold, ``*`` and ``†`` follow each collection's own comparison; a system missing on a collection shows ``-``.
    """
    systems = list(dict.fromkeys(s for c in comparisons for s in c.means))
    header = ["system"] + [f"{c.collection} {display_name(m)}" for c in comparisons for m in measures]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for system in systems:
        cells = [system]
        for comparison in comparisons:
            for measure in measures:
                missing = system not in comparison.means or measure not in comparison.measures
                cells.append("-" if missing else _cell(comparison, system, measure, digits))
        lines.append("| " + " | ".join(cells) + " |")
    notes = "; ".join(f"{c.collection}: {c.num_queries} queries{_level(c)}" for c in comparisons)
    reference = next((c.reference for c in comparisons if c.reference), None)
    mark = f" * = significantly worse than {reference} (p < {comparisons[0].alpha})." if reference else ""
    if any(any(flags.values()) for c in comparisons for flags in c.better.values()):
        mark += f" † = significantly better than {reference}."
    return "\n".join(lines) + f"\n\n{notes}.{mark}\n"
