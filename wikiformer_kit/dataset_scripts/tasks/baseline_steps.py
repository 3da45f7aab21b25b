"""The datatrove stages of the two baselines the paper compares with: PROP's ROP and HARP's RQP, QDM, RDP, ACM.

Both need the whole corpus before any row: PROP its collection language model, HARP the destinations' first
sections and, for QDM, every anchor text's destinations. So they run in three stages beside the Wikiformer ones,
on the same units, with the same resumable markers:

1. :class:`.baseline_stats_step.CorpusStatsStep` (per unit): what each unit gives, the only stage that reads the
   corpus;
2. :class:`.baseline_model_step.CorpusModelStep` (one task): the PROP vocabulary and the QDM plan;
3. :class:`.baseline_rows_step.BaselineTasksStep` (per unit): the rows, from the work files of stages 1 and 2 alone.

Every row's RNG is derived from the seed, the task and the article id (one ``random.Random`` per task and article,
drawn from in sentence order), so the output does not depend on the number of processes.
"""

from __future__ import annotations

from functools import partial

from wikiformer_kit.dataset_scripts.tasks.baseline_files import BASELINE_TASKS
from wikiformer_kit.dataset_scripts.tasks.baseline_model_step import CorpusModelStep
from wikiformer_kit.dataset_scripts.tasks.baseline_rows_step import BaselineTasksStep
from wikiformer_kit.dataset_scripts.tasks.baseline_stats_step import CorpusStatsStep
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions


def baseline_stages(root, units, redirect_files, tasks, options: TaskOptions, prop, harp, cache, world: int) -> list:
    """The ``(name, pipeline, tasks)`` stages that build the requested PROP/HARP tasks (none if not requested)."""
    wanted = tuple(t for t in tasks if t in BASELINE_TASKS)
    if not wanted:
        return []
    steps = [
        ("baseline-stats", CorpusStatsStep, world),
        ("baseline-model", CorpusModelStep, 1),
        ("baseline", partial(BaselineTasksStep, cache=cache), world),
    ]
    return [(name, [step(root, units, wanted, redirect_files, options, prop, harp)], n) for name, step, n in steps]
