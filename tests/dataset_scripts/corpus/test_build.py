"""The corpus build: CLI, datatrove pipeline, multistream shards, resume, and loading the result."""

from __future__ import annotations

import bz2
import json
import os
import re
import shutil
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.folder import read_build_record
from wikiformer_kit.dataset_scripts.corpus.formats.base import CorpusFormatError
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions
from wikiformer_kit.dataset_scripts.corpus.sources import plan_shards
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions


def make_multistream(source, directory, pages_per_stream=10):
    """A real multistream dump (one bz2 stream per group of pages, plus its index) from the sample dump."""
    xml = bz2.open(source).read().decode()
    header, rest = xml.split("<page>", 1)
    pages = ["<page>" + p for p in rest.split("<page>")]
    pages[-1], footer = pages[-1].split("</mediawiki>")[0], "</mediawiki>\n"
    dump = directory / "xxwiki-20240101-pages-articles-multistream.xml.bz2"
    index_lines, offset = [], 0
    with open(dump, "wb") as out:
        chunk = bz2.compress(header.encode())
        out.write(chunk)
        offset += len(chunk)
        for i in range(0, len(pages), pages_per_stream):
            group = pages[i : i + pages_per_stream]
            for page in group:
                page_id = re.search(r"<id>(\d+)</id>", page).group(1)
                title = re.search(r"<title>(.*?)</title>", page).group(1)
                index_lines.append(f"{offset}:{page_id}:{title}")
            chunk = bz2.compress("".join(group).encode())
            out.write(chunk)
            offset += len(chunk)
        out.write(bz2.compress(footer.encode()))
    index = directory / "xxwiki-20240101-pages-articles-multistream-index.txt.bz2"
    index.write_bytes(bz2.compress("\n".join(index_lines).encode()))
    return dump


def article_ids(output_dir):
    return sorted(
        row for path in sorted((output_dir / "data").glob("*.parquet")) for row in pq.read_table(path)["id"].to_pylist()
    )


def test_cli_builds_a_dataset_that_load_dataset_reads(enwiki_sample, tmp_path):
    out = tmp_path / "corpus"
    result = subprocess.run(
        [sys.executable, "-m", "dataset_scripts.corpus", str(enwiki_sample), "--output-dir", str(out)],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert "106 articles, 99 redirects, 1 skipped (not-article-namespace: 1)" in result.stdout
    assert "78 articles with See also" in result.stdout
    load = (
        f"import datasets, json; d = datasets.load_dataset({str(out)!r}, split='train');"
        f"r = datasets.load_dataset({str(out)!r}, 'redirects', split='train');"
        "print(json.dumps([len(d), len(r), d[0]['title'], d[0]['sections'][0]['path']]))"
    )
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}
    loaded = subprocess.run([sys.executable, "-c", load], capture_output=True, text=True, env=env, timeout=300)
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert json.loads(loaded.stdout.strip().splitlines()[-1]) == [
        106,
        99,
        "Anarchism",
        ["Anarchism", "Etymology and terminology"],
    ]
    card = (out / "README.md").read_text()
    assert "config_name: articles" in card and "| articles | 106 |" in card
    assert "license: cc-by-sa-4.0" in card and "Wikipedia contributors" in card
    assert json.loads((out / "build_stats.json").read_text())["formats"] == ["mediawiki-xml"]


def test_multistream_dump_is_read_by_byte_ranges(enwiki_sample, tmp_path):
    dump = make_multistream(enwiki_sample, tmp_path)
    shards, _ = plan_shards([dump], streams_per_shard=5)
    assert len(shards) == 5 and all(s.multistream for s in shards)
    assert [s.end for s in shards[:-1]] == [s.start for s in shards[1:]]

    whole = build_corpus([enwiki_sample], tmp_path / "whole")
    ranged = build_corpus([dump], tmp_path / "ranged", CorpusOptions(streams_per_shard=5), ExecutorOptions(num_proc=2))
    assert ranged["articles"] == whole["articles"] == 106
    assert ranged["redirects"] == whole["redirects"] == 99
    assert article_ids(tmp_path / "ranged") == article_ids(tmp_path / "whole")


def corpus_rows(output_dir):
    """Every row of every output config, in the order the files and rows come."""
    return {
        config: [
            row for path in sorted((output_dir / config).glob("*.parquet")) for row in pq.read_table(path).to_pylist()
        ]
        for config in ("data", "redirects", "skipped")
    }


def test_one_multistream_file_is_cut_into_a_shard_per_process(tmp_path, capsys):
    from wikiformer_kit.benchmarks.big_dump import write_dump
    from wikiformer_kit.dataset_scripts.corpus.__main__ import main
    from wikiformer_kit.dataset_scripts.corpus.sources import multistream_index

    (dump,) = write_dump(tmp_path / "in", 106, workers=1)  # 206 pages, 3 streams of 100
    assert multistream_index(dump) is not None
    assert len(plan_shards([dump])[0]) == 1
    shards, _ = plan_shards([dump], min_shards=3)
    assert len(shards) == 3 and [s.end for s in shards[:-1]] == [s.start for s in shards[1:]]
    assert len(plan_shards([dump], min_shards=8)[0]) == 3  # one stream a shard at the least

    assert main([str(dump), "--output-dir", str(tmp_path / "one"), "--read-ahead", "off"]) == 0
    assert "input read as 1 shards by 1 processes" in capsys.readouterr().out
    assert main([str(dump), "--output-dir", str(tmp_path / "three"), "--num-proc", "3"]) == 0
    assert "input read as 3 shards by 3 processes" in capsys.readouterr().out
    assert len(list((tmp_path / "three" / "data").glob("*.parquet"))) == 3
    assert read_build_record(tmp_path / "three")["shards"] == 3
    one, three = corpus_rows(tmp_path / "one"), corpus_rows(tmp_path / "three")
    assert len(one["data"]) == 106 and len(one["redirects"]) == 99
    assert one == three


def test_streams_per_shard_on_the_command_line(enwiki_sample, tmp_path, capsys):
    from wikiformer_kit.dataset_scripts.corpus.__main__ import main

    dump = make_multistream(enwiki_sample, tmp_path)  # 21 streams
    assert main([str(dump), "--output-dir", str(tmp_path / "by-5"), "--streams-per-shard", "5"]) == 0
    assert "input read as 5 shards by 1 processes" in capsys.readouterr().out
    assert read_build_record(tmp_path / "by-5")["shards"] == 5
    # a value above the dump's streams: one shard per process, however many streams a shard then holds
    large = ["--streams-per-shard", "1000000", "--num-proc", "2", "--read-ahead", "off"]
    assert main([str(dump), "--output-dir", str(tmp_path / "by-proc"), *large]) == 0
    assert "input read as 2 shards by 2 processes" in capsys.readouterr().out
    assert corpus_rows(tmp_path / "by-5") == corpus_rows(tmp_path / "by-proc")
    assert main([str(dump), "--output-dir", str(tmp_path / "bad"), "--streams-per-shard", "0"]) != 0
    assert "streams_per_shard must be >= 1" in capsys.readouterr().err


def test_a_rerun_keeps_the_shards_of_the_build_it_resumes(enwiki_sample, tmp_path):
    dump = make_multistream(enwiki_sample, tmp_path)  # 21 streams
    out = tmp_path / "corpus"
    build_corpus([dump], out, executor=ExecutorOptions(num_proc=2))
    assert read_build_record(out)["shards"] == 2
    (out / "logs" / "completions" / "00001").unlink()  # as if the second task had died
    for folder in ("data", "redirects", "skipped", "stats"):
        for path in (out / folder).glob("00001.*"):
            path.unlink()
    stats = build_corpus([dump], out)  # one process now: the same two shards, the second one read again
    assert read_build_record(out)["shards"] == 2
    assert stats["articles"] == 106 and len(set(article_ids(out))) == 106


def test_interrupted_build_resumes_without_duplicates(enwiki_sample, tmp_path):
    dump = make_multistream(enwiki_sample, tmp_path, pages_per_stream=50)
    out = tmp_path / "corpus"
    build_corpus([dump], out, CorpusOptions(streams_per_shard=2))
    (finished,) = (out / "data").glob("00000-fp*.parquet")  # named with the content fingerprint
    before = finished.stat().st_mtime_ns
    # As if the run had died during its last task: no completion mark, no outputs yet.
    last = len(list((out / "logs" / "completions").iterdir())) - 1
    (out / "logs" / "completions" / f"{last:05d}").unlink()
    for folder in ("data", "redirects", "skipped", "stats"):
        for path in (out / folder).glob(f"{last:05d}[.-]*"):
            path.unlink()
    stats = build_corpus([dump], out, CorpusOptions(streams_per_shard=2))
    assert finished.stat().st_mtime_ns == before  # a finished task is not run again
    assert stats["articles"] == 106
    ids = article_ids(out)
    assert len(ids) == len(set(ids)) == 106


def test_limit_and_unknown_files(enwiki_sample, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "dump.xml.bz2").write_bytes(enwiki_sample.read_bytes())
    (folder / "notes.bin").write_bytes(b"\x00\x01 nothing a reader knows")
    stats = build_corpus([folder], tmp_path / "out", CorpusOptions(limit=10))
    assert stats["articles"] == 10
    assert stats["skipped:unknown-format"] == 1
    record = read_build_record(tmp_path / "out")  # what the task build reads back
    assert record["inputs"] == ["in"] and record["options"]["limit"] == 10
    assert record["statistics"] == dict(stats)


def test_a_named_file_of_unknown_format_is_an_error(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(b"\x00\x01")
    with pytest.raises(CorpusFormatError, match="x.bin"):
        plan_shards([path])
    with pytest.raises(CorpusFormatError, match="no such file"):
        plan_shards([tmp_path / "missing.xml"])


def test_an_empty_build_is_a_loadable_empty_dataset_that_says_why(enwiki_sample, tmp_path, capsys):
    from datasets import load_dataset

    from wikiformer_kit.dataset_scripts.corpus.__main__ import main

    site = '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"><siteinfo><dbname>enwiki</dbname></siteinfo>'
    talk = "<page><title>Talk:X</title><ns>1</ns><id>1</id><revision><text>t</text></revision></page>"
    dump = tmp_path / "talk-only.xml"
    dump.write_text(site + talk + "</mediawiki>")
    out = tmp_path / "out"
    assert main([str(dump), "--output-dir", str(out)]) == 0
    assert "the corpus is empty: no page became an article: 1 not-article-namespace" in capsys.readouterr().out
    assert "**This corpus is empty**" in (out / "README.md").read_text()
    articles = load_dataset(str(out), split="train", streaming=True)
    assert list(articles) == [] and "see_also" in articles.features and "sections" in articles.features
    assert [r["reason"] for r in load_dataset(str(out), "skipped", split="train")] == ["not-article-namespace"]
    (placeholder,) = (out / "redirects").glob("empty-fp*.parquet")
    assert pq.read_schema(placeholder).names == ["source", "target"]
    # placeholders left in a folder (an empty build stopped before its logs) never stay beside real shards
    again = tmp_path / "again"
    shutil.copytree(out / "data", again / "data")
    build_corpus([enwiki_sample], again, CorpusOptions(limit=3))
    assert not list((again / "data").glob("empty*.parquet"))
    assert load_dataset(str(again), split="train").num_rows == 3


def test_inputs_with_nothing_readable_are_refused_before_anything_is_written(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.md").write_text("a folder's own description is not read")
    out = tmp_path / "out"
    with pytest.raises(CorpusFormatError, match=rf"^{empty}: no file to read in it \(hidden files, README.md"):
        build_corpus([empty], out)
    junk = tmp_path / "junk"
    junk.mkdir()
    for name in ("blob.bin", "notes.dat"):
        (junk / name).write_bytes(b"\x00\x01 nothing a reader knows")
    with pytest.raises(
        CorpusFormatError,
        match=rf"^{junk}: nothing readable: none of its 2 files \(blob.bin, notes.dat\) is in a format the kit "
        r"recognises \(mediawiki-xml, .*\); pass --format NAME",
    ):
        build_corpus([junk], out)
    assert not out.exists()
