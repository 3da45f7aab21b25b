"""Task data stays in memory-mapped Arrow: memory flat from 1x to 1000x the rows; a dataset larger than the memory
limit of the process loads; a task without a usable row is a clear error."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.training.data import load_task

from .conftest import clean_env

# Loads a task in a fresh process, reads 200 groups, and prints the peak anonymous memory (RssAnon, sampled every
# 5 ms: memory-mapped file pages are shared and reclaimable, so they are not counted) and VmHWM. With argv[3] > 0,
# the process first limits its data segment (RLIMIT_DATA: heap and anonymous mappings, not file mappings) to that
# many MiB above what it holds after the imports.
CHILD = """
import json, resource, sys, threading, time
sys.path.insert(0, sys.argv[1])
import wikiformer_kit.training.trainer  # noqa: F401  (what a train.py process holds: torch, transformers, accelerate)
from wikiformer_kit.training.collator import GroupCollator
from wikiformer_kit.training.data import GroupDataset, load_task

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024

peak = [status("RssAnon")]
def sample():
    while True:
        peak[0] = max(peak[0], status("RssAnon"))
        time.sleep(0.005)
threading.Thread(target=sample, daemon=True).start()
headroom = int(sys.argv[3]) << 20
if headroom:
    limit = status("VmData") + headroom
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
task = load_task(sys.argv[2], "srr", 30, 480)
dataset = GroupDataset([task], 8, 1)
groups = [dataset[key] for _, key in zip(range(200), dataset.sampler())]
time.sleep(0.05)
print(json.dumps({"rows": len(task), "groups": len(groups), "peak_anon": peak[0], "hwm": status("VmHWM")}))
"""


def write_repeated(path, rows: list[dict], times: int, chunk: int = 20) -> None:
    """Write ``rows`` ``times`` times over as one Parquet file, ``chunk`` copies per row group (bounded memory)."""
    table = pa.Table.from_pylist(rows)
    with pq.ParquetWriter(path, table.schema) as writer:
        for start in range(0, times, chunk):
            writer.write_table(pa.concat_tables([table] * min(chunk, times - start)))


def measure(tmp_path, data, headroom_mib: int = 0) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(PROJECT_ROOT), str(data), str(headroom_mib)],
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_memory_stays_flat_from_1x_to_1000x(srr_groups_path, tmp_path):
    rows = [json.loads(line) for line in srr_groups_path.read_text(encoding="utf-8").splitlines()]
    figures = {}
    for times in (1, 1000):  # 40 and 40,000 groups (96 KB and 96 MB of JSON)
        data = tmp_path / f"x{times}.parquet"
        write_repeated(data, rows, times)
        figures[times] = measure(tmp_path / f"home{times}", data)
        assert figures[times]["rows"] == 40 * times
    # a copy of the texts in Python objects would add over 100 MB at 1000x
    assert figures[1000]["peak_anon"] <= 1.2 * figures[1]["peak_anon"], figures


@pytest.mark.slow
def test_dataset_larger_than_the_memory_limit_loads(srr_groups_path, tmp_path):
    rows = [json.loads(line) for line in srr_groups_path.read_text(encoding="utf-8").splitlines()]
    data = tmp_path / "big.parquet"
    write_repeated(data, rows, 4000)  # 160,000 groups, about 380 MB of text in Arrow
    figures = measure(tmp_path, data, headroom_mib=128)
    assert figures["rows"] == 160_000 and figures["groups"] == 200


def test_a_task_without_usable_rows_is_a_clear_error(tmp_path):
    path = tmp_path / "unusable.jsonl"
    rows = [
        {"query": "", "positive": "p", "negatives": ["n"]},
        {"query": "q", "positive": "p", "negatives": ["p", " "]},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(ValueError, match=r"unusable\.jsonl: no usable group in 2 rows .*'empty query': 1.*"):
        load_task(str(path), "t", 30, 480)
