"""The corpus options on a command line: shared by ``python -m dataset_scripts.corpus`` and
``python -m dataset_scripts.build``, so that every corpus option is reachable from both."""

from __future__ import annotations

import argparse

from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions
from wikiformer_kit.dataset_scripts.corpus.reading import READ_AHEAD_CHOICES
from wikiformer_kit.dataset_scripts.corpus.sources import FORMAT_NAMES, STREAMS_PER_SHARD


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """``--format``, ``--limit``, ``--language``, ``--see-also-title``, ``--max-article-bytes``, ``--read-ahead``,
    ``--streams-per-shard``."""
    group = parser.add_argument_group("corpus (reading raw inputs)")
    group.add_argument("--format", default="auto", help="auto (sniff each file) or one of: " + ", ".join(FORMAT_NAMES))
    group.add_argument("--limit", type=int, default=None, help="read at most N articles from each shard")
    group.add_argument(
        "--language",
        default=None,
        help="language code of the input, over what a dump says; not given: the dump's <dbname>, else its xml:lang, "
        "else its <base> host, else its file name (dewiki-...), else en",
    )
    group.add_argument(
        "--see-also-title",
        action="append",
        default=[],
        help="an extra heading name that marks the See also section (repeatable), e.g. 'Verīs taipoš'; given, it "
        "replaces finding the section by its structure",
    )
    group.add_argument("--max-article-bytes", type=int, default=0, help="skip larger articles (0: no limit)")
    group.add_argument(
        "--streams-per-shard",
        type=int,
        default=STREAMS_PER_SHARD,
        help=f"bz2 streams of an indexed multistream dump per shard (default {STREAMS_PER_SHARD}, about "
        f"{STREAMS_PER_SHARD * 100:,} pages); a dump is cut finer when that gives fewer shards than --num-proc, so a "
        "large value gives exactly --num-proc equal shards",
    )
    group.add_argument(
        "--read-ahead",
        default="auto",
        choices=READ_AHEAD_CHOICES,
        help="read each dump in a process of its own while its pages are parsed: auto (when a core is free for "
        "it, i.e. fewer workers than cores), process, or off",
    )


def corpus_options(args: argparse.Namespace) -> CorpusOptions:
    """The options :func:`add_corpus_arguments` parsed (``ValueError`` for a bad value)."""
    reader = ReaderOptions(
        language=args.language or "en",
        see_also_titles=tuple(args.see_also_title),
        max_article_bytes=args.max_article_bytes,
        language_given=args.language is not None,
    )
    return CorpusOptions(
        fmt=args.format,
        reader=reader,
        limit=args.limit,
        read_ahead=args.read_ahead,
        streams_per_shard=args.streams_per_shard,
    )
