from __future__ import annotations

import json

import pytest

from wikiformer_kit.eval.metrics import Evaluation
from wikiformer_kit.eval.report import (
    Comparison,
    bar_chart,
    combined_markdown_table,
    compare,
    latex_table,
    markdown_table,
)

QUERIES = [f"q{i}" for i in range(12)]


def _evaluation(values):
    return Evaluation(
        {"nDCG@10": dict(zip(QUERIES, values, strict=True)), "RR@10": dict(zip(QUERIES, values, strict=True))}, 2
    )


@pytest.fixture
def comparison():
    good = [0.8, 0.7, 0.9, 0.6, 0.8, 0.7, 0.9, 0.8, 0.7, 0.6, 0.8, 0.9]
    evaluations = {
        "bm25": _evaluation(good),
        "same_mean": _evaluation(list(reversed(good))),
        "bad": _evaluation([v - 0.3 for v in good]),
    }
    return compare("dl20", evaluations, ["nDCG@10", "RR@10"], reference="bm25", permutations=2000)


def test_marks_follow_the_paper(comparison):
    assert comparison.worse["bad"] == {"nDCG@10": True, "RR@10": True}
    assert comparison.worse["same_mean"] == {"nDCG@10": False, "RR@10": False}
    assert comparison.best("nDCG@10") == {"bm25", "same_mean"}
    table = markdown_table(comparison)
    assert "| system | nDCG@10 | MRR@10 |" in table
    assert "| bm25 | **0.7667** | **0.7667** |" in table
    assert "| bad | 0.4667\\* | 0.4667\\* |" in table
    assert "12 queries" in table and "significantly worse than bm25" in table
    latex = latex_table(comparison)
    assert "bm25 & \\textbf{0.7667} & \\textbf{0.7667} \\\\" in latex
    assert "bad & 0.4667$^*$ & 0.4667$^*$ \\\\" in latex
    assert "same\\_mean" in latex and "\\begin{tabular}{lrr}" in latex


def test_json_round_trip_and_combined_table(comparison, tmp_path):
    path = comparison.save_json(tmp_path / "c.json")
    restored = Comparison.from_dict(json.loads(path.read_text()))
    assert markdown_table(restored) == markdown_table(comparison)
    assert restored.p_values["bad"]["nDCG@10"] < 0.05
    combined = combined_markdown_table([comparison, restored], ["nDCG@10"])
    assert combined.splitlines()[0] == "| system | dl20 nDCG@10 | dl20 nDCG@10 |"


def test_chart_is_a_png(comparison, tmp_path):
    path = bar_chart(comparison, tmp_path / "charts" / "c.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_rejects_bad_input():
    a = _evaluation([0.5] * 12)
    with pytest.raises(ValueError, match="reference 'x' is not one of"):
        compare("c", {"a": a}, ["nDCG@10"], reference="x")
    short = Evaluation({"nDCG@10": {"q0": 1.0}}, 1)
    with pytest.raises(ValueError, match="different queries"):
        compare("c", {"a": a, "b": short}, ["nDCG@10"])
    with pytest.raises(ValueError, match=r"has no values for \['AP'\]"):
        compare("c", {"a": a}, ["AP"])


def test_chart_legend_explains_the_hatching(comparison, tmp_path, monkeypatch):
    import matplotlib.figure

    legend: list[str] = []
    save = matplotlib.figure.Figure.savefig

    def spy(figure, *args, **kwargs):
        legend.extend(text.get_text() for text in figure.axes[0].get_legend().get_texts())
        return save(figure, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", spy)
    bar_chart(comparison, tmp_path / "c.png")
    assert any(text.startswith(f"significantly worse than {comparison.reference}") for text in legend), legend


def test_a_significant_gain_over_the_reference_is_marked_too():
    start = [0.5, 0.4, 0.6, 0.3, 0.5, 0.4, 0.6, 0.5, 0.4, 0.3, 0.5, 0.6]
    evaluations = {
        "start": _evaluation(start),
        "pre-trained": _evaluation([v + 0.3 for v in start]),  # better on every query
        "noise": _evaluation(list(reversed(start))),
    }
    comparison = compare("cranfield", evaluations, ["nDCG@10"], reference="start", permutations=2000)
    assert comparison.better["pre-trained"] == {"nDCG@10": True} and comparison.worse["pre-trained"] == {
        "nDCG@10": False
    }
    assert comparison.better["noise"] == {"nDCG@10": False}
    table = markdown_table(comparison)
    assert "| pre-trained | **0.7667**† |" in table and "† = significantly better than start" in table
    latex = latex_table(comparison)
    assert "\\textbf{0.7667}$^\\dagger$" in latex and "$^\\dagger$ = significantly better" in latex
    restored = Comparison.from_dict(json.loads(json.dumps(comparison.to_dict())))
    assert restored.better == comparison.better
    assert "0.7667**†" in combined_markdown_table([comparison], ["nDCG@10"])
