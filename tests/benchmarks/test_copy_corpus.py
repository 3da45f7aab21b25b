"""benchmarks/copy_corpus.py: copies of a built corpus equal what the corpus stage builds from big_dump's copies."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from wikiformer_kit.benchmarks.big_dump import write_dump
from wikiformer_kit.benchmarks.copy_corpus import copy_corpus
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.corpus.options import CorpusOptions

COPIES = 2


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The corpus stage on big_dump's one copy of the vendored sample and on its ``COPIES`` copies, and the copier
    on the first."""
    root = tmp_path_factory.mktemp("copies")
    one = write_dump(root / "dump1", articles=1, workers=1)
    many = write_dump(root / "dumpk", articles=106 * COPIES, workers=1)
    build_corpus([str(p) for p in one], root / "c1", CorpusOptions(read_ahead="off"))
    build_corpus([str(p) for p in many], root / "ck", CorpusOptions(read_ahead="off"))
    copy_corpus(root / "c1", COPIES, root / "copied", articles_per_file=100)
    return root


def rows(folder, part):
    return [row for path in sorted((folder / part).glob("*.parquet")) for row in pq.read_table(path).to_pylist()]


@pytest.mark.slow
@pytest.mark.parametrize("part", ["data", "redirects", "skipped"])
def test_copies_equal_the_corpus_stage_on_big_dumps_copies(built, part):
    stage, copied = rows(built / "ck", part), rows(built / "copied", part)
    assert len(stage) == len(copied) > 0
    if part == "skipped":  # the dump file the corpus stage read: a different file, read by no task
        stage = [{**row, "file": ""} for row in stage]
        copied = [{**row, "file": ""} for row in copied]
    assert stage == copied


@pytest.mark.slow
def test_each_copy_links_inside_itself_and_the_folder_is_a_corpus(built):
    articles = rows(built / "copied", "data")
    titles = {row["title"] for row in articles}
    second = articles[len(articles) // COPIES :]
    assert all(row["title"].endswith(" (copy 1)") for row in second)
    targets = [link["target"] for row in second for link in row["links"]]
    inside = [t for t in targets if t in titles]
    assert len(inside) > 500 and all(t.endswith(" (copy 1)") for t in inside)
    see_also = [t for row in second for t in row["see_also"]]
    assert see_also and sum(t in titles for t in see_also) > 0.8 * len(see_also)
    redirects = rows(built / "copied", "redirects")[len(rows(built / "c1", "redirects")) :]
    assert all(r["source"].endswith(" (copy 1)") for r in redirects)
    assert sum(r["target"].endswith(" (copy 1)") for r in redirects) > 10
    assert len(list((built / "copied" / "data").glob("*.parquet"))) == 2  # 100 articles a file: one copy (106) a file
    stats = json.loads((built / "copied" / "build_stats.json").read_text())["statistics"]
    assert stats == json.loads((built / "ck" / "build_stats.json").read_text())["statistics"]
    languages = json.loads((built / "copied" / "build_stats.json").read_text())["languages"]
    assert (
        languages == json.loads((built / "ck" / "build_stats.json").read_text())["languages"] == {"en": len(articles)}
    )
    assert stats["articles"] == len(articles)
    assert (built / "copied" / "README.md").exists()


def test_copies_must_be_positive(tmp_path):
    with pytest.raises(ValueError, match="copies"):
        copy_corpus(tmp_path, 0, tmp_path / "out")
