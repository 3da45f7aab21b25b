"""Reading ahead: a reader process only where a core is free for it, and the same corpus either way."""

from __future__ import annotations

import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from tests.conftest import PROJECT_ROOT
from tests.dataset_scripts.corpus.test_build import make_multistream
from wikiformer_kit.dataset_scripts.corpus import reading
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions


@pytest.mark.parametrize(
    ("workers", "cores", "executor", "expected"),
    [(1, 2, "local", "process"), (2, 2, "local", "off"), (3, 2, "local", "off"), (1, 1, "local", "off"),
     (4, 8, "local", "process"), (1, 8, "slurm", "off"), (1, 8, "ray", "off")],
)  # fmt: skip
def test_auto_reads_ahead_only_with_a_core_to_spare(monkeypatch, workers, cores, executor, expected):
    monkeypatch.setattr(reading, "usable_cores", lambda: cores)
    assert reading.resolve_read_ahead("auto", workers, executor) == expected


def test_an_explicit_choice_is_kept_and_a_wrong_one_refused(monkeypatch):
    monkeypatch.setattr(reading, "usable_cores", lambda: 1)
    assert reading.resolve_read_ahead("process", 4) == "process"
    assert reading.resolve_read_ahead("off", 1) == "off"
    with pytest.raises(ValueError, match="read_ahead must be one of auto, process, off"):
        reading.resolve_read_ahead("thread", 1)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_usable_cores_follows_the_affinity_mask():
    narrowed = "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
    code = narrowed + "from wikiformer_kit.dataset_scripts.corpus.reading import usable_cores; print(usable_cores())"
    result = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "1", result.stderr[-1000:]


def test_the_corpus_is_the_same_whether_read_ahead_or_in_line(enwiki_sample, tmp_path):
    dump = make_multistream(enwiki_sample, tmp_path, pages_per_stream=40)
    tables = {}
    for mode in ("process", "off"):
        stats = build_corpus([dump], tmp_path / mode, CorpusOptions(read_ahead=mode, streams_per_shard=2))
        assert (stats["articles"], stats["redirects"]) == (106, 99)
        tables[mode] = [pq.read_table(p) for p in sorted((tmp_path / mode / "data").glob("*.parquet"))]
    assert len(tables["process"]) == len(tables["off"]) > 1
    assert all(a.equals(b) for a, b in zip(tables["process"], tables["off"], strict=True))
