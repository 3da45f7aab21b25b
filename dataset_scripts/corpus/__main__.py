"""``python -m dataset_scripts.corpus INPUT... --output-dir DIR``: build the Article corpus (see ``build.py``)."""

from __future__ import annotations

import argparse
import sys

from .build import build_corpus
from .empty import empty_reason
from .formats.base import CorpusFormatError, ReaderOptions
from .reading import READ_AHEAD_CHOICES
from .sources import format_modules


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m dataset_scripts.corpus",
        description="Turn Wikipedia dumps, wikitext, WikiExtractor output, Markdown, HTML, LaTeX or XML into a "
        "Parquet corpus of Articles (Wiki Structure Trees with links and See also targets).",
    )
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="files or folders (read recursively)")
    parser.add_argument("--output-dir", required=True, help="where the corpus dataset is written")
    parser.add_argument(
        "--format", default="auto", help="auto (sniff each file) or one of: " + ", ".join(format_modules())
    )
    parser.add_argument("--num-proc", type=int, default=1, help="worker processes (one task per file or dump range)")
    parser.add_argument("--limit", type=int, default=None, help="read at most N articles from each shard")
    parser.add_argument("--language", default="en", help="language code when the input does not say (default en)")
    parser.add_argument(
        "--see-also-title",
        action="append",
        default=[],
        help="an extra heading name that marks the See also section (repeatable), e.g. 'Verīs taipoš'",
    )
    parser.add_argument("--max-article-bytes", type=int, default=0, help="skip larger articles (0: no limit)")
    parser.add_argument(
        "--read-ahead",
        default="auto",
        choices=READ_AHEAD_CHOICES,
        help="read each dump in a process of its own while its pages are parsed: auto (when a core is free for "
        "it, i.e. fewer workers than cores), process, or off",
    )
    parser.add_argument("--executor", default="local", choices=("local", "slurm", "ray"))
    parser.add_argument("--slurm-partition", default=None)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the build and print its summary."""
    args = parse_args(argv)
    options = ReaderOptions(
        language=args.language,
        see_also_titles=tuple(args.see_also_title),
        max_article_bytes=args.max_article_bytes,
    )
    try:
        stats = build_corpus(
            args.inputs,
            args.output_dir,
            fmt=args.format,
            num_proc=args.num_proc,
            limit=args.limit,
            options=options,
            executor=args.executor,
            slurm_partition=args.slurm_partition,
            read_ahead=args.read_ahead,
        )
    except CorpusFormatError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    skipped = {k.split(":", 1)[1]: v for k, v in stats.items() if k.startswith("skipped:")}
    print(
        f"\n{stats['articles']:,} articles, {stats['redirects']:,} redirects, {sum(skipped.values()):,} skipped"
        + (" (" + ", ".join(f"{reason}: {n:,}" for reason, n in sorted(skipped.items())) + ")" if skipped else "")
        + f"\n{stats['sections']:,} sections, {stats['links']:,} links, {stats['see_also_edges']:,} See also edges"
        + f" ({stats['articles_with_see_also']:,} articles with See also)"
        + f"\nwritten to {args.output_dir} (load with datasets.load_dataset({str(args.output_dir)!r}))"
    )
    if not stats["articles"]:
        print(f"the corpus is empty: {empty_reason(stats)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
