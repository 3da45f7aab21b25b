"""The corpus options on a command line, declared once: shared by ``python -m dataset_scripts.corpus``,
``python -m dataset_scripts.build`` and ``python -m dataset_scripts.wikir``, so that every corpus option is reachable
from each."""

from __future__ import annotations

from dataclasses import dataclass, field

from wikiformer_kit.cli.options import option
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions
from wikiformer_kit.dataset_scripts.corpus.reading import READ_AHEAD_CHOICES
from wikiformer_kit.dataset_scripts.corpus.sources import FORMAT_NAMES, STREAMS_PER_SHARD
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions


@dataclass(frozen=True)
class CorpusArguments:
    """The corpus options of a command line; :meth:`corpus_options` gives them to a corpus build."""

    OPTION_GROUP = "corpus (reading raw inputs)"

    format: str = option("auto", help="auto (sniff each file) or one of: " + ", ".join(FORMAT_NAMES))
    limit: int | None = option(None, help="read at most N articles from each shard")
    language: str | None = option(
        None,
        help="language code of the input, over what a dump says; not given: the dump's <dbname>, else its xml:lang, "
        "else its <base> host, else its file name (dewiki-...), else en",
    )
    see_also_title: list[str] = option(
        [],
        action="append",
        help="an extra heading name that marks the See also section (repeatable), e.g. 'Verīs taipoš'; given, it "
        "replaces finding the section by its structure",
    )
    max_article_bytes: int = option(0, help="skip larger articles (0: no limit)")
    streams_per_shard: int = option(
        STREAMS_PER_SHARD,
        help=f"bz2 streams of an indexed multistream dump per shard (default {STREAMS_PER_SHARD}, about "
        f"{STREAMS_PER_SHARD * 100:,} pages); a dump is cut finer when that gives fewer shards than --num-proc, so a "
        "large value gives exactly --num-proc equal shards",
    )
    read_ahead: str = option(
        "auto",
        choices=READ_AHEAD_CHOICES,
        help="read each dump in a process of its own while its pages are parsed: auto (when a core is free for "
        "it, i.e. fewer workers than cores), process, or off",
    )

    def corpus_options(self) -> CorpusOptions:
        """The options of the corpus build (``ValueError`` for a bad value)."""
        reader = ReaderOptions(
            language=self.language or "en",
            see_also_titles=tuple(self.see_also_title),
            max_article_bytes=self.max_article_bytes,
            language_given=self.language is not None,
        )
        return CorpusOptions(self.format, reader, self.limit, self.read_ahead, self.streams_per_shard)


@dataclass(frozen=True, kw_only=True)
class CorpusCommandOptions(CorpusArguments, ExecutorOptions):
    """The command line of ``python -m dataset_scripts.corpus``: the inputs, where the corpus is written, how the
    build runs and how it reads."""

    input: list[str] = field(default_factory=list)
    output_dir: str = option(help="where the corpus dataset is written", required=True)
