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


def bar_chart(comparison: Comparison, path: str | Path) -> Path:
    """Draw grouped bars (one group per measure, one bar per system) and save them as PNG.

    Args:
        comparison: the systems and means to draw; significantly worse bars are hatched (and the legend says so).
        path: the PNG file to write (parent folders are created).

    Returns:
        The path written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    systems = list(comparison.means)
    positions = np.arange(len(comparison.measures))
    width = 0.8 / max(1, len(systems))
    figure, axes = plt.subplots(figsize=(max(6.0, 1.2 * len(comparison.measures) + 2), 4))
    try:
        for index, system in enumerate(systems):
            values = [comparison.means[system][m] for m in comparison.measures]
            bars = axes.bar(positions + index * width - 0.4 + width / 2, values, width, label=system)
            for bar, measure in zip(bars, comparison.measures, strict=True):
                if comparison.worse.get(system, {}).get(measure):
                    bar.set_hatch("//")
        axes.set_xticks(positions, [display_name(m) for m in comparison.measures])
        axes.set_ylim(0, 1)
        axes.set_title(f"{comparison.collection} ({comparison.num_queries} queries)")
        handles, labels = axes.get_legend_handles_labels()
        if any(any(flags.values()) for flags in comparison.worse.values()):
            test = "Fisher's randomization test" if comparison.test == "fisher" else "paired t-test"
            handles.append(Patch(facecolor="white", edgecolor="black", hatch="//"))
            labels.append(f"significantly worse than {comparison.reference}\n({test}, p < {comparison.alpha:g})")
        axes.legend(handles, labels, fontsize="small")
        figure.tight_layout()
        figure.savefig(path, dpi=120)
    finally:
        plt.close(figure)
    return path
