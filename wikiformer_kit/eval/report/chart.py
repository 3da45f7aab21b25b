"""A PNG bar chart comparing systems per measure (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen before pyplot is imported)
import numpy as np  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from wikiformer_kit.eval.metrics import display_name  # noqa: E402
from wikiformer_kit.eval.report.comparison import Comparison  # noqa: E402

MARKS = {"worse": ("*", "//"), "better": ("†", "..")}
"""A verdict against the reference -> the mark over its bar (the tables' mark) and the bar's hatch."""


def bar_chart(comparison: Comparison, path: str | Path) -> Path:
    """Draw grouped bars (one group per measure, one bar per system) and save them as a PNG at ``path`` (its
    folders made; returned). A bar significantly worse than the reference carries the tables' ``*`` and is
    hatched ``//``, one significantly better carries ``†`` and is dotted (the legend says so)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    systems = list(comparison.means)
    positions = np.arange(len(comparison.measures))
    width = 0.8 / max(1, len(systems))
    figure, axes = plt.subplots(figsize=(max(6.0, 1.2 * len(comparison.measures) + 2), 4))
    try:
        shown = set()
        for index, system in enumerate(systems):
            values = [comparison.means[system][m] for m in comparison.measures]
            bars = axes.bar(positions + index * width - 0.4 + width / 2, values, width, label=system)
            for bar, measure in zip(bars, comparison.measures, strict=True):
                verdict = comparison.verdict(system, measure)
                if verdict:
                    mark, hatch = MARKS[verdict]
                    bar.set_hatch(hatch)
                    top = (bar.get_x() + bar.get_width() / 2, bar.get_height())
                    axes.annotate(mark, top, ha="center", va="bottom", fontsize="small")
                    shown.add(verdict)
        axes.set_xticks(positions, [display_name(m) for m in comparison.measures])
        axes.set_ylim(0, 1.05)
        axes.set_title(f"{comparison.collection} ({comparison.num_queries} queries)")
        handles, labels = axes.get_legend_handles_labels()
        test = "Fisher's randomization test" if comparison.test == "fisher" else "paired t-test"
        for verdict in ("worse", "better"):
            if verdict in shown:
                mark, hatch = MARKS[verdict]
                handles.append(Patch(facecolor="white", edgecolor="black", hatch=hatch))
                labels.append(
                    f"{mark} significantly {verdict} than {comparison.reference}\n({test}, p < {comparison.alpha:g})"
                )
        axes.legend(handles, labels, fontsize="small")
        figure.tight_layout()
        figure.savefig(path, dpi=120)
    finally:
        plt.close(figure)
    return path
