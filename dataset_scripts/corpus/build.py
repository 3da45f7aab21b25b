"""Build the Article corpus from inputs: plan shards, run the datatrove pipeline, write the dataset card."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ..executors import make_executor
from .empty import clear_placeholders, empty_reason, write_placeholders
from .formats.base import ReaderOptions
from .reading import resolve_read_ahead
from .sources import FORMAT_MODULES, STREAMS_PER_SHARD, plan_shards
from .steps import ArticleExtractor, CorpusWriter, ShardReader, merged_stats

CARD_TEMPLATE = """---
configs:
- config_name: articles
  data_files: data/*.parquet
  default: true
- config_name: redirects
  data_files: redirects/*.parquet
- config_name: skipped
  data_files: skipped/*.parquet
license: {license}
---

# Wikiformer corpus

Articles as Wiki Structure Trees (title, abstract, nested sections with their heading paths, links with anchor
text and sentence, See also targets), built by `python -m dataset_scripts.corpus` from: {inputs}.

- `articles` (default): one row per article; `redirects`: the title map; `skipped`: every record left out, with
  its reason.

## Build statistics

{table}

Text from Wikipedia is © Wikipedia contributors, licensed CC BY-SA 4.0; other inputs keep their own licenses.
"""


def build_corpus(
    inputs: list[str | Path],
    output_dir: str | Path,
    *,
    fmt: str = "auto",
    num_proc: int = 1,
    limit: int | None = None,
    options: ReaderOptions = ReaderOptions(),
    executor: str = "local",
    slurm_partition: str | None = None,
    streams_per_shard: int = STREAMS_PER_SHARD,
    read_ahead: str = "auto",
) -> Counter:
    """Build the corpus of ``inputs`` into ``output_dir`` and return the merged build statistics.

    Writes ``data/*.parquet`` (Articles, :data:`~dataset_scripts.corpus.article.ARTICLE_SCHEMA`),
    ``redirects/*.parquet``, ``skipped/*.parquet`` and a ``README.md`` card that ``datasets.load_dataset``
    reads. A rerun into the same folder resumes: finished shards are not read again. ``streams_per_shard`` sets
    how many bz2 streams of an indexed multistream dump make one task. ``read_ahead`` (``auto``, ``process``,
    ``off``) says whether each task reads ahead in a process of its own; ``auto`` does when a core is free for it.
    """
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    shards, unknown = plan_shards(inputs, fmt, streams_per_shard)
    if not shards:
        raise SystemExit(f"no readable input among {', '.join(map(str, inputs))}")
    # Files in input folders that no reader knows are recorded as skipped by the first task.
    read_ahead = resolve_read_ahead(read_ahead, min(num_proc, len(shards)), executor)
    reader = ShardReader(shards, options, limit, extra_skipped=unknown, read_ahead=read_ahead)
    pipeline = [reader, ArticleExtractor(options)]
    pipeline.append(CorpusWriter(output_dir))
    run = make_executor(
        executor,
        pipeline,
        tasks=len(shards),
        workers=num_proc,
        logging_dir=str(output_dir / "logs"),
        job_name="wikiformer-corpus",
        slurm_partition=slurm_partition,
        preload=("dataset_scripts.corpus.steps", *(f"dataset_scripts.corpus.formats.{m}" for m in FORMAT_MODULES)),
    )
    clear_placeholders(output_dir)
    run.run()
    stats = merged_stats(output_dir)
    write_placeholders(output_dir)
    write_card(output_dir, inputs, stats)
    return stats


def write_card(output_dir: Path, inputs: list[str | Path], stats: Counter) -> None:
    """The corpus README.md: a `configs:` block for `load_dataset` and the build statistics."""
    rows = "\n".join(f"| {key} | {value:,} |" for key, value in sorted(stats.items()))
    table = "| statistic | count |\n|---|---|\n" + rows
    if not stats["articles"]:
        table = f"**This corpus is empty**: {empty_reason(stats)}.\n\n{table}"
    names = ", ".join(f"`{Path(p).name}`" for p in inputs)
    (output_dir / "README.md").write_text(CARD_TEMPLATE.format(license="cc-by-sa-4.0", inputs=names, table=table))
    (output_dir / "build_stats.json").write_text(json.dumps(dict(stats), indent=1, sort_keys=True))
