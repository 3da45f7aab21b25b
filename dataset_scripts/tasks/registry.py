"""The pre-training tasks by name: the :class:`~.spec.TaskSpec` each task module declares, in the paper's order.

Adding a task is one module with its ``SPEC`` (see :mod:`.spec`) and one entry in :data:`SPECS`.
"""

from __future__ import annotations

from . import acm, ati, ltm, prop, qdm, rdp, rqp, rwi, srr
from .spec import TaskSpec

SPECS: tuple[TaskSpec, ...] = (
    srr.SPEC,
    rwi.SPEC,
    ati.SPEC,
    ltm.SPEC,
    prop.SPEC,
    rqp.SPEC,
    qdm.SPEC,
    rdp.SPEC,
    acm.SPEC,
)

TASKS: dict[str, TaskSpec] = {spec.name: spec for spec in SPECS}
"""Every task's spec by name."""
ALL_TASKS: tuple[str, ...] = tuple(TASKS)
"""The task names in build order."""
SYSTEMS: dict[str, tuple[str, ...]] = {
    "wikiformer": ("srr", "rwi", "ati", "ltm"),
    "prop": ("prop",),
    "harp": ("rqp", "qdm", "rdp", "acm"),
}
"""The tasks of each pre-training method: Wikiformer's four and the two baselines the paper compares with."""
DEFAULT_TASKS: tuple[str, ...] = SYSTEMS["wikiformer"]
"""What a build makes when no task is named."""


def get_task(name: str) -> TaskSpec:
    """The spec of task ``name``; an unknown name raises ``KeyError`` listing the known ones."""
    try:
        return TASKS[name]
    except KeyError:
        raise KeyError(f"unknown task {name!r}; known tasks: {', '.join(ALL_TASKS)}") from None


def parse_tasks(spec: str) -> tuple[str, ...]:
    """``"srr,ltm"`` -> ``("srr", "ltm")`` in the canonical order; a method's name (``wikiformer``, ``prop``,
    ``harp``) stands for its tasks; unknown names raise ``ValueError``."""
    names = {name.strip().lower() for name in spec.split(",") if name.strip()}
    names = {task for name in names for task in SYSTEMS.get(name, (name,))}
    unknown = names - set(ALL_TASKS)
    if unknown or not names:
        raise ValueError(f"unknown task(s) {sorted(unknown) or spec!r}; choose from {','.join(ALL_TASKS)}")
    return tuple(t for t in ALL_TASKS if t in names)
