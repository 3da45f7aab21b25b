"""Build the four Wikiformer pre-training datasets (SRR, RWI, ATI, LTM) from a dump or a built corpus.

Usage::

    python -m dataset_scripts.build --input enwiki-latest-pages-articles.xml.bz2 --output-dir out \\
        [--tasks srr,rwi,ati,ltm] [--seed 42] [--num-proc 8] [--executor local|slurm|ray] \\
        [--push-to-hub NAMESPACE [--private]]

writes ``out/wikiformer-<task>/`` (``data/*.parquet`` + ``README.md`` card) for each task. Raw inputs are first
turned into a Parquet corpus in ``out/corpus`` (``dataset_scripts.corpus``); a folder already holding a built
corpus (``data/*.parquet``) is used as it is. The build is a datatrove pipeline: rerunning the same command resumes
an interrupted build, and the same seed and input give byte-identical Parquet files.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

import pyarrow.parquet as pq

from .tasks.baseline_steps import add_arguments, options_from_args
from .tasks.build import (
    EXECUTORS,
    BuildParametersError,
    check_parameters,
    corpus_language,
    is_corpus_dir,
    make_executors,
    prepare_corpus,
    push,
)
from .tasks.corpus_units import CorpusLayoutError, corpus_files, plan_units
from .tasks.options import POSITIVE_MODES, SRR_VARIANTS, TaskOptions
from .tasks.registry import ALL_TASKS, DEFAULT_TASKS, parse_tasks
from .tasks.steps import BuildLayout


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    defaults = TaskOptions()
    parser = argparse.ArgumentParser(prog="python -m dataset_scripts.build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", nargs="+", required=True, type=Path, help="dump/corpus files, or a corpus folder")
    parser.add_argument("--output-dir", required=True, type=Path)
    parser.add_argument(
        "--tasks",
        default=",".join(DEFAULT_TASKS),
        help=f"comma-separated subset of {','.join(ALL_TASKS)}, or a method: wikiformer, prop, harp",
    )
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--num-proc", type=int, default=1, help="processes (tasks of each stage)")
    parser.add_argument("--executor", choices=EXECUTORS, default="local")
    parser.add_argument("--slurm-partition", default=None)
    parser.add_argument("--slurm-time", default="24:00:00")
    parser.add_argument("--push-to-hub", metavar="NAMESPACE", default=None, help="push to NAMESPACE/wikiformer-<task>")
    parser.add_argument("--private", action="store_true", help="create the Hub repos private")
    parser.add_argument("--format", default="auto", help="input format for raw inputs (see dataset_scripts.corpus)")
    parser.add_argument("--limit", type=int, default=None, help="read at most this many articles from raw inputs")
    parser.add_argument("--articles-per-unit", type=int, default=1000, help="articles per output shard")
    parser.add_argument("--min-words", type=int, default=defaults.min_words)
    parser.add_argument("--max-words", type=int, default=defaults.max_words)
    parser.add_argument("--max-negatives", type=int, default=defaults.max_negatives)
    parser.add_argument("--positives", choices=POSITIVE_MODES, default=defaults.positives)
    parser.add_argument("--srr-variant", choices=SRR_VARIANTS, default=defaults.srr_variant)
    parser.add_argument("--ltm-max-words", type=int, default=defaults.ltm_max_words)
    parser.add_argument("--ltm-negatives", type=int, default=defaults.ltm_negatives)
    parser.add_argument(
        "--keep-sections",
        action="store_true",
        help="keep end-matter sections (References, External links, See also, ...) as task nodes",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.num_proc < 1:
        parser.error("--num-proc must be >= 1")
    if args.private and not args.push_to_hub:
        parser.error("--private only makes sense with --push-to-hub")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the build; returns the process exit code (0: every requested task written and pushed)."""
    args = parse_args(argv)
    try:
        tasks = parse_tasks(args.tasks)
        options = TaskOptions(
            seed=args.seed,
            min_words=args.min_words,
            max_words=args.max_words,
            max_negatives=args.max_negatives,
            positives=args.positives,
            srr_variant=args.srr_variant,
            ltm_max_words=args.ltm_max_words,
            ltm_negatives=args.ltm_negatives,
            keep_end_matter=args.keep_sections,
        )
        baselines = options_from_args(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    layout = BuildLayout(args.output_dir)
    layout.work.mkdir(parents=True, exist_ok=True)
    try:
        corpus_dir, source = prepare_corpus(args.input, layout, args)
        if args.executor == "slurm" and not is_corpus_dir(corpus_dir):
            print(f"corpus jobs submitted to Slurm; rerun the same command when they are done ({corpus_dir})")
            return 0
        data_files, redirect_files = corpus_files(corpus_dir)
        units = plan_units(data_files, args.articles_per_unit)
        corpus = [[p.name, pq.ParquetFile(p).metadata.num_rows] for p in data_files]
        params = {"tasks": list(tasks), "options": options.to_dict(), "units": len(units), "corpus": corpus}
        if "prop" in tasks:
            params["prop"] = baselines[0].to_dict()
        if any(t in ("rqp", "qdm", "rdp", "acm") for t in tasks):
            params["harp"] = baselines[1].to_dict()
        check_parameters(layout, params)
    except (BuildParametersError, CorpusLayoutError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    build_info = {
        "options": {
            **options.to_dict(),
            **{f"prop.{k}": v for k, v in params.get("prop", {}).items()},
            **{f"harp.{k}": v for k, v in params.get("harp", {}).items()},
        },  # fmt: skip
        "source": source,
        "language": corpus_language(data_files[0]),
        "repo_id": f"{args.push_to_hub}/wikiformer-{{task}}" if args.push_to_hub else None,
        "command": _public_command(argv if argv is not None else sys.argv[1:]),
    }
    executor = make_executors(args, layout, units, redirect_files, tasks, options, build_info, baselines)
    try:
        executor.run()
    except Exception as error:
        print(f"build interrupted ({error}); rerun the same command to resume", file=sys.stderr)
        return 1
    if args.executor == "slurm":
        print(f"jobs submitted; rerun the same command when they are done to {'push' if args.push_to_hub else 'check'}")
        return 0
    summary = json.loads((layout.work / "summary.json").read_text("utf-8"))
    written = [t for t in tasks if summary[t]["rows"] > 0]
    for task in tasks:
        state = f"{summary[task]['rows']} rows -> {layout.task_dir(task)}"
        if task not in written:
            state = f"0 rows: {summary[task].get('empty_reason', 'no group')} -> {layout.task_dir(task)} (empty)"
        print(f"{task}: {state}")
    status = 0 if written else 1
    if args.push_to_hub and written:
        failed = push(layout, tasks, args.push_to_hub, args.private, written)
        if failed:
            print(
                f"the local datasets in {layout.root} are intact; rerun the same command to push "
                f"{', '.join(failed)} again (the build itself will be skipped as complete)",
                file=sys.stderr,
            )
            status = 1
    return status


def _public_command(argv: list[str]) -> str:
    """The command line for the card, with local paths reduced to their last component (cards are published)."""
    shown = [Path(a).name if os.sep in a and Path(a).exists() else a for a in argv]
    return "python -m dataset_scripts.build " + " ".join(shlex.quote(a) for a in shown)


if __name__ == "__main__":
    sys.exit(main())
