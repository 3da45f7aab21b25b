"""The timeline of one build: for each stage, its wall time, the CPU seconds of every process in it and how long
each process was busy or idle, and what ran in the build's own process alone between the stages.

    python -m wikiformer_kit.benchmarks.build_timeline [--json F] -- python -m dataset_scripts.build --input ... --num-proc 2

Method: docs/benchmarks.md ("How each benchmark measures", ``build_timeline``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from wikiformer_kit.benchmarks.common import table_head
from wikiformer_kit.benchmarks.memory_sampler import TreeSampler

DONE = re.compile(r"^\[([\w-]+)\] (?:done|nothing to do|failed)")


@dataclass
class Process:
    """One process of the tree: when it started, when it was last seen, its CPU seconds at each sample."""

    pid: int
    started: float
    last: float = 0.0
    cpu: list[tuple[float, float]] = field(default_factory=list)

    def cpu_between(self, start: float, end: float) -> float:
        """CPU seconds spent between two wall times (linear between samples)."""
        return max(0.0, self.cpu_at(end) - self.cpu_at(start))

    def cpu_at(self, moment: float) -> float:
        if moment <= self.started:
            return 0.0
        before = (self.started, 0.0)
        for t, c in self.cpu:
            if t >= moment:
                span = t - before[0]
                return before[1] + (c - before[1]) * ((moment - before[0]) / span if span > 0 else 1.0)
            before = (t, c)
        return before[1]


def run(command: list[str], interval: float) -> tuple[dict[int, Process], list[tuple[str, float]], float, float]:
    """Run ``command``; its processes (sampled every ``interval`` seconds), the stages' end times, its start and end."""
    start = time.time()
    # unbuffered: each console line is read when the stage ends, not when a buffer fills
    environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment)
    ends = []
    with TreeSampler(child.pid, interval, keep_cpu=True) as sampler:
        for line in child.stdout:
            matched = DONE.match(line)
            if matched:
                ends.append((matched.group(1), time.time()))
        child.wait()
        end = time.time()
    if child.returncode:
        raise SystemExit(f"failed ({child.returncode}): {' '.join(command)}")
    seen = {pid: Process(pid, sampler.started[pid], cpu[-1][0], cpu) for pid, cpu in sampler.cpu_history.items() if cpu}
    return seen, ends, start, end


def timeline(seen: dict[int, Process], ends: list[tuple[str, float]], start: float, end: float, width: int) -> dict:
    """Windows (serial parts and stages) with each process's busy seconds."""
    main = min(seen.values(), key=lambda p: p.started)
    workers = sorted((p for p in seen.values() if p is not main), key=lambda p: p.started)
    windows, previous = [], start
    for name, finished in ends:
        forked = [w.pid for w in workers if previous <= w.started < finished]
        windows.append({"name": name, "start": previous, "end": finished, "workers": forked})
        previous = finished
    windows.append({"name": "after the stages (build process)", "start": previous, "end": end})
    for window in windows:
        begin, finish = window["start"], window["end"]
        wall = finish - begin
        busy = {"build": main.cpu_between(begin, finish)}
        for w in workers:
            spent = w.cpu_between(begin, finish)
            if spent >= 0.05:  # the stage's workers, and helpers such as the reading ahead
                busy[str(w.pid)] = spent
        # on cores of its own, a window lasts as long as the build process alone until the first other process
        # starts, then as long as the busiest process: the wall time a quiet machine would show
        helpers = [w.started for w in workers if begin <= w.started < finish and str(w.pid) in busy]
        alone = main.cpu_between(begin, min(helpers)) if helpers else busy["build"]
        after = {k: (v if k != "build" else v - alone) for k, v in busy.items()}
        critical = alone + max(after.values(), default=0.0)
        cpu = sum(busy.values())
        window.update(wall=wall, cpu=cpu, busy=busy, alone=alone, critical=critical, idle=max(0.0, width * wall - cpu))
    total = sum(p.cpu[-1][1] for p in seen.values() if p.cpu)
    critical = sum(w["critical"] for w in windows)
    processes = [{"pid": p.pid, "started": p.started, "cpu": p.cpu} for p in seen.values()]
    return {
        "wall": end - start,
        "cpu": total,
        "critical_path_cpu": critical,
        "windows": windows,
        "processes": processes,
    }


def print_timeline(result: dict) -> None:
    print(
        f"wall {result['wall']:.1f} s, CPU {result['cpu']:.1f} s, critical path (each window's busiest process) "
        f"{result['critical_path_cpu']:.1f} CPU s\n"
    )
    columns = ("wall s", "CPU s", "build process alone s", "busy s by process", "idle process-s", "critical path s")
    print(table_head("window", *columns, right=(1, 2, 3, 5, 6)))
    for w in result["windows"]:
        busy = ", ".join(f"{k} {v:.1f}" for k, v in w["busy"].items() if v >= 0.05)
        print(
            f"| {w['name']} | {w['wall']:.1f} | {w['cpu']:.1f} | {w['alone']:.1f} | {busy} | {w['idle']:.1f} "
            f"| {w['critical']:.1f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between samples")
    parser.add_argument("--json", type=Path, default=None, help="also write the timeline here")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the build command, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the build command after --")
    width = int(command[command.index("--num-proc") + 1]) if "--num-proc" in command else 1
    seen, ends, start, end = run(command, args.interval)
    result = timeline(seen, ends, start, end, width)
    print_timeline(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
