"""Reports: comparisons with significance marks, markdown/LaTeX tables, metrics JSON and a PNG chart."""

from __future__ import annotations

from wikiformer_kit.eval.report.chart import bar_chart
from wikiformer_kit.eval.report.comparison import Comparison, compare
from wikiformer_kit.eval.report.tables import combined_markdown_table, latex_table, markdown_table

__all__ = ["Comparison", "bar_chart", "combined_markdown_table", "compare", "latex_table", "markdown_table"]
