"""What every benchmark says about its device: ``--device``/``--bf16`` options, the GPU's name, its utilization
sampled while a run goes on, and its peak memory.

Utilization comes from NVML through ``torch.cuda.utilization`` (the ``nvidia-ml-py`` package) or, without it, from
``nvidia-smi``; on a CPU the figures are simply absent.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field


def add_device_arguments(parser: argparse.ArgumentParser) -> None:
    """``--device`` (default: cuda when available, else cpu) and ``--bf16`` (bfloat16 autocast)."""
    parser.add_argument("--device", default=None, help="cuda, cuda:1, cpu... (default: cuda when available)")
    parser.add_argument(
        "--bf16",
        default=None,
        type=lambda value: value.lower() in ("1", "true", "yes"),
        help="bfloat16 autocast (default: true on a GPU that supports it, false on a CPU)",
    )


def resolve_device(args: argparse.Namespace) -> None:
    """Fill ``args.device`` and ``args.bf16`` where they were left to their defaults."""
    import torch

    if args.device is None:
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit(f"--device {args.device}: no CUDA device here (torch {torch.__version__})")
    if args.bf16 is None:
        args.bf16 = args.device.startswith("cuda") and torch.cuda.is_bf16_supported()


def describe(device: str) -> str:
    """One line naming the device: the GPU's name and memory, or the CPU's thread count."""
    import torch

    if device.startswith("cuda"):
        properties = torch.cuda.get_device_properties(torch.device(device))
        return f"{properties.name} ({properties.total_memory / 2**30:.0f} GiB), torch {torch.__version__}"
    return f"CPU, {torch.get_num_threads()} torch threads, torch {torch.__version__}"


def _read_utilization(device: str) -> float | None:
    import torch

    try:
        return float(torch.cuda.utilization(torch.device(device)))
    except Exception:  # no NVML binding: ask nvidia-smi
        if not shutil.which("nvidia-smi"):
            return None
        index = torch.device(device).index or 0
        output = subprocess.run(
            ["nvidia-smi", f"--id={index}", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return float(output) if output else None


@dataclass
class GpuMonitor:
    """Samples GPU utilization every ``interval`` seconds while in use and records the peak GPU memory.

    Use as ``with GpuMonitor(device) as monitor: ...``; then ``monitor.summary()``. On a CPU it records nothing.
    """

    device: str
    interval: float = 0.2
    samples: list[float] = field(default_factory=list)
    peak_memory: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> GpuMonitor:
        import torch

        if self.device.startswith("cuda"):
            torch.cuda.reset_peak_memory_stats(torch.device(self.device))
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            value = _read_utilization(self.device)
            if value is None:
                return
            self.samples.append(value)

    def __exit__(self, *exc) -> None:
        import torch

        if self.device.startswith("cuda"):
            self._stop.set()
            self._thread.join()
            self.peak_memory = torch.cuda.max_memory_allocated(torch.device(self.device))

    @property
    def utilization(self) -> float | None:
        """Mean sampled GPU utilization in percent (None on a CPU or without NVML/nvidia-smi)."""
        return sum(self.samples) / len(self.samples) if self.samples else None

    def summary(self) -> str:
        """``GPU utilization 93% (41 samples), peak GPU memory 12.3 GiB``, or ``''`` on a CPU."""
        if not self.device.startswith("cuda"):
            return ""
        utilization = "n/a (no NVML)" if self.utilization is None else f"{self.utilization:.0f}%"
        return (
            f"GPU utilization {utilization} ({len(self.samples)} samples), "
            f"peak GPU memory {self.peak_memory / 2**30:.1f} GiB"
        )


def now(device: str) -> float:
    """``time.perf_counter()`` after the device's queued work is done (so that a wall-clock timer measures it)."""
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize(torch.device(device))
    return time.perf_counter()
