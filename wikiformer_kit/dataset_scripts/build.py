"""Build the four Wikiformer pre-training datasets (SRR, RWI, ATI, LTM) from a dump or a built corpus.

Writes ``OUT/wikiformer-<task>/`` (``data/*.parquet`` + ``README.md`` card) for each task, from the Parquet corpus
of a raw input (``OUT/corpus``, :mod:`dataset_scripts.corpus`) or a corpus folder as it is; ``--plan`` predicts the
build from a sample (:mod:`.build_plan`). A rerun resumes; usage and reproducibility: docs/corpus-and-datasets.md.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from wikiformer_kit.cli import KitArgumentParser, one_line_errors
from wikiformer_kit.cli.commands import public_command
from wikiformer_kit.cli.errors import InputError, one_line
from wikiformer_kit.cli.hub_access import check_cached_model
from wikiformer_kit.cli.options import add_option_groups, option, options_from
from wikiformer_kit.dataset_scripts.corpus.arguments import CorpusArguments
from wikiformer_kit.dataset_scripts.corpus.folder import is_corpus_dir
from wikiformer_kit.dataset_scripts.corpus.formats.base import CorpusFormatError
from wikiformer_kit.dataset_scripts.corpus.summary import corpus_summary
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions
from wikiformer_kit.dataset_scripts.tasks.baseline_options import BaselineArguments
from wikiformer_kit.dataset_scripts.tasks.names import ALL_TASKS, DEFAULT_TASKS, SYSTEMS, parse_tasks
from wikiformer_kit.dataset_scripts.tasks.options import POSITIVE_MODES, SRR_VARIANTS, TaskOptions

# The build itself (datasets, pyarrow, datatrove, the samplers) is imported when a build runs, not for --help.


@dataclass(frozen=True)
class SamplingArguments:
    """The samplers' options: :meth:`task_options`."""

    OPTION_GROUP = "sampling (the task samplers' options)"

    seed: int = option(TaskOptions.seed, help="the samplers' random seed")
    min_words: int = option(TaskOptions.min_words, help="a text counts only with this many words")
    max_words: int = option(TaskOptions.max_words, help="texts are cut to this many words (0: whole)")
    max_negatives: int = option(TaskOptions.max_negatives, help="at most this many negatives per row")
    positives: str = option(
        TaskOptions.positives, choices=POSITIVE_MODES, help="sample: one random positive (the paper); all: every one"
    )
    srr_variant: str = option(
        TaskOptions.srr_variant,
        choices=SRR_VARIANTS,
        help="paper: siblings as negatives; original: the original code's rule",
    )
    ltm_max_words: int = option(TaskOptions.ltm_max_words, help="word budget of LTM texts")
    ltm_negatives: int = option(TaskOptions.ltm_negatives, help="random negative articles per LTM row")
    keep_sections: bool = option(
        False, help="keep end-matter sections (References, External links, See also, ...) as task nodes"
    )

    def task_options(self) -> TaskOptions:
        """The samplers' options asked for."""
        return options_from(TaskOptions, self, keep_end_matter=self.keep_sections)


@dataclass(frozen=True)
class PlanArguments:
    """``--plan`` and its options: predict the whole build from a measured sample instead of building."""

    OPTION_GROUP = "plan (predict the build's wall time from a sample of the input; builds nothing)"

    plan: bool = option(
        False,
        help="measure the corpus and task stages on the first --plan-sample articles and print the wall time predicted "
        "for the whole input at each --plan-processes and --plan-cluster",
    )
    plan_sample: int = option(1000, help="articles measured (from each input shard)")
    plan_articles: int | None = option(
        help="articles of the whole input (default: from the input's size, or a corpus folder's rows)"
    )
    plan_processes: list[int] = option([1, 2, 16, 64, 256], help="process counts on one machine")
    plan_cluster: list[str] = option(
        [],
        action="append",
        metavar="NODESxCORES",
        help="a Slurm or Ray cluster of NODES machines of CORES cores each, e.g. 4x64 (repeatable)",
    )
    plan_json: Path | None = option(help="also write the measured figures here")


@dataclass(frozen=True)
class BuildCommandOptions(ExecutorOptions, SamplingArguments, CorpusArguments, BaselineArguments, PlanArguments):
    """The command line of ``python -m dataset_scripts.build`` (see the module docstring)."""

    input: list[Path] = field(default_factory=list)
    output_dir: Path | None = option(help="where wikiformer-<task>/ folders are written (required)")
    tasks: str = option(
        ",".join(DEFAULT_TASKS),
        help=f"comma-separated subset of {','.join(ALL_TASKS)}, or a method: wikiformer, prop, harp",
    )
    push_to_hub: str | None = option(metavar="NAMESPACE", help="push to NAMESPACE/wikiformer-<task>")
    private: bool = option(False, help="create the Hub repos private")
    articles_per_unit: int = option(1000, help="articles per output shard")


def parse_options(argv: list[str] | None = None) -> BuildCommandOptions:
    """The command line (see the module docstring)."""
    parser = KitArgumentParser(
        prog="python -m dataset_scripts.build",
        description=__doc__.split("\n\n")[0],
        input_help="dump/corpus files, or a corpus folder",
        input_type=Path,
    )
    add_option_groups(parser, BuildCommandOptions)
    options = options_from(BuildCommandOptions, parser.parse_args(argv))
    if options.private and not options.push_to_hub:
        parser.error("--private only makes sense with --push-to-hub")
    if options.output_dir is None and not options.plan:
        parser.error("--output-dir is required (unless --plan)")
    return options


def _cluster(text: str) -> tuple[int, int]:
    nodes, _, cores = text.lower().partition("x")
    if not (nodes.isdigit() and cores.isdigit() and int(nodes) > 0 and int(cores) > 0):
        raise ValueError(f"--plan-cluster {text!r}: give NODESxCORES, e.g. 4x64")
    return int(nodes), int(cores)


def plan_main(args: BuildCommandOptions, build) -> int:
    """``--plan``: print the measured figures and the predicted wall times (see :mod:`.build_plan`)."""
    from wikiformer_kit.dataset_scripts.build_plan import run_plan

    clusters = [_cluster(text) for text in args.plan_cluster]
    if args.plan_sample < 1:
        raise ValueError(f"--plan-sample must be >= 1, got {args.plan_sample}")
    lines = run_plan(
        build,
        sample=args.plan_sample,
        articles=args.plan_articles,
        processes=args.plan_processes,
        clusters=clusters,
        corpus=options_from(CorpusArguments, args),
        figures_json=args.plan_json,
    )
    print("\n".join(lines))
    return 0


def _local_path(argument: str) -> bool:
    """An existing file, or one in an existing folder (an output folder not made yet)."""
    return Path(argument).exists() or Path(argument).parent.is_dir()


def build_options(args: BuildCommandOptions, argv: list[str]):
    """The typed options (a :class:`.tasks.build.BuildOptions`) of a parsed command line (``ValueError`` for a
    bad value)."""
    from wikiformer_kit.dataset_scripts.tasks.build import BuildOptions

    sampling, prop, harp = args.task_options(), args.prop_options(), args.harp_options()
    tasks = parse_tasks(args.tasks)
    if set(tasks) & set(SYSTEMS["harp"]):
        check_cached_model(harp.importance_model, "the HARP importance model")  # before the corpus is read
    return BuildOptions(
        inputs=tuple(args.input),
        output_dir=args.output_dir or Path("."),
        tasks=tasks,
        sampling=sampling,
        corpus=args.corpus_options(),
        executor=options_from(ExecutorOptions, args),
        articles_per_unit=args.articles_per_unit,
        repo_id=f"{args.push_to_hub}/wikiformer-{{task}}" if args.push_to_hub else None,
        command=public_command("python -m dataset_scripts.build", argv, _local_path),
        prop=prop,
        harp=harp,
        attention_cache=args.harp_attention_cache,
    )


@one_line_errors
def main(argv: list[str] | None = None) -> int:
    """Run the build; returns the process exit code (0: every requested task written and pushed)."""
    from wikiformer_kit.dataset_scripts.folder_lock import FolderInUseError, holding

    args = parse_options(argv)
    if args.plan or not args.output_dir:
        return run(args, argv)
    try:
        with holding(args.output_dir, "a task build"):  # before the build's libraries load: a refusal is at once
            return run(args, argv)
    except FolderInUseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def run(args: BuildCommandOptions, argv: list[str] | None) -> int:
    """The build of a parsed command line, its summary and its push; returns the exit code."""
    from wikiformer_kit.dataset_scripts.corpus.empty import EmptyCorpusError
    from wikiformer_kit.dataset_scripts.tasks.build import BuildParametersError, build_datasets, push
    from wikiformer_kit.dataset_scripts.tasks.build_layout import BuildLayout
    from wikiformer_kit.dataset_scripts.tasks.corpus_units import CorpusLayoutError

    try:
        build = build_options(args, argv if argv is not None else sys.argv[1:])
        if args.plan:
            return plan_main(args, build)
    except (KeyError, ValueError) as error:  # InputError among them
        print(f"error: {one_line(error) if isinstance(error, InputError) else error}", file=sys.stderr)
        return 2
    layout = BuildLayout(build.output_dir)
    made_here = [p for p in (layout.root, layout.root / "corpus", layout.root / "logs") if not p.exists()]
    try:
        summary = build_datasets(build)
    except (BuildParametersError, CorpusLayoutError, CorpusFormatError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except EmptyCorpusError as error:
        # a corpus of no article is no step towards a build that resumes: what this command made is removed
        for path in made_here:
            shutil.rmtree(path, ignore_errors=True)
        print(f"error: {error}; nothing was built", file=sys.stderr)
        return 2
    except Exception as error:  # only Ctrl-C or SIGTERM is an interruption (one_line_errors says so): name the cause
        print(
            f"error: the build stopped: {one_line(error)}; the stages finished before it are kept, so the same command "
            "resumes once the cause is fixed",
            file=sys.stderr,
        )
        return 1
    if summary is None:
        print(f"jobs submitted; rerun the same command when they are done to {'push' if args.push_to_hub else 'check'}")
        return 0
    corpus_dir = (
        build.inputs[0] if len(build.inputs) == 1 and is_corpus_dir(build.inputs[0]) else layout.root / "corpus"
    )
    for line in corpus_summary(corpus_dir):
        print(line, file=sys.stderr if line.startswith("warning:") else sys.stdout)
    written = [t for t in build.tasks if summary[t]["rows"] > 0]
    for task in build.tasks:
        state = f"{summary[task]['rows']} rows -> {layout.task_dir(task)}"
        if task not in written:
            state = f"0 rows: {summary[task].get('empty_reason', 'no group')} -> {layout.task_dir(task)} (empty)"
        print(f"{task}: {state}")
        for name, measure in sorted(summary[task].get("measures", {}).items()):
            if measure["count"]:
                print(f"  {name}: {measure['total'] / measure['count']:.3f} (mean of {measure['count']})")
    status = 0 if written else 1
    if not written:
        print(f"error: {no_rows_message(summary, build)}", file=sys.stderr)
    if args.push_to_hub and written:
        failed = push(layout, build.tasks, args.push_to_hub, args.private, written)
        if failed:
            print(
                f"the local datasets in {layout.root} are intact; rerun the same command to push "
                f"{', '.join(failed)} again (the build itself will be skipped as complete)",
                file=sys.stderr,
            )
            status = 1
    return status


def no_rows_message(summary: dict, build) -> str:
    """One line on a build where no task gave a row: how many articles of which inputs, and what to do (each
    task's reason is on the lines before it)."""
    articles = summary.get("articles", 0)
    inputs = ", ".join(p.name for p in build.inputs)
    return (
        f"{inputs}: no task gave a row from the {articles:,} article{'s' if articles != 1 else ''} read (each task's "
        "reason is on its line above); give more or longer documents"
    )


if __name__ == "__main__":
    sys.exit(main())
