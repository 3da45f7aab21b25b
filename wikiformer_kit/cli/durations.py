"""Durations as the command lines print them."""

from __future__ import annotations


def duration(seconds: float) -> str:
    """``4 s``, ``12 min 05 s``, ``3 h 02 min``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds // 60:.0f} min {seconds % 60:02.0f} s"
    return f"{seconds // 3600:.0f} h {seconds % 3600 // 60:02.0f} min"
