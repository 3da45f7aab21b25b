"""Articles read twice (the same page id, or the same title, in one language) are kept once, the first in input
order, and each later copy is a counted skip: inside one file, across input files, whatever the processes."""

from __future__ import annotations

import copy
import io
import json
import tarfile
from pathlib import Path

import pyarrow.parquet as pq

from tests.conftest import SAMPLES
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions

SAMPLE = json.loads((SAMPLES / "enterprise" / "structured-contents-sample.ndjson").read_text().splitlines()[0])


def record(number: int, title: str | None = None, language: str = "en") -> dict:
    """The vendored Structured Contents record as page ``1000 + number`` titled ``Page <number>``."""
    found = copy.deepcopy(SAMPLE)
    found.update(name=title or f"Page {number}", identifier=1000 + number, in_language={"identifier": language})
    return found


def ndjson(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def build(inputs: list[Path], out: Path, processes: int = 1) -> dict:
    """Build the corpus; its statistics and its rows (articles by title in file order, skips sorted)."""
    stats = build_corpus(inputs, out, CorpusOptions(), ExecutorOptions(num_proc=processes))

    def rows(config: str) -> list[dict]:
        return [row for path in sorted((out / config).glob("*.parquet")) for row in pq.read_table(path).to_pylist()]

    skipped = sorted((r["reason"], r["file"], r["record"], r["detail"]) for r in rows("skipped"))
    return {"stats": dict(stats), "titles": [r["title"] for r in rows("data")], "skipped": skipped}


def test_a_record_given_twice_in_one_file_is_kept_once_whatever_the_processes(tmp_path):
    path = ndjson(tmp_path / "part.ndjson", [record(1), record(2), record(1), record(3)])
    one, two = build([path], tmp_path / "one"), build([path], tmp_path / "two", processes=2)
    assert one["titles"] == ["Page 1", "Page 2", "Page 3"]
    assert one["skipped"] == [("duplicate-id", str(path), "1001 (Page 1)", f"page id 1001 (en) already read from "
                                                                           f"{path}: the first one is kept")]  # fmt: skip
    assert one["stats"]["articles"] == 3 and one["stats"]["skipped:duplicate-id"] == 1
    assert two == one  # the two processes each read half the file: the copy is found once they are done


def test_a_record_given_again_in_another_input_file_is_kept_once(tmp_path):
    first = ndjson(tmp_path / "a.ndjson", [record(1), record(2)])
    second = ndjson(tmp_path / "b.ndjson", [record(2), record(3)])
    alone = build([ndjson(tmp_path / "c.ndjson", [record(1), record(2), record(3)])], tmp_path / "alone")
    for processes in (1, 2, 3):
        built = build([first, second], tmp_path / f"p{processes}", processes)
        assert built["titles"] == ["Page 1", "Page 2", "Page 3"]
        ((reason, file, name, detail),) = built["skipped"]
        assert (reason, file, name) == ("duplicate-id", str(second), "1002 (Page 2)") and str(first) in detail
        # the copy's sections and links are taken out of the statistics with it
        assert {k: v for k, v in built["stats"].items() if k != "skipped:duplicate-id"} == alone["stats"]


def test_the_same_title_under_another_id_is_a_duplicate_and_languages_are_kept_apart(tmp_path):
    records = [record(1), record(2, "Page 1"), record(1, language="de"), record(3, "Page 1", "de"), record(4)]
    built = build([ndjson(tmp_path / "part.ndjson", records)], tmp_path / "out")
    assert built["titles"] == ["Page 1", "Page 1", "Page 4"]  # en and de
    assert [(reason, name) for reason, _, name, _ in built["skipped"]] == [
        ("duplicate-title", "1002 (Page 1)"),
        ("duplicate-title", "1003 (Page 1)"),
    ]
    assert "as page id 1001: the first one is kept" in built["skipped"][0][3]


def test_in_an_archive_shared_by_records_the_first_copy_in_input_order_is_kept(tmp_path):
    # records 1 and 2 come again, renamed, as records 4 and 6 (in another member): with 2 processes record 4 is read
    # by the first one and record 1 by the second, with 3 processes record 6 by the first and record 2 by the third;
    # the copy kept must not depend on which process read which record
    members = {"m0.ndjson": [record(0), record(1), record(2), record(3)],
               "m1.ndjson": [record(1, "Renamed 1"), record(4), record(2, "Renamed 2"), record(5)]}  # fmt: skip
    path = tmp_path / "dump.json.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, records in members.items():
            data = "".join(json.dumps(r) + "\n" for r in records).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    built = {n: build([path], tmp_path / f"p{n}", n) for n in (1, 2, 3)}
    assert sorted(built[1]["titles"]) == [f"Page {n}" for n in range(6)]
    assert [name for _, _, name, _ in built[1]["skipped"]] == ["1001 (Renamed 1)", "1002 (Renamed 2)"]
    for processes in (2, 3):
        assert sorted(built[processes]["titles"]) == sorted(built[1]["titles"])
        assert built[processes]["skipped"] == built[1]["skipped"]
        assert built[processes]["stats"] == built[1]["stats"]


def test_a_dump_page_given_twice_is_kept_once(tmp_path):
    page = (
        "<page><title>Alpha</title><ns>0</ns><id>7</id><revision><text>'''Alpha''' is a word that names a letter "
        "and [[Beta]] is the next one.\n\n== History ==\nIt came from [[Phoenicia]].</text></revision></page>"
    )
    site = '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"><siteinfo><dbname>enwiki</dbname></siteinfo>'
    once, twice = tmp_path / "once.xml", tmp_path / "twice.xml"
    once.write_text(site + page + "</mediawiki>")
    twice.write_text(site + page + page + "</mediawiki>")
    alone, doubled = build([once], tmp_path / "alone"), build([twice], tmp_path / "doubled")
    assert doubled["titles"] == alone["titles"] == ["Alpha"]
    assert [(reason, name) for reason, _, name, _ in doubled["skipped"]] == [("duplicate-id", "7 (Alpha)")]
    assert {k: v for k, v in doubled["stats"].items() if k != "skipped:duplicate-id"} == alone["stats"]


def test_web_documents_may_share_a_title(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_text(
        "D1\thttp://a.example/\tHome\tThe first page about apples.\n"
        "D2\thttp://b.example/\tHome\tThe second page about pears.\n"
        "D1\thttp://a.example/\tHome\tThe first page about apples.\n"
    )
    built = build([path], tmp_path / "out")
    assert built["titles"] == ["Home", "Home"]
    assert [(reason, name) for reason, _, name, _ in built["skipped"]] == [("duplicate-id", "D1")]


def test_a_resumed_build_keeps_the_first_copy_and_counts_the_others_once(tmp_path):
    first = ndjson(tmp_path / "a.ndjson", [record(1), record(2)])
    second = ndjson(tmp_path / "b.ndjson", [record(2), record(1), record(3)])
    out = tmp_path / "out"
    built = build([first, second], out, processes=2)
    assert built["titles"] == ["Page 1", "Page 2", "Page 3"] and len(built["skipped"]) == 2
    assert build([first, second], out, processes=2) == built  # a rerun over the finished build: nothing changes
    # as if the task of the first file had died: it runs again, and its articles are the ones kept
    (out / "logs" / "completions" / "00000").unlink()
    for folder in ("data", "redirects", "skipped", "stats"):
        for path in (out / folder).glob("00000[.-]*"):
            path.unlink()
    assert build([first, second], out, processes=1) == built


def test_a_task_written_without_its_keys_is_read_from_its_data_file(tmp_path):
    import pyarrow as pa

    from wikiformer_kit.dataset_scripts.corpus.article import ARTICLE_SCHEMA, Article
    from wikiformer_kit.dataset_scripts.corpus.duplicates import drop_duplicates

    out = tmp_path / "corpus"
    tasks = [[Article("1", "A", "Text of A.", language="en"), Article("2", "B", "Text of B.", language="en")],
             [Article("3", "B", "Other text.", language="en"), Article("4", "C", "Text of C.", language="en")]]  # fmt: skip
    for rank, articles in enumerate(tasks):
        (out / "data").mkdir(parents=True, exist_ok=True)
        (out / "stats").mkdir(exist_ok=True)
        table = pa.Table.from_pylist([a.to_dict() for a in articles], schema=ARTICLE_SCHEMA)
        pq.write_table(table, out / "data" / f"{rank:05d}.parquet")
        (out / "stats" / f"{rank:05d}.json").write_text(json.dumps({"articles": 2}))
    assert drop_duplicates(out) == {"duplicate-title": 1}
    assert pq.read_table(out / "data" / "00001.parquet")["id"].to_pylist() == ["4"]
    stats = json.loads((out / "stats" / "00001.json").read_text())
    assert (stats["articles"], stats["skipped:duplicate-title"]) == (1, 1) and min(stats.values()) == 0
    (skip,) = pq.read_table(out / "skipped" / "00001.parquet").to_pylist()
    assert (skip["reason"], skip["record"]) == ("duplicate-title", "3 (B)")
    assert drop_duplicates(out) == {}  # done once: a second pass finds nothing
