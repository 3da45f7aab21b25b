"""A corpus rerun never trusts stale work: a replaced input file, another input or other options build the corpus
again (saying what changed); the same ones resume and reuse."""

from __future__ import annotations

import shutil

import pyarrow.parquet as pq

from tests.conftest import ENWIKI_SAMPLE, SAMPLES
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions

LTGWIKI = SAMPLES / "wikipedia" / "ltgwiki-sample.xml.bz2"


def ids(folder) -> list[str]:
    return sorted(
        i for p in (folder / "data").glob("*.parquet") for i in pq.read_table(p, columns=["id"])["id"].to_pylist()
    )


def test_a_truncated_download_replaced_by_the_whole_file_is_read_again(tmp_path, capsys):
    dump = tmp_path / "in" / "ltgwiki-pages-articles.xml.bz2"
    dump.parent.mkdir()
    dump.write_bytes(LTGWIKI.read_bytes()[: LTGWIKI.stat().st_size // 3])  # a download that broke off
    out = tmp_path / "corpus"
    truncated = build_corpus([dump], out)
    shutil.copyfile(LTGWIKI, dump)  # the whole file, under the same name
    whole = build_corpus([dump], out)
    assert "input replaced (size or time): ltgwiki-pages-articles.xml.bz2" in capsys.readouterr().err
    assert whole["articles"] > truncated["articles"]
    assert ids(out) == ids_of_a_fresh_build([LTGWIKI], tmp_path / "fresh")


def test_another_input_or_other_options_rebuild_and_the_same_ones_reuse(tmp_path, capsys):
    out = tmp_path / "corpus"
    build_corpus([ENWIKI_SAMPLE], out, CorpusOptions(limit=30))
    build_corpus([ENWIKI_SAMPLE], out, CorpusOptions(limit=30))
    assert "building it again" not in capsys.readouterr().err  # the same inputs and options: reused
    build_corpus([LTGWIKI], out, CorpusOptions(limit=30))
    err = capsys.readouterr().err
    assert "other input: ltgwiki-sample.xml.bz2; input no longer given: enwiki-sample.xml.bz2" in err
    assert ids(out) == ids_of_a_fresh_build([LTGWIKI], tmp_path / "fresh", CorpusOptions(limit=30))
    build_corpus([LTGWIKI], out, CorpusOptions(limit=10))
    assert "options limit" in capsys.readouterr().err
    assert len(ids(out)) <= 10


def ids_of_a_fresh_build(inputs, folder, options=CorpusOptions()) -> list[str]:
    build_corpus(inputs, folder, options)
    return ids(folder)


def test_the_same_file_given_twice_is_read_once_and_counted(tmp_path):
    twice = build_corpus([LTGWIKI, LTGWIKI.parent / ".." / LTGWIKI.parent.name / LTGWIKI.name], tmp_path / "twice")
    once = build_corpus([LTGWIKI], tmp_path / "once")
    assert twice["articles"] == once["articles"] and twice["skipped:duplicate-input"] == 1
    assert ids(tmp_path / "twice") == ids(tmp_path / "once")
