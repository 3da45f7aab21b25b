"""``python -m dataset_scripts.corpus [--input] INPUT... --output-dir DIR``: build the Article corpus (see ``build.py``)."""

from __future__ import annotations

import sys

from wikiformer_kit.cli import KitArgumentParser, one_line_errors
from wikiformer_kit.cli.options import add_option_groups, options_from
from wikiformer_kit.dataset_scripts.corpus.arguments import CorpusCommandOptions
from wikiformer_kit.dataset_scripts.corpus.formats.base import CorpusFormatError
from wikiformer_kit.dataset_scripts.corpus.summary import corpus_summary, see_also_line
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions


def parse_options(argv: list[str] | None = None) -> CorpusCommandOptions:
    """The command line."""
    parser = KitArgumentParser(
        prog="python -m dataset_scripts.corpus",
        description="Turn Wikipedia dumps, wikitext, WikiExtractor output, Markdown, HTML, LaTeX or XML into a "
        "Parquet corpus of Articles (Wiki Structure Trees with links and See also targets).",
        input_help="files or folders (read recursively)",
    )
    add_option_groups(parser, CorpusCommandOptions)
    return options_from(CorpusCommandOptions, parser.parse_args(argv))


@one_line_errors
def main(argv: list[str] | None = None) -> int:
    """Run the build and print its summary."""
    args = parse_options(argv)
    # the readers, pyarrow and datatrove load for a build, not for --help
    from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
    from wikiformer_kit.dataset_scripts.corpus.empty import empty_reason
    from wikiformer_kit.dataset_scripts.corpus.folder import read_build_record

    try:
        options, executor = args.corpus_options(), options_from(ExecutorOptions, args)
        stats = build_corpus(args.input, args.output_dir, options, executor)
    except (CorpusFormatError, ValueError) as error:  # ValueError: an option out of range
        print(f"error: {error}", file=sys.stderr)
        return 2
    shards = (read_build_record(args.output_dir) or {}).get("shards", 0)
    skipped = {k.split(":", 1)[1]: v for k, v in stats.items() if k.startswith("skipped:")}
    print(
        f"\n{stats['articles']:,} articles, {stats['redirects']:,} redirects, {sum(skipped.values()):,} skipped"
        + (" (" + ", ".join(f"{reason}: {n:,}" for reason, n in sorted(skipped.items())) + ")" if skipped else "")
        + f"\n{stats['sections']:,} sections, {stats['links']:,} links, {stats['see_also_edges']:,} See also edges"
        + f" ({see_also_line(stats)})"
        + f"\ninput read as {shards:,} shards by {min(executor.num_proc, shards)} processes"
        + f"\nwritten to {args.output_dir} (load with datasets.load_dataset({str(args.output_dir)!r}"
        + (", streaming=True): datasets loads a split of 0 rows only streaming)" if not stats["articles"] else "))")
    )
    if not stats["articles"]:
        print(f"the corpus is empty: {empty_reason(stats)}")
    for line in corpus_summary(args.output_dir)[1:]:  # the See also line is printed above
        print(line, file=sys.stderr if line.startswith("warning:") else sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
