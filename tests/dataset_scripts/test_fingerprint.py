"""Two builds never share a ``datasets`` cache entry: folders of the same name built from different dumps, and a
rebuild in place with other options, each load their own rows (the kit's loaders and a user's plain
``load_dataset(FOLDER)``, in one process and in a fresh one)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import ENWIKI_SAMPLE, SAMPLES
from wikiformer_kit.dataset_scripts.build import main
from wikiformer_kit.dataset_scripts.fingerprint import content_fingerprint, file_digest, plain_name, stamp, unstamp
from wikiformer_kit.eval.collections.local_dataset import load_local_dataset
from wikiformer_kit.training.data import load_task

LTGWIKI_SAMPLE = SAMPLES / "wikipedia" / "ltgwiki-sample.xml.bz2"


def parquet_rows(folder: Path) -> list[dict]:
    files = sorted((folder / "data").glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def write_folder(folder: Path, values: list[int]) -> Path:
    """A dataset folder as any tool writes one: one Parquet file and a README with a ``configs:`` block."""
    (folder / "data").mkdir(parents=True)
    pq.write_table(pa.table({"v": values}), folder / "data" / "part.parquet")
    (folder / "README.md").write_text("---\nconfigs:\n- config_name: default\n  data_files: data/*.parquet\n---\n")
    return folder


def test_stamping_names_the_content_and_round_trips(tmp_path):
    folder = write_folder(tmp_path / "x", [1, 2, 3])
    fingerprint = stamp(folder, [folder / "data"])
    (stamped,) = (folder / "data").glob("*.parquet")
    assert stamped.name == f"part-fp{fingerprint}.parquet" and plain_name(stamped) == "part.parquet"
    assert stamp(folder, [folder / "data"]) == fingerprint  # stamping again: the same name
    other = write_folder(tmp_path / "y", [1, 2, 4])
    assert content_fingerprint(other, [other / "data"]) != fingerprint
    unstamp([folder / "data"])
    assert [p.name for p in (folder / "data").iterdir()] == ["part.parquet"]


def test_the_kits_loader_reads_each_folder_of_the_same_name(tmp_path):
    # the layout of the reported case, written by another tool (no fingerprint): datasets alone serves a/x's rows
    # for b/x; the kit's loader reads each folder's own files
    first, second = write_folder(tmp_path / "a" / "x", [1, 2, 3]), write_folder(tmp_path / "b" / "x", [4, 5, 6, 7, 8])
    assert load_local_dataset(first, split="train")["v"] == [1, 2, 3]
    assert load_local_dataset(second, split="train")["v"] == [4, 5, 6, 7, 8]
    pq.write_table(pa.table({"v": [9]}), first / "data" / "part.parquet")  # rewritten in place
    assert load_local_dataset(first, split="train")["v"] == [9]


@pytest.mark.slow
def test_builds_in_folders_of_the_same_name_and_a_rebuild_in_place_load_their_own_rows(tmp_path):
    from datasets import load_dataset

    english, latgalian = tmp_path / "en" / "out", tmp_path / "ltg" / "out"
    assert main(["--input", str(ENWIKI_SAMPLE), "--output-dir", str(english), "--tasks", "srr"]) == 0
    assert main(["--input", str(LTGWIKI_SAMPLE), "--output-dir", str(latgalian), "--tasks", "srr"]) == 0
    en_srr, ltg_srr = english / "wikiformer-srr", latgalian / "wikiformer-srr"
    expected = {en_srr: parquet_rows(en_srr), ltg_srr: parquet_rows(ltg_srr)}
    assert expected[en_srr] != expected[ltg_srr]
    cache = str(tmp_path / "cache")
    for folder in (en_srr, ltg_srr):  # the cards' loading call, one process
        assert load_dataset(str(folder), split="train", cache_dir=cache).to_list() == expected[folder]
        assert len(load_task(str(folder), "srr", 16, 48)) == len(expected[folder])
    # the corpus folders too (same name "corpus" in both builds)
    en_titles = load_dataset(str(english / "corpus"), split="train", cache_dir=cache)["title"]
    ltg_titles = load_dataset(str(latgalian / "corpus"), split="train", cache_dir=cache)["title"]
    assert "Anarchism" in en_titles and "Anarchism" not in ltg_titles
    # a rebuild in place with other options, loaded in the same process
    shutil.rmtree(latgalian)
    assert main(["--input", str(ENWIKI_SAMPLE), "--output-dir", str(latgalian), "--tasks", "srr", "--seed", "7"]) == 0
    rebuilt = parquet_rows(ltg_srr)
    assert rebuilt not in (expected[en_srr], expected[ltg_srr])
    assert load_dataset(str(ltg_srr), split="train", cache_dir=cache).to_list() == rebuilt
    # a user's plain load_dataset of both folders in a fresh process with its own cache
    code = (
        "import json, sys; from datasets import load_dataset; "
        "print(json.dumps([load_dataset(f, split='train').to_list() for f in sys.argv[1:]]))"
    )
    env = {"HF_HOME": str(tmp_path / "hf_home"), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", code, str(en_srr), str(ltg_srr)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout.splitlines()[-1]) == [expected[en_srr], rebuilt]


def test_digests_recorded_by_the_writers_give_the_same_fingerprint_and_a_stale_one_is_read_again(tmp_path):
    folder = write_folder(tmp_path / "x", [1, 2, 3])
    pq.write_table(pa.table({"v": [4]}), folder / "data" / "more.parquet")
    read = content_fingerprint(folder, [folder / "data"])
    known = {f"data/{p.name}": file_digest(p) for p in (folder / "data").glob("*.parquet")}
    assert content_fingerprint(folder, [folder / "data"], known) == read
    # a record whose size no longer matches (the file was rewritten since) is not trusted
    stale = {**known, "data/more.parquet": (1, known["data/more.parquet"][1])}
    pq.write_table(pa.table({"v": [5]}), folder / "data" / "more.parquet")
    assert content_fingerprint(folder, [folder / "data"], stale) == content_fingerprint(folder, [folder / "data"])
    assert content_fingerprint(folder, [folder / "data"], stale) != read
