"""Where the task stage stops scaling: each stage's CPU seconds per process for a ``--num-proc`` build, the articles
each process gets, what runs in one process, the serial fraction and the Amdahl bounds, from CPU time (valid on a
shared machine, where wall-clock speed-ups are not), optionally beside an earlier tree of the code.

    python bench/task_stage_scaling.py CORPUS_DIR [--num-proc 2] [--baseline-tree OLD]

``CORPUS_DIR``: a built corpus (``bench/copy_corpus.py`` makes one of ~10,000 articles from the vendored sample's).
``OLD``: a checkout of earlier code (``git archive REV | tar -x -C OLD``). The stages run in one process, rank after
rank, as ``--num-proc`` processes share them; the start-up is a whole build of a 5-article slice of the corpus in a
process of its own. The wall time of a build at p processes is then at least the start-up, plus for each stage its
busiest process: ``bound = T1 / (start-up + sum of each stage's largest rank)``; the Amdahl bounds take the serial
fraction ``s`` (start-up and one-task stages over all CPU) as ``1 / (s + (1 - s) / p)``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def stages_of(tree_build, steps, layout, units, redirects, world: int) -> list[tuple[str, list, int]]:
    """The task build's stages at ``world`` processes, from this tree's or an older tree's build module."""
    from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions

    tasks, options = ("srr", "rwi", "ati", "ltm"), TaskOptions()
    info = {"formats": None, "options": options.to_dict(), "source": "bench", "language": "en"}
    if hasattr(tree_build, "task_stages"):
        return tree_build.task_stages(world, layout, units, redirects, tasks, options, info)
    from wikiformer_kit.dataset_scripts.tasks.see_also_join import bucket_count

    buckets = bucket_count(sum(u.stop - u.start for u in units))
    return [
        ("tasks", [steps.ArticleTasksStep(layout.root, units, tasks, options, redirects, buckets)], world),
        ("see-also-join", [steps.SeeAlsoJoinStep(layout.root, units, len(redirects), buckets)], min(world, buckets)),
        ("ltm", [steps.LtmStep(layout.root, units, options, buckets)], world),
        ("cards", [steps.FinalizeStep(layout.root, units, tasks, info)], 1),
    ]


def rank_articles(units, rank: int, world: int) -> int:
    """Articles of the units a rank gets in this tree (balanced, or every world-th unit in older trees)."""
    from wikiformer_kit.dataset_scripts.tasks import corpus_units

    chosen = corpus_units.rank_units(units, rank, world) if hasattr(corpus_units, "rank_units") else units[rank::world]
    return sum(u.stop - u.start for u in chosen)


def measure_here(corpus: Path, out: Path, world: int, articles_per_unit: int) -> dict:
    """Every stage, rank after rank, in this process: CPU seconds and articles per rank."""
    from wikiformer_kit.dataset_scripts.tasks import build as tree_build
    from wikiformer_kit.dataset_scripts.tasks import steps
    from wikiformer_kit.dataset_scripts.tasks.corpus_units import corpus_files, plan_units

    data, redirects = corpus_files(corpus)
    units = plan_units(data, articles_per_unit)
    layout = steps.BuildLayout(out)
    layout.work.mkdir(parents=True, exist_ok=True)
    measured = []
    for name, pipeline, tasks in stages_of(tree_build, steps, layout, units, redirects, world):
        cpu, articles = [], []
        for rank in range(tasks):
            start = time.process_time()
            for step in pipeline:
                for _ in step.run(None, rank, tasks):
                    pass
            cpu.append(time.process_time() - start)
            articles.append(rank_articles(units, rank, tasks) if name in ("tasks", "ltm") else None)
        measured.append({"name": name, "tasks": tasks, "cpu": cpu, "articles": articles})
    return {"units": [u.stop - u.start for u in units], "stages": measured}


def startup_cpu(tree: Path, corpus: Path, work: Path) -> float:
    """CPU seconds of a whole build of a 5-article slice of the corpus, with the code of ``tree``."""
    import pyarrow.parquet as pq

    tiny = work / "tiny"
    (tiny / "data").mkdir(parents=True, exist_ok=True)
    first = sorted((corpus / "data").glob("*.parquet"))[0]
    pq.write_table(pq.read_table(first).slice(0, 5), tiny / "data" / "00000.parquet")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "dataset_scripts.build", "--input", str(tiny), "--output-dir", str(work / "t")]
    subprocess.run(command, cwd=tree, capture_output=True, check=True, env={**os.environ, "PYTHONPATH": str(tree)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(tiny), shutil.rmtree(work / "t")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure_tree(tree: Path, corpus: Path, args) -> dict:
    """The figures of one tree of the code, measured in a process of its own."""
    work = Path(tempfile.mkdtemp(prefix="task-scaling-"))
    try:
        command = [sys.executable, str(Path(__file__).resolve()), str(corpus), "--only", str(work / "out")]
        command += ["--num-proc", str(args.num_proc), "--articles-per-unit", str(args.articles_per_unit)]
        result = subprocess.run(command, cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True)  # fmt: skip
        if result.returncode:
            raise SystemExit(f"{tree}: {result.stderr[-3000:]}")
        figures = json.loads(result.stdout.strip().splitlines()[-1])
        figures["startup"] = startup_cpu(tree, corpus, work)
        return figures
    finally:
        shutil.rmtree(work, ignore_errors=True)


def analysis(figures: dict, world: int) -> dict:
    """Serial CPU, the whole CPU, the busiest process's path, and the bounds at 2 and 16 processes."""
    stages = figures["stages"]
    total = figures["startup"] + sum(sum(s["cpu"]) for s in stages)
    serial = figures["startup"] + sum(sum(s["cpu"]) for s in stages if s["tasks"] == 1)
    path = figures["startup"] + sum(max(s["cpu"]) for s in stages)
    fraction = serial / total
    return {
        "total": total,
        "serial": serial,
        "fraction": fraction,
        "path": path,
        "bound": total / path,
        "amdahl": {p: 1 / (fraction + (1 - fraction) / p) for p in (2, 16)},
    }


def report(name: str, figures: dict, world: int) -> dict:
    """Print one tree's table and summary lines; returns its analysis."""
    result = analysis(figures, world)
    units = figures["units"]
    print(f"\n### {name}: {sum(units):,} articles in {len(units)} units ({min(units)}-{max(units)} articles)\n")
    print(f"| stage | tasks at {world} processes | CPU s per task | articles per task | in one process |")
    print("|---|---:|---|---|---|")
    print(f"| start-up (a whole build of 5 articles) | 1 | {figures['startup']:.2f} | - | yes |")
    for stage in figures["stages"]:
        cpu = " / ".join(f"{c:.2f}" for c in stage["cpu"])
        articles = " / ".join(str(a) for a in stage["articles"]) if stage["articles"][0] is not None else "-"
        print(f"| {stage['name']} | {stage['tasks']} | {cpu} | {articles} | {'yes' if stage['tasks'] == 1 else 'no'} |")  # fmt: skip
    print(
        f"\n- CPU s: {result['total']:.2f} in all, {result['serial']:.2f} in one process (serial fraction "
        f"{result['fraction']:.1%}); busiest process path {result['path']:.2f} s: bound at {world} processes "
        f"{result['bound']:.2f}x; Amdahl bound at 2 processes {result['amdahl'][2]:.2f}x, at 16 {result['amdahl'][16]:.2f}x"
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--num-proc", type=int, default=2)
    parser.add_argument("--articles-per-unit", type=int, default=1000)
    parser.add_argument("--baseline-tree", type=Path, default=None, help="a checkout of earlier code to compare")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure here")
    parser.add_argument("--only", type=Path, help=argparse.SUPPRESS)  # internal: measure this tree into this folder
    args = parser.parse_args()
    corpus = args.corpus.resolve()
    if args.only:
        print(json.dumps(measure_here(corpus, args.only, args.num_proc, args.articles_per_unit)))
        return
    trees = ([("before", args.baseline_tree.resolve())] if args.baseline_tree else []) + [("this tree", ROOT)]
    everything = {}
    for name, tree in trees:
        figures = measure_tree(tree, corpus, args)
        everything[name] = {"figures": figures, "analysis": report(name, figures, args.num_proc)}
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1) + "\n")


if __name__ == "__main__":
    main()
