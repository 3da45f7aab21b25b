"""The pre-training tasks by name: the :class:`~.spec.TaskSpec` each task module declares, in the paper's order.

Adding a task is one module with its ``SPEC`` (see :mod:`.spec`), one entry in :data:`SPECS` and its name in
:data:`.names.TASK_NAMES`.
"""

from __future__ import annotations

from wikiformer_kit.dataset_scripts.tasks import acm, ati, ltm, prop, qdm, rdp, rqp, rwi, srr
from wikiformer_kit.dataset_scripts.tasks.names import DEFAULT_TASKS, SYSTEMS, TASK_NAMES, parse_tasks  # noqa: F401 (part of this module's interface)
from wikiformer_kit.dataset_scripts.tasks.spec import TaskSpec

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
if ALL_TASKS != TASK_NAMES:
    raise RuntimeError(f"names.TASK_NAMES {TASK_NAMES} must list the tasks of SPECS in order: {ALL_TASKS}")


def get_task(name: str) -> TaskSpec:
    """The spec of task ``name``; an unknown name raises ``KeyError`` listing the known ones."""
    try:
        return TASKS[name]
    except KeyError:
        raise KeyError(f"unknown task {name!r}; known tasks: {', '.join(ALL_TASKS)}") from None
