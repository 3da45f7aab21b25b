"""Where stage 1 of the task build spends its CPU, unit by unit (default 1,000 articles): the Parquet read, Arrow ->
Python (to_pylist), building Article objects, the SRR/RWI/ATI samplers, the LTM index and See also rows.

    python -m wikiformer_kit.benchmarks.stage_one_profile CORPUS_DIR
"""

import sys
import time
from pathlib import Path

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.tasks.common import task_rng
from wikiformer_kit.dataset_scripts.tasks.corpus_units import WST_COLUMNS, corpus_files, plan_units, read_unit_table
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.registry import get_task
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import edge_table, index_table


def profile(corpus: Path) -> str:
    """The CPU seconds of each part of stage 1 over the units of ``corpus``, as one line."""
    data, _ = corpus_files(corpus)
    units = plan_units(data, 1000)
    opts = TaskOptions()
    t = dict(parquet_read=0.0, to_pylist=0.0, article_from_dict=0.0, samplers=0.0, ltm_index=0.0)
    n = 0
    for unit in units:
        c0 = time.process_time()
        table = read_unit_table(unit, WST_COLUMNS)
        c1 = time.process_time()
        rows = table.to_pylist()
        c2 = time.process_time()
        arts = [Article.from_dict(r) for r in rows]
        c3 = time.process_time()
        for a in arts:
            for task in ("srr", "rwi", "ati"):
                get_task(task).sampler(a, task_rng(opts.seed, task, a.id), opts)
        c4 = time.process_time()
        index_table(arts, opts)
        edge_table(arts)
        c5 = time.process_time()
        n += len(arts)
        for k, v in zip(t, (c1 - c0, c2 - c1, c3 - c2, c4 - c3, c5 - c4), strict=True):
            t[k] += v
    total = sum(t.values())
    return f"{n} articles, {total:.2f} CPU s: " + ", ".join(
        f"{k} {v:.2f} s ({100 * v / total:.0f}%)" for k, v in t.items()
    )


if __name__ == "__main__":
    print(profile(Path(sys.argv[1])))
