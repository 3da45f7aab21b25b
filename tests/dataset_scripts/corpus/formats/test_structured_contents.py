"""Wikimedia Enterprise Structured Contents: nested sections and paragraph links as one Article, no See also."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from collections import Counter

from tests.conftest import PROJECT_ROOT, SAMPLES
from tests.dataset_scripts.corpus.formats.markup import HTML_TAG, assert_clean, build_corpus, split_records
from wikiformer_kit.dataset_scripts.corpus.formats import enterprise_html, structured_contents
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.reading import read_shard
from wikiformer_kit.dataset_scripts.corpus.sources import detect_format, plan_shards

SAMPLE = SAMPLES / "enterprise" / "structured-contents-sample.ndjson"
HTML_DUMP = SAMPLES / "enterprise" / "wiki-NS0-sample-ENTERPRISE-HTML.json.tar.gz"
OPTIONS = ReaderOptions()


def test_structured_contents_and_html_dumps_are_told_apart_by_content():
    assert detect_format(SAMPLE) is structured_contents
    assert detect_format(HTML_DUMP) is enterprise_html


def test_the_record_is_one_article_with_its_sections_and_links():
    (article,), skipped, _ = split_records(structured_contents.read(SAMPLE, OPTIONS))
    assert skipped == []
    assert (article.title, article.language, article.source) == ("Montreal", "en", "structured-contents")
    assert article.abstract.startswith("Montreal (CA: /ˌ m ʌ n t r i ˈ ɔː l / MUN -tree-AWL; French: Montréal)")
    sections = [(s.title, s.level, s.parent) for s in article.sections]
    assert sections[0] == ("Etymology and original names", 2, -1)
    assert ("Sister cities", 3, sections.index(("International relations", 2, -1))) in sections
    by_target = {link.target: link for link in article.links}
    canada = by_target["Canada"]
    assert canada.anchor == "Canada" and "second most populous city in Canada" in canada.sentence
    assert "Help:IPA/English" not in by_target  # another namespace: its text only
    assert not any(".mp3" in target or "upload.wikimedia.org" in target for target in by_target)
    assert article.see_also == []  # Structured Contents leaves See also out
    assert_clean(article, HTML_TAG)


def test_bad_records_are_counted_skips(tmp_path):
    good = SAMPLE.read_bytes().strip()
    path = tmp_path / "part.ndjson"
    path.write_bytes(b"\n".join([b"{", json.dumps({"name": "X", "identifier": 1}).encode(), good]) + b"\n")
    found, skipped, reasons = split_records(structured_contents.read(path, OPTIONS))
    assert [a.title for a in found] == ["Montreal"]
    assert reasons == {"bad-json": 1, "no-sections": 1}
    assert [s.record for s in skipped] == ["line 1", "line 2 (X)"]


def test_a_tar_gz_of_records_is_read_as_the_html_dumps_are(tmp_path):
    data = SAMPLE.read_bytes()
    path = tmp_path / "enwiki-NS0-structured.json.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("enwiki_namespace_0_0.ndjson")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    module = detect_format(path)  # the sections lie beyond the bytes sniffed: taken for an HTML dump
    assert module in (structured_contents, enterprise_html)
    (article,) = split_records(module.read(path, OPTIONS))[0]
    assert (article.title, article.source) == ("Montreal", "structured-contents")


def test_the_build_names_why_ltm_is_empty(tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, "-m", "dataset_scripts.build", "--input", str(SAMPLE), "--output-dir", str(out)]
    result = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "ltm: 0 rows: none of the 1 articles has a See also link (Wikimedia's Structured Contents leave the See also"
        " section out: build LTM from an XML or Enterprise HTML dump of the same wiki)" in result.stdout
    ), result.stdout
    for task in ("srr", "rwi", "ati"):
        assert f"{task}: 1 rows" in result.stdout, result.stdout


def parquet_copies(folder) -> dict[str, object]:
    """The sample as Parquet: written by ``datasets`` (as the Hub converts a dataset: parts that differ in shape
    become JSON text) and by pyarrow's JSON reader (parts as structs, absent fields null)."""
    import datasets
    import pyarrow.json
    import pyarrow.parquet as pq

    by_datasets, by_pyarrow = folder / "datasets.parquet", folder / "pyarrow.parquet"
    datasets.Dataset.from_json(str(SAMPLE)).to_parquet(str(by_datasets))
    pq.write_table(pyarrow.json.read_json(SAMPLE), by_pyarrow)
    return {"datasets": by_datasets, "pyarrow": by_pyarrow}


def test_the_hubs_parquet_reads_as_the_ndjson_it_was_made_of(tmp_path):
    (expected,) = split_records(structured_contents.read(SAMPLE, OPTIONS))[0]
    for writer, path in parquet_copies(tmp_path).items():
        assert detect_format(path) is structured_contents, writer
        (article,), skipped, _ = split_records(structured_contents.read(path, OPTIONS))
        assert skipped == [] and article == expected, writer


def test_parquet_rows_are_shared_by_parts_and_a_damaged_file_is_a_counted_skip(tmp_path):
    import pyarrow
    import pyarrow.parquet as pq

    table = pq.read_table(parquet_copies(tmp_path)["pyarrow"])
    three = tmp_path / "three.parquet"
    pq.write_table(pyarrow.concat_tables([table] * 3), three)
    parts = [split_records(structured_contents.read(three, OPTIONS, part=(k, 2)))[0] for k in range(2)]
    assert [len(found) for found in parts] == [2, 1]
    damaged = tmp_path / "damaged.parquet"
    data = three.read_bytes()
    damaged.write_bytes(data[:200] + b"\0" * (len(data) - 200))  # the pages and the footer zeroed
    found, skipped, reasons = split_records(structured_contents.read(damaged, OPTIONS))
    assert reasons == {"damaged-file": 1} and skipped[0].file == str(damaged) and found == []
    assert "download it again" in skipped[0].detail
    assert split_records(structured_contents.read(damaged, OPTIONS, part=(1, 2)))[1] == []  # reported once


def test_damaged_parquet_copies_give_articles_and_counted_skips_never_an_error(tmp_path):
    import random

    import pyarrow
    import pyarrow.parquet as pq

    table = pq.read_table(parquet_copies(tmp_path)["pyarrow"])
    source = tmp_path / "rows.parquet"
    pq.write_table(pyarrow.concat_tables([table] * 3), source, row_group_size=1)
    data = source.read_bytes()
    rng = random.Random(7)
    copies = [data[:cut] for cut in range(4, len(data), len(data) // 30)]
    for _ in range(120):
        flipped = bytearray(data)
        flipped[rng.randrange(len(flipped))] ^= 0xFF
        copies.append(bytes(flipped))
    reasons = Counter()
    for number, copy in enumerate(copies):
        path = tmp_path / f"copy{number}.parquet"
        path.write_bytes(copy)
        found, skipped, counted = split_records(structured_contents.read(path, OPTIONS))
        assert all(skip.file == str(path) for skip in skipped)
        reasons.update(counted)
    assert reasons["damaged-file"] >= 30 and reasons["non-utf8"] > 0  # a cut footer; a flipped byte in a text


ROW_GROUPS = (5, 1, 3, 2, 4)
"""Rows of each row group of :func:`parquet_of_row_groups`: unequal, as the Hub's conversion writes them."""


def parquet_of_row_groups(folder, groups=ROW_GROUPS):
    """The sample record as Parquet rows in row groups of ``groups`` rows, each row with an identifier of its own
    (the record's, times 100, plus the row's number) and a name of its own (``Montreal 7``), so that a row read twice
    or never shows."""
    import pyarrow
    import pyarrow.json
    import pyarrow.parquet as pq

    record = pyarrow.json.read_json(SAMPLE)
    identifier = record.column("identifier")[0].as_py()
    path = folder / "structured.parquet"
    row = 0
    with pq.ParquetWriter(path, record.schema) as writer:
        for size in groups:
            ids = pyarrow.array(
                [identifier * 100 + row + n for n in range(size)], record.schema.field("identifier").type
            )
            names = pyarrow.array([f"{record.column('name')[0].as_py()} {row + n}" for n in range(size)])
            copies = pyarrow.concat_tables([record] * size)
            copies = copies.set_column(copies.schema.get_field_index("identifier"), "identifier", ids)
            writer.write_table(copies.set_column(copies.schema.get_field_index("name"), "name", names))
            row += size
    return path


def test_a_parquet_file_is_planned_as_runs_of_row_groups_balanced_by_rows(tmp_path):
    path = parquet_of_row_groups(tmp_path)
    assert structured_contents.row_group_rows(path) == list(ROW_GROUPS)
    assert structured_contents.row_group_rows(SAMPLE) is None
    ranges = {
        n: [(s.row_group_range, s.record_part) for s in plan_shards([path], min_shards=n)[0]] for n in (1, 2, 3, 7)
    }
    assert ranges[1] == [(None, None)]  # one process: the whole file
    assert ranges[2] == [((0, 2), None), ((2, 5), None)]  # 6 and 9 rows: the nearest cut to 7.5
    assert ranges[3] == [((0, 1), None), ((1, 3), None), ((3, 5), None)]  # 5, 4 and 6 rows
    # more processes than row groups: each row group shared by rows among as many as its share gives it
    assert ranges[7] == [
        ((0, 1), None), ((1, 2), None), ((2, 3), (0, 2)), ((2, 3), (1, 2)), ((3, 4), None), ((4, 5), (0, 2)),
        ((4, 5), (1, 2)),
    ]  # fmt: skip
    whole = [a.id for a in split_records(structured_contents.read(path, OPTIONS))[0]]
    assert len(set(whole)) == sum(ROW_GROUPS)
    for n in (2, 3, 7):
        shards = plan_shards([path], min_shards=n)[0]
        read = [a.id for shard in shards for a in split_records(read_shard(shard, OPTIONS, "off", print))[0]]
        assert sorted(read) == sorted(whole), n
        if n < 7:
            assert read == whole  # runs of row groups in order: the rows in the file's order


def test_a_row_group_shard_reads_only_its_own_row_groups(tmp_path):
    import pyarrow.parquet as pq

    path = parquet_of_row_groups(tmp_path)
    metadata = pq.ParquetFile(path).metadata
    first = metadata.row_group(0).column(0)
    data = bytearray(path.read_bytes())
    at = first.data_page_offset
    data[at : at + first.total_compressed_size] = b"\xff" * first.total_compressed_size  # row group 0 unreadable
    path.write_bytes(bytes(data))
    found, skipped, reasons = split_records(structured_contents.read(path, OPTIONS))
    assert reasons == {"damaged-row-group": 1} and skipped[0].record == "row group 0 (rows 1-5)"
    assert len(found) == sum(ROW_GROUPS[1:])  # the other row groups are read
    first_shard, second_shard = plan_shards([path], min_shards=2)[0]
    found, skipped, _ = split_records(read_shard(second_shard, OPTIONS, "off", print))
    assert skipped == [] and len(found) == sum(ROW_GROUPS[2:])
    found, skipped, _ = split_records(read_shard(first_shard, OPTIONS, "off", print))
    assert [skip.reason for skip in skipped] == ["damaged-row-group"] and len(found) == ROW_GROUPS[1]


def test_one_two_or_three_processes_build_the_same_corpus_from_a_parquet_file(tmp_path):
    path = parquet_of_row_groups(tmp_path)
    corpora = {}
    for processes in (1, 2, 3):
        corpora[processes], shards = build_corpus(path, tmp_path / f"corpus-{processes}", processes)
        assert len(shards) == processes and all(shard["row_groups"] == (processes > 1) for shard in shards)
    assert corpora[1] == corpora[2] == corpora[3] and len(corpora[1]) == sum(ROW_GROUPS)


def damage_row_group(path, group: int) -> None:
    """Overwrite the pages of every column of one row group of a Parquet file (its footer intact)."""
    import pyarrow.parquet as pq

    metadata = pq.ParquetFile(path).metadata.row_group(group)
    data = bytearray(path.read_bytes())
    for number in range(metadata.num_columns):
        column = metadata.column(number)
        start = min(column.data_page_offset, column.dictionary_page_offset or column.data_page_offset)
        data[start : start + column.total_compressed_size] = b"\xff" * column.total_compressed_size
    path.write_bytes(bytes(data))


def test_a_damaged_row_group_is_one_counted_skip_and_every_other_row_is_kept_whatever_the_processes(tmp_path):
    from wikiformer_kit.dataset_scripts.corpus.build import build_corpus as build
    from wikiformer_kit.dataset_scripts.executors import ExecutorOptions

    path = parquet_of_row_groups(tmp_path, (20,) * 10)
    damage_row_group(path, 5)  # rows 101-120
    expected = [f"Montreal {row}" for row in [*range(100), *range(120, 200)]]
    for processes in (1, 2, 3, 12):  # 12: more processes than row groups, which are then shared by rows
        shards = plan_shards([path], min_shards=processes)[0]
        read = [r for shard in shards for r in read_shard(shard, OPTIONS, "off", print)]
        found, skipped, reasons = split_records(read)
        assert sorted(article.title for article in found) == sorted(expected), processes
        assert reasons == {"damaged-row-group": 1}, processes
        assert (skipped[0].file, skipped[0].record) == (str(path), "row group 5 (rows 101-120)")
        assert "the other row groups are read" in skipped[0].detail
    for processes in (1, 3):
        stats = build([path], tmp_path / f"corpus-{processes}", executor=ExecutorOptions(num_proc=processes))
        assert stats["articles"] == 180 and stats["skipped:damaged-row-group"] == 1


def test_a_record_without_a_name_is_a_counted_skip_never_a_made_up_title(tmp_path):
    """A null, non-string or blank ``name`` (in NDJSON and in a Parquet row): a ``no-title`` skip, in both Enterprise
    readers; a made-up title ("row 2", the identifier) would become an ATI query."""
    import pyarrow.json
    import pyarrow.parquet as pq

    good = json.loads(SAMPLE.read_bytes())
    nameless = [{**good, "name": name, "identifier": 1000 + n} for n, name in enumerate((None, 1157, "  "))]
    path = tmp_path / "part.ndjson"
    path.write_text("\n".join(json.dumps(record) for record in [*nameless, good]) + "\n")
    found, skipped, reasons = split_records(structured_contents.read(path, OPTIONS))
    assert [a.title for a in found] == ["Montreal"] and reasons == {"no-title": 3}
    typed = tmp_path / "typed.ndjson"  # a Parquet column holds one type: null and blank names
    typed.write_text("\n".join(json.dumps(r) for r in [nameless[0], nameless[2], good]) + "\n")
    rows = tmp_path / "part.parquet"
    pq.write_table(pyarrow.json.read_json(typed), rows)
    found, _, reasons = split_records(structured_contents.read(rows, OPTIONS))
    assert [a.title for a in found] == ["Montreal"] and reasons == {"no-title": 2}
    html = json.loads(next(line for line in gzip_lines(HTML_DUMP) if line.strip()))
    records = tmp_path / "html.ndjson"
    records.write_text(json.dumps({**html, "name": None}) + "\n" + json.dumps(html) + "\n")
    found, _, reasons = split_records(enterprise_html.read(records, OPTIONS))
    assert [a.title for a in found] == [html["name"]] and reasons == {"no-title": 1}


def gzip_lines(archive) -> list[bytes]:
    with tarfile.open(archive) as tar:
        member = next(m for m in tar.getmembers() if m.isfile())
        return tar.extractfile(member).read().splitlines()


def test_a_record_nested_past_the_recursion_limit_is_one_counted_skip(tmp_path):
    """Nested deeper than the JSON parser follows: a ``too-deep`` skip, and the record after it read (the parts' walk
    itself is iterative)."""
    part = '{"type": "section", "name": "S", "has_parts": ['
    deep = f'{{"name": "Deep", "identifier": 1, "sections": [{part * 3000}{{"type": "paragraph"}}{"]}" * 3000}]}}'
    path = tmp_path / "deep.ndjson"
    path.write_text(deep + "\n" + SAMPLE.read_text().strip() + "\n")
    found, skipped, reasons = split_records(structured_contents.read(path, OPTIONS))
    assert [a.title for a in found] == ["Montreal"] and reasons == {"too-deep": 1}
