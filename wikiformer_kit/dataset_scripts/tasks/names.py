"""The task names and the methods they make up, known without loading the tasks (for command lines)."""

from __future__ import annotations

TASK_NAMES: tuple[str, ...] = ("srr", "rwi", "ati", "ltm", "prop", "rqp", "qdm", "rdp", "acm")
"""The task names in build order (the order of :data:`.registry.SPECS`, which checks it)."""
ALL_TASKS = TASK_NAMES
"""The same (the name :mod:`.registry` gives them)."""
SYSTEMS: dict[str, tuple[str, ...]] = {
    "wikiformer": ("srr", "rwi", "ati", "ltm"),
    "prop": ("prop",),
    "harp": ("rqp", "qdm", "rdp", "acm"),
}
"""The tasks of each pre-training method: Wikiformer's four and the two baselines the paper compares with."""
DEFAULT_TASKS: tuple[str, ...] = SYSTEMS["wikiformer"]
"""What a build makes when no task is named."""


def parse_tasks(spec: str) -> tuple[str, ...]:
    """``"srr,ltm"`` -> ``("srr", "ltm")`` in the canonical order; a method's name (``wikiformer``, ``prop``,
    ``harp``) stands for its tasks; unknown names raise ``ValueError``."""
    names = {name.strip().lower() for name in spec.split(",") if name.strip()}
    names = {task for name in names for task in SYSTEMS.get(name, (name,))}
    unknown = names - set(ALL_TASKS)
    if unknown or not names:
        raise ValueError(f"unknown task(s) {sorted(unknown) or spec!r}; choose from {','.join(ALL_TASKS)}")
    return tuple(t for t in ALL_TASKS if t in names)
