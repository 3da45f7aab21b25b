"""benchmarks/memory_sampler.py: RSS, anonymous memory and USS of a process tree, peaks overall and per time window."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from wikiformer_kit.benchmarks.memory_sampler import TreeSampler, status_memory

MIB = 2**20

# a child that holds 120 MiB of its own memory, then also reads a 120 MiB file through a memory map (file pages:
# in its RSS, not in its anonymous memory), then a grandchild that holds 60 MiB
CHILD = """
import mmap, subprocess, sys, time
own = bytearray(120 * 2**20)
for i in range(0, len(own), 4096):
    own[i] = 1
print("own", flush=True); time.sleep(0.6)
with open(sys.argv[1], "rb") as f:
    mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    total = sum(mapped[i] for i in range(0, len(mapped), 4096))
print("mapped", flush=True); time.sleep(0.6)
subprocess.run([sys.executable, "-c", "x = bytearray(60 * 2**20); import time; time.sleep(0.8)"])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="anonymous memory is read from /proc")
def test_rss_counts_mapped_file_pages_anonymous_memory_does_not(tmp_path):
    data = tmp_path / "file.bin"
    data.write_bytes(b"\1" * 120 * MIB)
    process = subprocess.Popen([sys.executable, "-c", CHILD, str(data)], stdout=subprocess.PIPE, text=True)
    marks = {}
    with TreeSampler(process.pid, interval=0.02, uss_every=5, keep_samples=True) as sampler:
        for line in process.stdout:
            marks[line.split()[0]] = time.time()
        process.wait()
    assert process.returncode == 0
    peaks = sampler.peaks
    own = sampler.peaks_between(marks["own"], marks["mapped"] - 0.05)
    mapped = sampler.peaks_between(marks["mapped"] + 0.05, marks["mapped"] + 0.5)
    assert own["worker_anon"] > 120 * MIB and own["worker_rss"] < own["worker_anon"] + 60 * MIB
    assert mapped["worker_rss"] > own["worker_rss"] + 100 * MIB  # the file's pages count in RSS...
    assert mapped["worker_anon"] < own["worker_anon"] + 20 * MIB  # ...not in anonymous memory
    assert 120 * MIB < peaks["worker_uss"] < peaks["worker_rss"]
    # the grandchild's 60 MiB: in the tree's sum, not in the largest process
    assert peaks["tree_anon"] > peaks["worker_anon"] + 50 * MIB
    assert sampler.cpu_seconds > 0
    assert sampler.peaks_between(0, 1) == dict.fromkeys(peaks, 0)


def test_status_memory_of_this_process_and_of_none():
    if sys.platform.startswith("linux"):
        mine = status_memory(os.getpid())
        assert mine["rss"] > mine["anon"] > 0
    assert status_memory(-1) == {}
