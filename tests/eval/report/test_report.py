from __future__ import annotations

import json

import pytest

from wikiformer_kit.eval.metrics import Evaluation, display_name
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


def drawn_chart(comparison, path, monkeypatch) -> dict:
    """What `bar_chart` drew: the legend's texts and each bar's mark, ``{(system, measure): mark}``."""
    import matplotlib.figure

    drawn: dict = {}
    save = matplotlib.figure.Figure.savefig

    def spy(figure, *args, **kwargs):
        axes = figure.axes[0]
        drawn["legend"] = [text.get_text() for text in axes.get_legend().get_texts()]
        marks = {(round(a.xy[0], 6), round(a.xy[1], 6)): a.get_text() for a in axes.texts}
        bars = iter(axes.patches)
        drawn["marks"] = {}
        for system in comparison.means:
            for measure in comparison.measures:
                bar = next(bars)
                top = (round(bar.get_x() + bar.get_width() / 2, 6), round(bar.get_height(), 6))
                drawn["marks"][(system, measure)] = marks.get(top, "")
        return save(figure, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", spy)
    bar_chart(comparison, path)
    return drawn


def test_chart_legend_explains_the_hatching(comparison, tmp_path, monkeypatch):
    legend = drawn_chart(comparison, tmp_path / "c.png", monkeypatch)["legend"]
    assert any(text.startswith(f"* significantly worse than {comparison.reference}") for text in legend), legend
    assert not any("better" in text for text in legend)  # no bar is significantly better


def test_table_chart_and_json_show_one_verdict(tmp_path, monkeypatch):
    """Worse and better, on every measure: the table's marks, the chart's marks and comparison.json agree."""
    start = [0.5, 0.4, 0.6, 0.3, 0.5, 0.4, 0.6, 0.5, 0.4, 0.3, 0.5, 0.6]
    lower = [v - 0.3 for v in start]
    higher = [v + 0.3 for v in start]

    def measured(ndcg, rr):
        return Evaluation(
            {"nDCG@10": dict(zip(QUERIES, ndcg, strict=True)), "RR@100": dict(zip(QUERIES, rr, strict=True))}, 2
        )

    evaluations = {"start": measured(start, start), "better": measured(higher, start), "worse": measured(start, lower)}
    comparison = compare("c", evaluations, ["nDCG@10", "RR@100"], reference="start", permutations=2000)
    expected = {
        ("start", "nDCG@10"): "", ("start", "RR@100"): "",
        ("better", "nDCG@10"): "†", ("better", "RR@100"): "",
        ("worse", "nDCG@10"): "", ("worse", "RR@100"): "*",
    }  # fmt: skip
    restored = Comparison.from_dict(json.loads(json.dumps(comparison.to_dict())))
    verdicts = {key: {"worse": "*", "better": "†"}.get(restored.verdict(*key), "") for key in expected}
    assert verdicts == expected
    assert {key: mark_of(cell_of(comparison, *key)) for key in expected} == expected
    drawn = drawn_chart(comparison, tmp_path / "c.png", monkeypatch)
    assert drawn["marks"] == expected
    assert any(text.startswith("† significantly better than start") for text in drawn["legend"])
    assert any(text.startswith("* significantly worse than start") for text in drawn["legend"])


def mark_of(cell: str) -> str:
    """A markdown table cell's significance mark: ``*``, ``†`` or none."""
    return "*" if cell.endswith("\\*") else "†" if cell.endswith("†") else ""


def cell_of(comparison, system: str, measure: str) -> str:
    """The cell of ``system`` and ``measure`` in the comparison's markdown table."""
    lines = markdown_table(comparison).splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0] == system:
            return cells[header.index(display_name(measure))]
    raise KeyError(system)


def test_a_view_renames_and_drops_systems_keeping_the_verdicts(comparison):
    view = comparison.view({"bad": "bad (this model)", "bm25": "BM25"})
    assert list(view.means) == ["bad (this model)", "BM25"] and view.reference == "BM25"
    assert view.worse["bad (this model)"] == comparison.worse["bad"]
    assert view.p_values["bad (this model)"] == comparison.p_values["bad"] and "same_mean" not in view.worse
    assert "| bad (this model) | 0.4667\\* | 0.4667\\* |" in markdown_table(view)
    with pytest.raises(KeyError, match="no system 'dense'"):
        comparison.view({"dense": "dense"})


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
