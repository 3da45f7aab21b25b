"""``--collection irds:<id>``: the real ir_datasets reading a local IR_DATASETS_HOME laid out from the vendored samples
(tests/eval/collections/irds_home.py), in fresh processes (ir_datasets fixes its home when it is imported)."""

from __future__ import annotations

import json

import pytest

from tests.eval.collections.irds_home import environment, write_cranfield, write_trec_dl_2020
from tests.eval.conftest import CRANFIELD_MINI, DL20_MINI, run_fresh
from wikiformer_kit.eval.collections import load_collection
from wikiformer_kit.eval.splits import same_source

pytest.importorskip("ir_datasets", reason="ir_datasets is an optional package (pip install ir_datasets)")

DL20_ID = "msmarco-passage/trec-dl-2020/judged"
SUMMARY = """
import json, sys
from wikiformer_kit.eval.splits import load_collection_part
c = load_collection_part(sys.argv[1])
print(json.dumps({"name": c.name, "documents": c.documents, "queries": c.queries, "qrels": c.qrels,
                  "runs": sorted(c.runs), "relevance_level": c.relevance_level}))
"""


@pytest.fixture(scope="module")
def irds_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("ir_datasets_home")
    write_cranfield(home)
    write_trec_dl_2020(home)
    return home


@pytest.fixture
def irds_env(irds_home, monkeypatch):
    for key, value in environment(irds_home).items():
        monkeypatch.setenv(key, value)
    return irds_home


def _fresh_collection(spec: str, tmp_path) -> tuple[dict, str]:
    done = run_fresh(["-c", SUMMARY, spec], tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def test_cranfield_by_its_id_is_the_collection_its_files_give(irds_env, tmp_path):
    by_id, _ = _fresh_collection("irds:cranfield", tmp_path)
    files = load_collection(str(CRANFIELD_MINI))
    assert by_id["documents"] == files.documents  # Cranfield's title not doubled: the SMART reader's texts
    assert by_id["queries"] == files.queries and by_id["qrels"] == files.qrels  # codes mapped to the same gains
    assert by_id["qrels"]["2"]["12"] == 4 and by_id["relevance_level"] == 1
    assert by_id["name"] == "cranfield" and by_id["runs"] == []
    dev, _ = _fresh_collection("irds:cranfield#dev", tmp_path)
    assert dev["name"] == "cranfield-dev" and 0 < len(dev["queries"]) < len(by_id["queries"])


def test_trec_dl_reads_only_the_candidates_and_keeps_no_run_without_scores(irds_env, tmp_path):
    by_id, log = _fresh_collection(f"irds:{DL20_ID}", tmp_path)
    files = load_collection(str(DL20_MINI))
    assert by_id["documents"] == files.documents and len(by_id["documents"]) == 300
    assert by_id["queries"] == files.queries and by_id["qrels"] == files.qrels
    assert by_id["relevance_level"] == 2  # TREC DL's grades 0-3
    assert by_id["runs"] == [] and "scoreddocs have no scores" in log


def test_eval_on_an_id_gives_the_figures_of_the_same_files(irds_env, tmp_path):
    outputs = {}
    for label, spec in (("id", f"irds:{DL20_ID}"), ("folder", str(DL20_MINI))):
        run = tmp_path / f"{label}.run"
        done = run_fresh(
            ["-m", "eval", "first-stage", "--collection", spec, "--method", "bm25", "--k", "30", "--output", str(run)],
            tmp_path,
        )
        assert done.returncode == 0, done.stderr
        outputs[label] = (done.stdout.splitlines()[-1], run.read_text())
    assert outputs["id"] == outputs["folder"]
    assert outputs["id"][0].startswith("bm25: RR@10 ")


def test_training_evaluates_a_part_of_an_id(irds_env, tmp_path):
    script = (
        "from wikiformer_kit.training.evaluation import load_eval_set\n"
        "s = load_eval_set('irds:cranfield#dev', depth=10, fusion=None)\n"
        "print(s.name, s.first_stage, len(s.query_ids), sorted(len(c) for c in s.candidates.values()))\n"
    )
    done = run_fresh(["-c", script], tmp_path)
    assert done.returncode == 0, done.stderr
    name, first_stage, queries, depths = done.stdout.split(maxsplit=3)
    assert (name, first_stage, int(queries)) == ("cranfield-dev", "bm25", 4) and json.loads(depths) == [10] * 4
    assert not same_source("irds:cranfield#dev", "irds:cranfield#test")
    assert same_source("irds:cranfield", "irds:cranfield#dev") and not same_source("irds:cranfield", "irds:vaswani")


def _one_line_error(spec: str, tmp_path) -> str:
    out = tmp_path / "run.trec"
    done = run_fresh(["-m", "eval", "first-stage", "--collection", spec, "--output", str(out)], tmp_path)
    assert done.returncode == 2 and not out.exists(), done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "Traceback" not in done.stderr and f"{spec}: " in last, done.stderr
    return last


def test_an_unknown_id_is_one_line(irds_env, tmp_path):
    assert "unknown ir_datasets id: see https://ir-datasets.com" in _one_line_error("irds:no-such/dataset", tmp_path)


def test_damaged_files_name_where_ir_datasets_looks(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "cranfield").mkdir(parents=True)
    (home / "cranfield" / "cran.tar.gz").write_bytes(b"not an archive")
    for key, value in environment(home).items():
        monkeypatch.setenv(key, value)
    line = _one_line_error("irds:cranfield", tmp_path)
    assert "ir_datasets could not download or read" in line and "IR_DATASETS_HOME" in line
    assert "https://ir-datasets.com/cranfield.html" in line


def test_without_ir_datasets_the_error_says_what_to_install(tmp_path):
    script = (
        "import sys; sys.modules['ir_datasets'] = None\n"
        "from wikiformer_kit.eval.collections import load_collection\n"
        "try:\n    load_collection('irds:cranfield')\n"
        "except ValueError as error:\n    print(error)\n"
    )
    done = run_fresh(["-c", script], tmp_path)
    assert done.stdout.strip() == (
        "irds:cranfield: reading a collection by its ir_datasets id needs the ir_datasets package: "
        "pip install ir_datasets"
    ), done.stderr
