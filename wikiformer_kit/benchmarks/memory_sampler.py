"""Sample the memory and CPU time of a process tree in a background thread: one sampler for every bench.

RSS, anonymous RSS and USS of the largest process and of the tree, optionally every sample with its time and each
process's CPU seconds (what each figure counts: docs/benchmarks.md, "How each benchmark measures", ``memory_sampler``).

    with TreeSampler(pid, interval=0.05) as sampler:
        process.wait()
    sampler.peaks["worker_rss"], sampler.cpu_seconds
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psutil

KEYS = ("rss", "anon", "uss")


@dataclass(frozen=True)
class Sample:
    """One sample: wall time (``time.time()``), and bytes for the largest process and the whole tree."""

    t: float
    worker: dict
    tree: dict


def status_memory(pid: int) -> dict[str, int]:
    """``rss`` (VmRSS) and ``anon`` (RssAnon) of a process in bytes, from ``/proc/<pid>/status`` (cheap); ``{}`` where
    there is no such file (not Linux, or the process is gone)."""
    values = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                key, _, rest = line.partition(":")
                if key == "VmRSS":
                    values["rss"] = int(rest.split()[0]) * 1024
                elif key == "RssAnon":
                    values["anon"] = int(rest.split()[0]) * 1024
    except OSError:
        return {}
    return values


class TreeSampler:
    """Samples a process (``pid``; default this one) and, with ``children``, its descendants every ``interval``
    seconds in a daemon thread, from `start` (or ``with``) to `stop`.

    ``peaks``: ``worker_rss``, ``worker_anon``, ``worker_uss`` (largest single process) and ``tree_rss``,
    ``tree_anon``, ``tree_uss`` (largest sum over the tree), in bytes; ``*_uss`` stay 0 when ``uss_every`` is 0.
    ``cpu_seconds``: user + system seconds of every process seen, at its last sample (a process's last
    ``interval`` is missed: callers that can also take ``getrusage`` take the larger).
    """

    def __init__(
        self,
        pid: int | None = None,
        interval: float = 0.05,
        children: bool = True,
        uss_every: int = 0,
        keep_samples: bool = False,
        keep_cpu: bool = False,
    ):
        self.process = psutil.Process(pid)
        self.interval, self.children, self.uss_every, self.keep = interval, children, uss_every, keep_samples
        self.keep_cpu = keep_cpu
        self.started: dict[int, float] = {}
        self.cpu_history: dict[int, list[tuple[float, float]]] = {}
        self.peaks = {f"{scope}_{key}": 0 for scope in ("worker", "tree") for key in KEYS}
        self.samples: list[Sample] = []
        self._cpu: dict[int, float] = {}
        self._count = 0
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def cpu_seconds(self) -> float:
        return sum(self._cpu.values())

    def sample(self) -> Sample:
        """Take one sample now (also what the thread does); updates ``peaks``."""
        try:
            members = [self.process, *(self.process.children(recursive=True) if self.children else [])]
        except psutil.Error:
            members = []
        with_uss = self.uss_every and self._count % self.uss_every == 0
        self._count += 1
        worker = dict.fromkeys(KEYS, 0)
        tree = dict.fromkeys(KEYS, 0)
        for member in members:
            try:
                with member.oneshot():
                    memory = status_memory(member.pid) or {"rss": member.memory_info().rss}
                    times = member.cpu_times()
                    if with_uss:
                        memory["uss"] = member.memory_full_info().uss
                    if self.keep_cpu and member.pid not in self.started:
                        self.started[member.pid] = member.create_time()
                self._cpu[member.pid] = times.user + times.system
            except (psutil.Error, OSError):
                continue
            if self.keep_cpu:
                self.cpu_history.setdefault(member.pid, []).append((time.time(), self._cpu[member.pid]))
            for key, value in memory.items():
                worker[key] = max(worker[key], value)
                tree[key] += value
        for key in KEYS:
            self.peaks[f"worker_{key}"] = max(self.peaks[f"worker_{key}"], worker[key])
            self.peaks[f"tree_{key}"] = max(self.peaks[f"tree_{key}"], tree[key])
        taken = Sample(time.time(), worker, tree)
        if self.keep:
            self.samples.append(taken)
        return taken

    def _loop(self) -> None:
        while not self._done.is_set():
            self.sample()
            self._done.wait(self.interval)

    def start(self) -> TreeSampler:
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> TreeSampler:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def peaks_between(self, start: float, end: float) -> dict[str, int]:
        """Peaks (as ``peaks``) over the kept samples taken from ``start`` to ``end`` (``time.time()`` values)."""
        inside = [s for s in self.samples if start <= s.t <= end]
        return {
            f"{scope}_{key}": max((getattr(s, scope)[key] for s in inside), default=0)
            for scope in ("worker", "tree")
            for key in KEYS
        }


@contextmanager
def added_peak(key: str, interval: float) -> Iterator[dict]:
    """The peak ``key`` memory (``rss`` or ``anon``) of this process while the block runs above what it held before
    (what imports and setup left is not counted), in bytes: ``added["bytes"]`` once the block is done."""
    sampler = TreeSampler(interval=interval, children=False)
    before = sampler.sample().worker[key]
    added: dict[str, int] = {}
    with sampler:
        yield added
    added["bytes"] = max(sampler.peaks[f"worker_{key}"], sampler.sample().worker[key]) - before
