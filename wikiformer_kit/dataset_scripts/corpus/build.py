"""Build the Article corpus from inputs: plan shards, run the datatrove pipeline, write the dataset card."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.dataset_scripts.corpus.category_sources import categories_note
from wikiformer_kit.dataset_scripts.corpus.dump_identity import dump_identity
from wikiformer_kit.dataset_scripts.corpus.duplicates import drop_duplicates
from wikiformer_kit.dataset_scripts.corpus.empty import (
    CONFIG_SCHEMAS,
    clear_placeholders,
    empty_reason,
    write_placeholders,
)
from wikiformer_kit.dataset_scripts.corpus.folder import BUILD_RECORD, corpus_languages
from wikiformer_kit.dataset_scripts.corpus.formats.base import CorpusFormatError
from wikiformer_kit.dataset_scripts.corpus.made_from import check_made_from, made_from
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions
from wikiformer_kit.dataset_scripts.corpus.reading import resolve_read_ahead
from wikiformer_kit.dataset_scripts.corpus.source_license import source_license
from wikiformer_kit.dataset_scripts.corpus.sources import (
    FORMAT_MODULES,
    FORMAT_NAMES,
    Shard,
    nothing_readable,
    plan_shards,
)
from wikiformer_kit.dataset_scripts.corpus.steps import ArticleExtractor, CorpusWriter, ShardReader, merged_stats
from wikiformer_kit.dataset_scripts.corpus.summary import split_template_counts
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions, make_executor
from wikiformer_kit.dataset_scripts.fingerprint import stamp, stamped_pattern, unstamp
from wikiformer_kit.dataset_scripts.folder_lock import holding

SHARD_PLAN = Path("logs") / "shards.json"
"""Where a build records its shards (relative to its output folder), for a rerun to resume on the same ones."""

CARD_TEMPLATE = """---
configs:
- config_name: articles
  data_files: {data}
  default: true
- config_name: redirects
  data_files: {redirects}
- config_name: skipped
  data_files: {skipped}
{license}
---

# Wikiformer corpus

Articles as Wiki Structure Trees (title, abstract, nested sections with their heading paths, links with anchor
text and sentence, See also targets), built by `python -m dataset_scripts.corpus` from: {inputs}.

- `articles` (default): one row per article; `redirects`: the title map; `skipped`: every record left out, with
  its reason.

{categories}

## Build statistics

{table}

## License

{license_text}
"""


def build_corpus(
    inputs: list[str | Path],
    output_dir: str | Path,
    options: CorpusOptions = CorpusOptions(),
    executor: ExecutorOptions = ExecutorOptions(),
    stage_log: str | Path | None = None,
) -> Counter:
    """Build the corpus of ``inputs`` into ``output_dir`` and return the merged build statistics.

    Writes ``data/*.parquet`` (Articles, :data:`~dataset_scripts.corpus.article.ARTICLE_SCHEMA`),
    ``redirects/*.parquet``, ``skipped/*.parquet``, ``build_stats.json`` (the input names, their formats, the options,
    the number of shards and the statistics: :func:`.folder.read_build_record`) and a ``README.md`` card that
    ``datasets.load_dataset`` reads. A rerun into the same folder resumes (finished shards are not read again) when
    its input files and options are the ones the earlier work was made from (:mod:`.made_from`); else it builds the
    corpus again, saying what changed.
    An article read twice (the same page id or title in one language, in one input or across inputs) is kept once,
    the first in input order, and the later copies are counted skips (:mod:`.duplicates`).
    The stage prints one line; its output goes to ``stage_log`` (default: ``output_dir/logs/corpus.log``).
    """
    with holding(output_dir, "a corpus build"):
        output_dir = Path(output_dir)
        shards, unknown = shard_plan(inputs, output_dir, options, executor.num_proc)
        if check_made_from(output_dir, made_from([shard.path for shard in shards], options)):
            # the earlier plan went with it
            shards, unknown = shard_plan(inputs, output_dir, options, executor.num_proc)
        output_dir.mkdir(parents=True, exist_ok=True)
        read_ahead = resolve_read_ahead(options.read_ahead, min(executor.num_proc, len(shards)), executor.kind)
        # Files in input folders that no reader knows are recorded as skipped by the first task.
        reader = ShardReader(shards, options.reader, options.limit, extra_skipped=unknown, read_ahead=read_ahead)
        run = make_executor(
            executor,
            [reader, ArticleExtractor(options.reader), CorpusWriter(output_dir)],
            tasks=len(shards),
            logging_dir=str(output_dir / "logs"),
            job_name="wikiformer-corpus",
            stage="corpus",
            stage_log=Path(stage_log) if stage_log else output_dir / "logs" / "corpus.log",
            preload=("wikiformer_kit.dataset_scripts.corpus.steps", *format_modules_of(shards), "pandas"),
        )
        config_folders = [output_dir / folder for folder in CONFIG_SCHEMAS]
        unstamp(config_folders)  # resuming: the writers and datatrove see the names they wrote
        clear_placeholders(output_dir)
        run.run()
        if executor.kind == "slurm" and getattr(run, "job_id", -1) not in (None, -1):
            return Counter()  # jobs submitted: they write the corpus; the rerun that finds them done writes the card
        drop_duplicates(output_dir)  # across tasks: each saw only its own shard
        stats, templates_cut = split_template_counts(merged_stats(output_dir))
        write_placeholders(output_dir)
        fingerprint = stamp(output_dir, config_folders)
        names = [Path(p).name for p in inputs]
        # the formats decide the licence the cards state (corpus/source_license.py)
        formats = sorted({shard.fmt for shard in shards})
        write_card(output_dir, names, stats, formats, fingerprint)
        record = {"inputs": names, "formats": formats, "options": options.to_dict(), "statistics": dict(stats)}
        record["templates_cut"] = templates_cut  # by name, most cut first: the templates a table could render
        # the language each dump names (<siteinfo>) wins over the reader's default: record what was built
        record["language_sources"] = dump_languages(shards, options)
        languages = corpus_languages(output_dir)
        if languages:
            record["languages"] = languages
            record["options"]["reader"]["language"] = ",".join(languages)
        record["shards"] = len(shards)
        (output_dir / BUILD_RECORD).write_text(json.dumps(record, indent=1, sort_keys=True))
        return stats


def dump_languages(shards: list[Shard], options: CorpusOptions) -> dict[str, list[str]]:
    """Each MediaWiki dump's language and where it comes from (``--language``, ``<dbname>``, ``xml:lang``,
    ``<base>``, the file name or the default: see :func:`.formats.mediawiki_xml.dump_language`), by file name."""
    from wikiformer_kit.dataset_scripts.corpus.formats.mediawiki_xml import NAME, read_siteinfo

    found: dict[str, list[str]] = {}
    for path in dict.fromkeys(str(shard.path) for shard in shards if shard.fmt == NAME):
        info = read_siteinfo(path, options=options.reader)
        found[Path(path).name] = [info["language"], info["language_source"]]
    return found


def format_modules_of(shards: list[Shard]) -> list[str]:
    """The reader modules the shards need: what the workers' fork server loads once for them all (with pandas,
    which pyarrow loads on the first rows it converts)."""
    names = {shard.fmt for shard in shards}
    return [
        f"wikiformer_kit.dataset_scripts.corpus.formats.{m}"
        for m, name in zip(FORMAT_MODULES, FORMAT_NAMES, strict=True)
        if name in names
    ]


def shard_plan(
    inputs: list[str | Path], output_dir: Path, options: CorpusOptions, num_proc: int
) -> tuple[list[Shard], list]:
    """The shards of the build (at least ``num_proc`` where the dumps can be cut so: :func:`.sources.plan_shards`)
    and the unknown files, the plan recorded in ``logs/`` for a rerun.

    A rerun over the same files keeps the shards of the build it resumes, whatever its ``--num-proc``: the tasks
    that build finished are known by their number, which must name the same part of the input.

    Raises:
        CorpusFormatError: no file to read (before anything is written), saying what was looked for.
    """
    shards, unknown = plan_shards(inputs, options.fmt, options.streams_per_shard, num_proc)
    if not shards:
        raise CorpusFormatError(nothing_readable(inputs, unknown))
    recorded = output_dir / SHARD_PLAN
    if recorded.exists():
        earlier = [Shard(**fields) for fields in json.loads(recorded.read_text())]
        if {(s.path, s.fmt) for s in earlier} == {(s.path, s.fmt) for s in shards}:
            return earlier, unknown
    plan = json.dumps([asdict(shard) for shard in shards], indent=1)
    atomic_write(recorded, lambda tmp: tmp.write_text(plan))
    return shards, unknown


def write_card(
    output_dir: Path,
    input_names: list[str],
    stats: Counter,
    formats: list[str] | None = None,
    fingerprint: str | None = None,
) -> None:
    """The corpus README.md: a `configs:` block for `load_dataset` (its patterns name the data files'
    ``fingerprint``: :mod:`..fingerprint`), the build statistics and the licence of the input ``formats``
    (:func:`.source_license.source_license`; ``None``: Wikipedia)."""
    rows = "\n".join(f"| {key} | {value:,} |" for key, value in sorted(stats.items()))
    table = "| statistic | count |\n|---|---|\n" + rows
    if not stats["articles"]:
        table = f"**This corpus is empty**: {empty_reason(stats)}.\n\n{table}"
    names = ", ".join(f"`{name}` ({dump_identity(name)})" for name in input_names)
    licence = source_license(formats or ["mediawiki-xml"], ", ".join(input_names))
    metadata = "\n".join(f"{key}: {value}" for key, value in licence.card_data().items())
    text = "\n\n".join(licence.paragraphs)
    (output_dir / "README.md").write_text(
        as_run(CARD_TEMPLATE).format(
            license=metadata,
            license_text=text,
            inputs=names,
            table=table,
            categories=categories_note(formats or ["mediawiki-xml"]),
            **{folder: stamped_pattern(f"{folder}/*.parquet", fingerprint) for folder in CONFIG_SCHEMAS},
        )
    )
