"""Make a large built corpus from a small one without the corpus stage: the corpus's rows repeated K times, renamed
into each copy exactly as ``benchmarks/big_dump.py`` renames pages.

    python -m wikiformer_kit.benchmarks.copy_corpus --from-corpus CORPUS_DIR --copies K --output-dir OUT [--articles-per-file 5000]

Method: docs/benchmarks.md ("How each benchmark measures", ``copy_corpus``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from wikiformer_kit.benchmarks.big_dump import copy_suffix, id_stride, normal
from wikiformer_kit.dataset_scripts.corpus.build import write_card
from wikiformer_kit.dataset_scripts.corpus.folder import BUILD_RECORD, read_build_record
from wikiformer_kit.dataset_scripts.corpus.steps import ROWS_PER_BATCH, merged_stats
from wikiformer_kit.dataset_scripts.fingerprint import plain_name, stamp

PARTS = ("data", "redirects", "skipped")


def corpus_titles(corpus: Path) -> pa.Array:
    """Every page title of a built corpus as big_dump's ``Sample.titles`` holds them: articles, redirect sources
    and skipped pages (other namespaces), as MediaWiki compares titles (first letter upper case)."""
    titles = set()
    for part, column in (("data", "title"), ("redirects", "source"), ("skipped", "record")):
        for path in sorted((corpus / part).glob("*.parquet")):
            for value in pq.read_table(path, columns=[column]).column(0).to_pylist():
                if value:
                    titles.add(normal(value))
    return pa.array(sorted(titles), pa.string())


def corpus_id_stride(corpus: Path) -> int:
    """big_dump's id stride for copies of this corpus: the next power of ten above its largest article id."""
    largest = 0
    for path in sorted((corpus / "data").glob("*.parquet")):
        ids = pc.cast(pq.read_table(path, columns=["id"]).column(0), pa.int64())
        largest = max(largest, pc.max(ids).as_py() or 0)
    return id_stride(largest)


class Renamer:
    """Renames one batch of corpus rows into copy k (pure Arrow: no row becomes a Python object)."""

    def __init__(self, titles: pa.Array, stride: int):
        self.titles, self.stride = titles, stride

    def _rename(self, values: pa.Array, end: str, only_titles: bool = True) -> pa.Array:
        renamed = pc.binary_join_element_wise(values, pa.scalar(end), "")
        if not only_titles:
            return renamed
        return pc.if_else(pc.is_in(values, value_set=self.titles), renamed, values)

    def _list_of_strings(self, column: pa.ListArray, end: str) -> pa.ListArray:
        return pa.ListArray.from_arrays(column.offsets, self._rename(column.values, end), mask=column.is_null())

    def articles(self, table: pa.Table, copy: int) -> pa.Table:
        """Copy ``copy`` of article rows (``ARTICLE_SCHEMA``)."""
        if not copy:
            return table
        end = copy_suffix(copy)
        table = table.combine_chunks()
        columns = {name: table.column(name).chunk(0) if table.num_rows else table.column(name) for name in table.schema.names}  # fmt: skip
        columns["id"] = pc.cast(pc.add(pc.cast(columns["id"], pa.int64()), copy * self.stride), pa.string())
        columns["title"] = self._rename(columns["title"], end, only_titles=False)
        url = columns["url"]
        columns["url"] = pc.if_else(pc.equal(url, ""), url, self._rename(url, end.replace(" ", "_"), False))
        columns["see_also"] = self._list_of_strings(columns["see_also"], end)
        links = columns["links"]
        flat = links.values
        renamed = pa.StructArray.from_arrays(
            [self._rename(flat.field("target"), end), *(flat.field(n) for n in ("anchor", "sentence", "section"))],
            fields=list(flat.type),
        )
        columns["links"] = pa.ListArray.from_arrays(links.offsets, renamed, type=links.type, mask=links.is_null())
        sections = columns["sections"]
        flat = sections.values
        paths = flat.field("path")
        # a heading path starts with the article's title: its first element is the title, renamed
        starts = paths.offsets.to_numpy()[:-1]
        first = np.zeros(len(paths.values), dtype=bool)
        first[starts[paths.value_lengths().fill_null(0).to_numpy() > 0]] = True
        first = pa.array(first)
        path_values = pc.if_else(first, self._rename(paths.values, end, False), paths.values)
        new_paths = pa.ListArray.from_arrays(paths.offsets, path_values, mask=paths.is_null())
        fields = [new_paths if f.name == "path" else flat.field(f.name) for f in flat.type]
        new_flat = pa.StructArray.from_arrays(fields, fields=list(flat.type))
        columns["sections"] = pa.ListArray.from_arrays(sections.offsets, new_flat, type=sections.type, mask=sections.is_null())  # fmt: skip
        return pa.table([columns[name] for name in table.schema.names], schema=table.schema)

    def redirects(self, table: pa.Table, copy: int) -> pa.Table:
        """Copy ``copy`` of redirect rows: the source always renamed, the target where it names a page here."""
        if not copy:
            return table
        end = copy_suffix(copy)
        source, target = table.column("source"), table.column("target")
        source = self._rename(source.combine_chunks(), end, False)
        target = self._rename(target.combine_chunks(), end)
        return pa.table([source, target], schema=table.schema)

    def skipped(self, table: pa.Table, copy: int) -> pa.Table:
        """Copy ``copy`` of skipped records: the record (a page title) renamed."""
        if not copy:
            return table
        record = self._rename(table.column("record").combine_chunks(), copy_suffix(copy), False)
        return table.set_column(table.schema.get_field_index("record"), "record", record)


class _GroupedWriter:
    """One Parquet part file written in row groups of ``ROWS_PER_BATCH`` rows, as the corpus stage writes them."""

    def __init__(self, path: Path, schema: pa.Schema):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.schema = path, schema
        self.writer = pq.ParquetWriter(path.with_name(path.name + ".tmp"), schema, compression="zstd")
        self.pending: list[pa.Table] = []
        self.rows = 0

    def add(self, table: pa.Table) -> None:
        self.pending.append(table)
        self.rows += table.num_rows
        waiting = sum(t.num_rows for t in self.pending)
        if waiting >= ROWS_PER_BATCH:
            whole = pa.concat_tables(self.pending)
            cut = waiting // ROWS_PER_BATCH * ROWS_PER_BATCH
            self.writer.write_table(whole.slice(0, cut), row_group_size=ROWS_PER_BATCH)
            self.pending = [whole.slice(cut)]

    def close(self) -> None:
        rest = pa.concat_tables(self.pending) if self.pending else None
        if rest is not None and rest.num_rows:
            self.writer.write_table(rest, row_group_size=ROWS_PER_BATCH)
        self.writer.close()
        self.path.with_name(self.path.name + ".tmp").replace(self.path)


def _batches(path: Path) -> Iterator[pa.Table]:
    parquet = pq.ParquetFile(path)
    for group in range(parquet.metadata.num_row_groups):
        yield parquet.read_row_group(group)


def copy_corpus(source: Path, copies: int, output_dir: Path, articles_per_file: int = 5000) -> Counter:
    """Write ``copies`` renamed copies of the corpus at ``source`` into ``output_dir`` (see the module docstring);
    returns the output's statistics (the source's, times ``copies``)."""
    if copies < 1:
        raise ValueError(f"copies must be >= 1, got {copies}")
    data_files = sorted((source / "data").glob("*.parquet"))
    if not data_files:
        raise SystemExit(f"{source} is not a corpus folder: no data/*.parquet in it")
    record = read_build_record(source) or {}
    source_stats = Counter(record.get("statistics") or merged_stats(source))
    renamer = Renamer(corpus_titles(source), corpus_id_stride(source))
    files = {part: sorted((source / part).glob("*.parquet")) for part in PARTS}
    schemas = {part: pq.read_schema(paths[0]) for part, paths in files.items() if paths}
    per_file = {path: pq.ParquetFile(path).metadata.num_rows for path in data_files}
    output_dir.mkdir(parents=True, exist_ok=True)
    number, writers, rows, part_stats = 0, {}, 0, []

    def close() -> None:
        for writer in writers.values():
            writer.close()
        writers.clear()

    for copy in range(copies):
        for position, path in enumerate(data_files):
            if not writers:
                writers.update(
                    {
                        part: _GroupedWriter(output_dir / part / f"{number:05d}.parquet", schema)
                        for part, schema in schemas.items()
                    }  # fmt: skip
                )
                rows = 0
                part_stats.append(Counter())
            stats_file = source / "stats" / plain_name(path).replace(".parquet", ".json")
            part_stats[-1].update(
                json.loads(stats_file.read_text()) if stats_file.exists() else {"articles": per_file[path]}
            )
            for batch in _batches(path):
                writers["data"].add(renamer.articles(batch, copy))
            # a copy's redirects and skipped records go with its first data file
            if position == 0:
                for part, rename in (("redirects", renamer.redirects), ("skipped", renamer.skipped)):
                    for other in files[part]:
                        for batch in _batches(other):
                            writers[part].add(rename(batch, copy))
            rows += per_file[path]
            if rows >= articles_per_file:
                close()
                number += 1
    if writers:
        close()
        number += 1
    stats = Counter({key: value * copies for key, value in source_stats.items()})
    for part, counted in enumerate(part_stats):  # the source's per-file statistics, added up per part file
        path = output_dir / "stats" / f"{part:05d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(dict(counted), indent=1, sort_keys=True))
    names = [f"{name} (x{copies}, benchmarks/copy_corpus.py)" for name in record.get("inputs", [source.name])]
    formats = record.get("formats")
    fingerprint = stamp(output_dir, [output_dir / part for part in PARTS])
    write_card(output_dir, names, stats, formats, fingerprint)
    built = {"inputs": names, "formats": formats, "options": record.get("options", {}), "statistics": dict(stats)}
    # the corpus's languages, as the corpus stage records them (without them a build reads every file's column)
    built["languages"] = {code: count * copies for code, count in (record.get("languages") or {}).items()} or None
    built = {key: value for key, value in built.items() if value is not None}
    (output_dir / BUILD_RECORD).write_text(json.dumps(built, indent=1, sort_keys=True))
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from-corpus", type=Path, required=True, help="a built corpus folder (copy 0)")
    parser.add_argument("--copies", type=int, required=True, help="copies to write (the source is copy 0)")
    parser.add_argument("--output-dir", type=Path, required=True)
    parser.add_argument("--articles-per-file", type=int, default=5000, help="start a new part file past this")
    args = parser.parse_args(argv)
    stats = copy_corpus(args.from_corpus, args.copies, args.output_dir, args.articles_per_file)
    print(f"{args.output_dir}: {stats['articles']:,} articles, {stats['redirects']:,} redirects")
    return 0


if __name__ == "__main__":
    sys.exit(main())
