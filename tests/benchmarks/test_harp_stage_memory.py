"""benchmarks/harp_stage_memory.py: each HARP stage's worker memory, the rows stage stopped after a few units."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions

SAMPLE = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "wikipedia" / "enwiki-sample.xml.bz2"


def test_the_rows_stage_stops_after_the_units_asked_for(tmp_path):
    build_corpus([str(SAMPLE)], tmp_path / "corpus", CorpusOptions(read_ahead="off"))  # 106 articles: 11 units
    result = subprocess.run(
        [sys.executable, "-m", "wikiformer_kit.benchmarks.harp_stage_memory", "--corpus", str(tmp_path / "corpus"),
         "--rows-units", "2", "--articles-per-unit", "10", "--num-proc", "1", "--work-dir", str(tmp_path)],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    line = next(line for line in result.stderr.splitlines() if line.startswith("{"))
    measured = json.loads(line)
    assert measured["articles"] == 106
    assert 2 <= measured["rows_units_done"] < 11  # stopped, not run to the end
    for stage in ("baseline-stats", "baseline-model", "baseline"):
        assert measured["stages"][stage]["worker_rss"] > 0 and measured["stages"][stage]["s"] >= 0
    assert "\n| 106 | " in result.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["corpus"]  # the build was removed
