"""What the dataset viewer needs of a folder (Parquet, configs per split, features, licence) and its Croissant file,
on the vendored WIKIR collection (five configs) and on crafted departures from it."""

from __future__ import annotations

import shutil

import pyarrow.parquet as pq
import pytest

from tests.conftest import SAMPLES
from wikiformer_kit.dataset_scripts.hub.croissant import write_croissant
from wikiformer_kit.dataset_scripts.hub.viewer import declare_features, viewer_problems

WIKIR_MINI = SAMPLES / "eval" / "wikir-en-mini"


@pytest.fixture
def wikir(tmp_path):
    folder = tmp_path / "wikir-en-mini"
    shutil.copytree(WIKIR_MINI, folder)
    return folder


def test_declared_features_leave_nothing_for_the_viewer_to_refuse(wikir):
    assert [p.split(": ", 1)[1] for p in viewer_problems(wikir)] == [
        f"config {name!r}: its features are not declared (dataset_info)"
        for name in ("default", "qrels", "corpus", "queries", "triples")
    ]
    declare_features(wikir)
    assert viewer_problems(wikir) == []


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda f: (f / "corpus" / "notes.txt").write_text("x"), None),  # a file no config names is no problem
        (lambda f: shutil.rmtree(f / "triples"), "config 'triples' split 'train': its pattern matches no file"),
        (lambda f: _replace_card(f, "license: cc-by-sa-4.0\n", ""), "the card names no licence"),
        (lambda f: _replace_card(f, "Wikipedia contributors", "the authors"), "without its attribution"),
    ],
)
def test_each_departure_is_named(wikir, damage, problem):
    declare_features(wikir)
    damage(wikir)
    problems = viewer_problems(wikir)
    assert (problems == []) if problem is None else any(problem in p for p in problems), problems


def test_the_croissant_file_is_valid_and_reads_every_configs_rows(wikir):
    mlc = pytest.importorskip("mlcroissant")
    declare_features(wikir)
    dataset = mlc.Dataset(jsonld=write_croissant(wikir, "ns/wikir-en"))
    assert dataset.metadata.license == ["https://creativecommons.org/licenses/by-sa/4.0/"]
    assert "frej2020wikir" in dataset.metadata.cite_as
    counts = {rs.name: sum(1 for _ in dataset.records(record_set=rs.name)) for rs in dataset.metadata.record_sets}
    corpus = sum(pq.read_metadata(p).num_rows for p in (wikir / "corpus").glob("*.parquet"))
    qrels = sum(pq.read_metadata(p).num_rows for p in (wikir / "qrels").glob("*.parquet"))
    assert counts["corpus"] == corpus and counts["qrels"] == counts["default"] == qrels


def _replace_card(folder, old: str, new: str) -> None:
    card = folder / "README.md"
    card.write_text(card.read_text().replace(old, new))
