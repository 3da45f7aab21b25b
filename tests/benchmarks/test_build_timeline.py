"""benchmarks/build_timeline.py: each stage's window, CPU per process and critical path, from the sampled process tree."""

from __future__ import annotations

import sys

import pytest

from wikiformer_kit.benchmarks.build_timeline import Process, run, timeline


def process(pid: int, started: float, samples: list[tuple[float, float]]) -> Process:
    made = Process(pid, started)
    made.cpu = samples
    made.last = samples[-1][0]
    return made


def test_cpu_between_interpolates_and_is_zero_before_the_start():
    worker = process(2, 10.0, [(11.0, 1.0), (13.0, 3.0)])
    assert worker.cpu_between(0.0, 10.0) == 0.0
    assert worker.cpu_between(0.0, 12.0) == pytest.approx(2.0)
    assert worker.cpu_between(12.0, 20.0) == pytest.approx(1.0)


def test_critical_path_is_the_build_alone_then_the_busiest_process():
    # the build process works alone for 2 s, then two workers share a stage (4 and 3 CPU s), then it writes alone
    build = process(1, 0.0, [(2.0, 2.0), (7.0, 2.0), (8.0, 3.0)])
    first = process(2, 2.0, [(6.0, 4.0), (7.0, 4.0)])
    second = process(3, 2.0, [(5.0, 3.0), (7.0, 3.0)])
    seen = {1: build, 2: first, 3: second}
    result = timeline(seen, [("corpus", 7.0)], 0.0, 8.0, 2)
    corpus, after = result["windows"]
    assert corpus["alone"] == pytest.approx(2.0)
    assert corpus["critical"] == pytest.approx(6.0)  # 2 s alone, then the 4 s worker
    assert corpus["cpu"] == pytest.approx(9.0)
    assert corpus["idle"] == pytest.approx(2 * 7.0 - 9.0)
    assert after["critical"] == pytest.approx(1.0)
    assert result["critical_path_cpu"] == pytest.approx(7.0)
    assert result["cpu"] == pytest.approx(10.0)


def test_run_samples_a_forked_child_and_reads_the_stage_lines():
    code = (
        "import os, time\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    end = time.process_time() + 0.4\n"
        "    while time.process_time() < end: pass\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "print('[corpus] done in 0 s', flush=True)\n"
    )
    seen, ends, start, end = run([sys.executable, "-c", code], 0.02)
    assert [name for name, _ in ends] == ["corpus"]
    result = timeline(seen, ends, start, end, 2)
    corpus = result["windows"][0]
    assert len(seen) >= 2 and corpus["cpu"] >= 0.3
    assert corpus["critical"] >= 0.3
