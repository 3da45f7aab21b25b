"""The build's plan (``--plan``): measured on a sample of the input, a wall time predicted per process count that
falls as processes are added, never below the serial part."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ENWIKI_SAMPLE
from wikiformer_kit.dataset_scripts.build import main
from wikiformer_kit.dataset_scripts.build_plan import (
    PlanFigures,
    StageCost,
    longest_share,
    plan_table,
    predict,
    stage_pieces,
)

FIGURES = PlanFigures(
    sample_articles=1000,
    startup=3.0,
    corpus_startup=2.0,
    stages=(
        StageCost("corpus", 0.02, 0.0, "shards"),
        StageCost("tasks", 0.003, 0.0, "units"),
        StageCost("see-also-join", 0.00005, 0.0, "buckets"),
        StageCost("ltm", 0.0002, 0.0, "units"),
        StageCost("statistics merge", 0.000005, 0.0, "one"),
        StageCost("cards", 0.0, 0.5, "datasets"),
    ),
    articles_per_unit=1000,
    datasets=4,
)


def test_pieces_and_the_busiest_process():
    assert stage_pieces("units", 2500, 1000, 4) == [1000, 1000, 500]
    assert sum(stage_pieces("buckets", 6_800_000, 1000, 4)) == 6_800_000
    assert len(stage_pieces("buckets", 6_800_000, 1000, 4)) == 28
    assert longest_share([1000, 1000, 500], 2) == 1500
    assert longest_share([1000, 1000, 500], 16) == 1000  # a unit is not split


def test_predictions_fall_with_processes_and_respect_the_serial_part():
    articles = 6_800_000
    times = [predict(FIGURES, articles, p).total for p in (1, 2, 16, 64, 256, 100_000)]
    assert times == sorted(times, reverse=True) and len(set(times)) == len(times)
    huge = predict(FIGURES, articles, 10**7)
    assert huge.total >= huge.serial > 0
    # nothing is faster than its serial part, and a unit of 1,000 articles is the least a process gets
    assert huge.stages["tasks"] == pytest.approx(0.003 * 1000)
    one = predict(FIGURES, articles, 1)
    assert one.total == pytest.approx(3.0 + 2.0 + articles * (0.02 + 0.003 + 0.00005 + 0.0002 + 0.000005) + 0.5)
    # a cluster pays the start-up again in each of the task stages
    assert predict(FIGURES, articles, 256, nodes=4).total > predict(FIGURES, articles, 256).total


def test_the_table_has_a_row_per_process_count_and_cluster():
    lines = plan_table(FIGURES, 6_800_000, (1, 16), [(4, 64)])
    assert lines[0] == "| processes | nodes x cores | corpus stage | task stage | total | speed-up | serial share |"
    assert [line.split(" | ")[1] for line in lines[2:]] == ["1 x 1", "1 x 16", "4 x 64"]
    assert lines[2].split(" | ")[5] == "1.0x"


@pytest.mark.slow  # the corpus stage twice and a whole build, each in a process of its own
def test_plan_of_the_vendored_dump_prints_its_figures_and_table(tmp_path, capsys):
    figures = tmp_path / "figures.json"
    argv = ["--input", str(ENWIKI_SAMPLE), "--plan", "--plan-sample", "40", "--plan-articles", "6800000"]
    assert main([*argv, "--plan-processes", "1", "2", "16", "--plan-cluster", "2x8", "--plan-json", str(figures)]) == 0
    out = capsys.readouterr().out.splitlines()
    table = [line for line in out if line.startswith("| ")]
    assert table[0].startswith("| processes | nodes x cores | corpus stage | task stage | total |")
    assert len(table) == 1 + 4  # header and 4 rows (the separator starts with "|-")
    hours = [line.split(" | ")[4] for line in table[1:]]
    assert all(h.endswith((" h", " min", " s")) for h in hours)
    measured = json.loads(figures.read_text())
    assert measured["sample_articles"] == 40 and measured["articles"] == 6_800_000
    names = [stage["name"] for stage in measured["stages"]]
    assert names[:4] == ["corpus", "tasks", "see-also-join", "ltm"] and "cards" in names
    assert all(stage["per_article"] > 0 for stage in measured["stages"] if stage["name"] in ("corpus", "tasks"))
    assert measured["startup"] > 0.5  # a whole process: imports and the executors
    predicted = [predict(PlanFigures.from_dict(measured), 6_800_000, p).total for p in (1, 2, 16)]
    assert predicted == sorted(predicted, reverse=True)


def test_a_bad_cluster_is_a_clear_error(tmp_path, capsys):
    assert main(["--input", str(ENWIKI_SAMPLE), "--plan", "--plan-cluster", "four"]) == 2
    assert "NODESxCORES" in capsys.readouterr().err
