"""The pre-training tasks by name: the :class:`~.spec.TaskSpec` each task module declares, in the paper's order.

Adding a task is one module with its ``SPEC`` (see :mod:`.spec`) and one entry in :data:`SPECS`.
"""

from __future__ import annotations

from . import ati, ltm, rwi, srr
from .spec import TaskSpec

SPECS: tuple[TaskSpec, ...] = (srr.SPEC, rwi.SPEC, ati.SPEC, ltm.SPEC)

TASKS: dict[str, TaskSpec] = {spec.name: spec for spec in SPECS}
"""Every task's spec by name."""
ALL_TASKS: tuple[str, ...] = tuple(TASKS)
"""The task names in build order."""


def get_task(name: str) -> TaskSpec:
    """The spec of task ``name``; an unknown name raises ``KeyError`` listing the known ones."""
    try:
        return TASKS[name]
    except KeyError:
        raise KeyError(f"unknown task {name!r}; known tasks: {', '.join(ALL_TASKS)}") from None


def parse_tasks(spec: str) -> tuple[str, ...]:
    """``"srr,ltm"`` -> ``("srr", "ltm")`` in the canonical order; unknown names raise ``ValueError``."""
    names = {name.strip().lower() for name in spec.split(",") if name.strip()}
    unknown = names - set(ALL_TASKS)
    if unknown or not names:
        raise ValueError(f"unknown task(s) {sorted(unknown) or spec!r}; choose from {','.join(ALL_TASKS)}")
    return tuple(t for t in ALL_TASKS if t in names)
