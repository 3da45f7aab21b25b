"""What ``python -m eval`` refuses before anything slow, each in one line: a collection of another benchmark for
``eval paper``, a model that cannot be had, an output path that cannot be written, NanoBEIR data that is not cached
while the Hub cannot be reached or lacks a subset, a candidate run of another collection's queries; and what a
resumed ``eval paper`` does when its settings or its model changed."""

from __future__ import annotations

import logging
import os
import shutil

import pytest

from tests.conftest import SAMPLES
from tests.eval.collections.test_lecard import lecard_folder
from tests.eval.conftest import DL20_MINI, run_fresh, save_tiny_ranker
from tests.eval.nanobeir_data import SUBSETS, build_mini_nanobeir
from wikiformer_kit.eval.cli import main
from wikiformer_kit.eval.paper_tables import LECARD_QUERIES, TREC_DL_2019_JUDGED, benchmark, check_collection
from wikiformer_kit.eval.preflight import check_hub_repo, listed

MSMARCO_DOC_MINI = SAMPLES / "eval" / "msmarco-doc-mini"
OFFLINE = "is not in the cache and the Hub cannot be reached"


@pytest.fixture(scope="module")
def ranker(tmp_path_factory):
    return save_tiny_ranker(tmp_path_factory.mktemp("ranker"), initializer_range=0.2)


def error_line(capsys) -> str:
    """The one line a refused command printed on stderr (nothing else there but logging)."""
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error: ")]
    assert len(err) == 1, err
    return err[0]


# eval paper: the collection is the benchmark's


def test_paper_refuses_the_ms_marco_dev_folder_as_trec_dl_2019(ranker, tmp_path, capsys):
    out = tmp_path / "out"
    command = ["paper", "trec-dl-2019-doc", "--model", str(ranker), "--collection", str(MSMARCO_DOC_MINI)]
    assert main([*command, "--output-dir", str(out)]) == 2
    line = error_line(capsys)
    assert line.startswith(f"error: --collection {MSMARCO_DOC_MINI}: not trec-dl-2019-doc's (query ids not its:")
    assert "it has 6 judged queries graded 1, documents like D1885729 (it looks like msmarco-doc-dev's)" in line
    assert "trec-dl-2019-doc has NIST's 43 judged queries" in line and len(line) < 400
    assert not out.exists() or not any(out.iterdir())  # refused before the first stage wrote anything


def test_paper_refuses_a_lecard_folder_as_ms_marco(ranker, tmp_path, capsys):
    folder = lecard_folder(tmp_path)
    command = ["paper", "msmarco-doc-dev", "--model", str(ranker), "--collection", str(folder)]
    assert main([*command, "--output-dir", str(tmp_path / "out")]) == 2
    line = error_line(capsys)
    assert f"--collection {folder}: not msmarco-doc-dev's" in line
    assert "(it looks like lecard's or cail-lcr's)" in line and "documents D<number>" in line


def test_a_sample_of_a_benchmarks_queries_passes_and_another_benchmarks_fails():
    dl19_sample = {"19335": {"D1035833": 0, "D114440": 3}, "1133167": {"D984590": 2}}
    check_collection(benchmark("trec-dl-2019-doc"), dl19_sample, "dl19")
    with pytest.raises(ValueError, match="not msmarco-doc-dev's .query ids of another benchmark's: 19335, 1133167"):
        check_collection(benchmark("msmarco-doc-dev"), dl19_sample, "dl19")
    dev_sample = {"174249": {"D3126539": 1}}
    check_collection(benchmark("msmarco-doc-dev"), dev_sample, "dev")
    with pytest.raises(ValueError, match=r"not msmarco-doc-dev's .more than 1 judged document a query: 174249"):
        check_collection(benchmark("msmarco-doc-dev"), {"174249": {"D3126539": 1, "D1": 1}}, "dev")
    with pytest.raises(ValueError, match="not trec-covid-round2's .document ids unlike its: D3126539"):
        check_collection(benchmark("trec-covid-round2"), dev_sample, "dev")
    check_collection(benchmark("trec-covid-round2"), {"1": {"ug7v899j": 2, "02tnwd4m_3": 0}}, "covid")
    with pytest.raises(ValueError, match="not lecard's .it has no judgments"):
        check_collection(benchmark("lecard"), {}, "empty")
    assert len(TREC_DL_2019_JUDGED) == 43 and len(LECARD_QUERIES) == 107


def test_lecards_query_ids_are_those_of_its_label_file():
    import json

    labels = json.loads((SAMPLES / "eval" / "lecard" / "label_top30_dict.json").read_text(encoding="utf-8"))
    assert set(labels) == LECARD_QUERIES


# the model, before the collection or the data


def test_rerank_checks_the_model_before_the_collection(tmp_path):
    out = tmp_path / "out"
    command = ["-m", "eval", "rerank", "--model", "NOT_A_MODEL", "--collection", str(DL20_MINI)]
    result = run_fresh([*command, "--output-dir", str(out)], tmp_path)
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: --model NOT_A_MODEL (no such folder here) {OFFLINE} (HF_HUB_OFFLINE is set)")
    assert "Retrying" not in result.stderr and not out.exists()  # no first stage, no bm25.run


def test_every_subcommand_with_a_model_checks_it_first(tmp_path, capsys):
    not_a_model = tmp_path / "notes"
    not_a_model.mkdir()
    (not_a_model / "readme.txt").write_text("not a checkpoint")
    out = tmp_path / "out"
    collection = ["--collection", str(tmp_path / "no-such-collection"), "--output-dir", str(out)]
    for argv in (
        ["rerank", "--model", str(not_a_model), *collection],
        ["tune-fusion", "--model", str(not_a_model), *collection],
        ["paper", "lecard", "--model", str(not_a_model), *collection],
        ["nanobeir", str(not_a_model), "--data", str(tmp_path / "no-such-data")],
    ):
        assert main(argv) == 2, argv
        assert f"--model {not_a_model}: not a model folder: no config.json in it" in error_line(capsys), argv
    assert not out.exists()


def test_a_model_the_hub_does_not_have_is_named_at_once(hub, tmp_path):
    env = hub.env(tmp_path / "home")
    command = ["-m", "eval", "nanobeir", "ns/no-such-model", "--data", "ns/no-such-data"]
    result = run_fresh(command, tmp_path, env=env)
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .startswith("error: --model ns/no-such-model (no such folder here): the Hub has no model ns/no-such-model")
    )


# output paths


def test_output_paths_are_checked_before_anything_runs(ranker, tmp_path, capsys):
    a_file = tmp_path / "taken"
    a_file.write_text("")
    for argv, expected in (
        (["nanobeir", str(ranker), "--output-dir", str(a_file)], f"--output-dir {a_file}: a file, not a folder"),
        (
            ["rerank", "--model", str(ranker), "--collection", str(DL20_MINI), "--output-dir", str(a_file / "x")],
            f"--output-dir {a_file / 'x'}: {a_file} is a file, so no folder can be made there",
        ),
        (
            ["first-stage", "--collection", str(DL20_MINI), "--method", "bm25", "--output", str(tmp_path)],
            f"--output {tmp_path}: a folder, not a file",
        ),
        (
            ["first-stage", "--collection", str(DL20_MINI), "--method", "bm25", "--output", str(a_file / "r.run")],
            f"--output {a_file / 'r.run'}: {a_file} is a file, so no folder can be made there",
        ),
        (
            ["compare", str(DL20_MINI / "bm25.run"), "--collection", str(DL20_MINI), "--output-dir", str(a_file)],
            f"--output-dir {a_file}: a file, not a folder",
        ),
    ):
        assert main(argv) == 2, argv
        assert expected in error_line(capsys), argv


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_parent_is_refused(ranker, tmp_path, capsys):
    parent = tmp_path / "read-only"
    parent.mkdir()
    parent.chmod(0o555)
    try:
        argv = ["rerank", "--model", str(ranker), "--collection", str(DL20_MINI), "--output-dir", str(parent / "o")]
        assert main(argv) == 2
        assert f"--output-dir {parent / 'o'}: {parent} is not writable" in error_line(capsys)
    finally:
        parent.chmod(0o755)


# NanoBEIR data


def test_nanobeir_offline_fails_at_once_naming_the_dataset(ranker, tmp_path):
    result = run_fresh(["-m", "eval", "nanobeir", str(ranker), "--sets", "msmarco"], tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith(f"error: the NanoBEIR data sentence-transformers/NanoBEIR-en (--data) {OFFLINE}")
    assert "Retrying" not in result.stderr and len(lines) == 1


def test_nanobeir_without_network_fails_at_once_naming_the_dataset(ranker, tmp_path):
    # a Hub no connection reaches (nothing listens on port 9), without HF_HUB_OFFLINE
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "0", "HF_ENDPOINT": "http://127.0.0.1:9"}
    result = run_fresh(["-m", "eval", "nanobeir", str(ranker), "--data", "ns/NanoBEIR-x"], tmp_path, env=env)
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: --data ns/NanoBEIR-x {OFFLINE} (no connection to http://127.0.0.1:9)")
    assert "Retrying" not in result.stderr


def test_a_cached_dataset_passes_offline(monkeypatch, tmp_path):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ValueError, match=f"--data ns/x {OFFLINE}"):
        check_hub_repo("ns/x", "dataset", "--data ns/x", "give a folder")
    (tmp_path / "datasets--ns--x" / "snapshots" / "0123abcd").mkdir(parents=True)
    check_hub_repo("ns/x", "dataset", "--data ns/x", "give a folder")


@pytest.fixture(scope="module")
def nano_folder(tmp_path_factory):
    return build_mini_nanobeir(tmp_path_factory.mktemp("nanobeir"))


def test_a_missing_bm25_subset_is_one_short_line(nano_folder, ranker, tmp_path, capsys):
    folder = tmp_path / "no-bm25"
    shutil.copytree(nano_folder, folder)
    shutil.rmtree(folder / "bm25")
    readme = (folder / "README.md").read_text(encoding="utf-8")
    (folder / "README.md").write_text(readme.split("- config_name: bm25")[0] + "---\n", encoding="utf-8")
    assert main(["nanobeir", str(ranker), "--data", str(folder)]) == 2
    line = error_line(capsys)
    assert line == (
        f"error: --data {folder}: no subset 'bm25' (it has corpus, queries, qrels); a NanoBEIR-layout dataset has "
        f"the subsets {', '.join(SUBSETS)}, each split Nano{{Set}}"
    )


def test_a_missing_set_names_those_there_are(nano_folder, ranker, capsys):
    assert main(["nanobeir", str(ranker), "--data", str(nano_folder), "--sets", "nq"]) == 2
    line = error_line(capsys)
    assert line.endswith(
        "its subset 'bm25' has no split NanoNQ (it has NanoMSMARCO, NanoSciFact); choose --sets among those"
    )


def test_long_lists_are_cut_short():
    assert listed([f"Nano{i}" for i in range(20)]) == "Nano0, Nano1, Nano2, Nano3, Nano4, Nano5 and 14 more"
    assert listed([]) == "none"


# candidate runs naming queries the collection does not have


def _half_renamed(tmp_path, every: int = 2):
    """The sample's BM25 run with every ``every``-th query renamed to an id the collection lacks."""
    lines = (DL20_MINI / "bm25.run").read_text().splitlines()
    queries = list(dict.fromkeys(line.split()[0] for line in lines))
    renamed = {query: f"X{query}" for i, query in enumerate(queries) if i % every == 0}
    path = tmp_path / f"renamed-{every}.run"
    path.write_text(
        "".join(f"{renamed.get(line.split()[0], line.split()[0])} {line.split(' ', 1)[1]}\n" for line in lines)
    )
    return path, [renamed[q] for q in queries if q in renamed], len(queries)


def test_a_run_naming_unknown_queries_says_how_many(ranker, tmp_path, caplog):
    path, unknown, queries = _half_renamed(tmp_path)
    argv = ["rerank", "--model", str(ranker), "--collection", str(DL20_MINI), "--candidates", str(path), "--k", "2"]
    assert main([*argv, "--max-queries", "4", "--max-length", "64", "--output-dir", str(tmp_path / "out")]) == 0
    expected = (
        f"{path}: {len(unknown)} of its {queries} queries are not queries of dl20-mini and are left out "
        f"(e.g. {unknown[0]}, {unknown[1]}, ...)"
    )
    assert [r.getMessage() for r in caplog.records if r.getMessage().startswith(str(path))] == [expected]


def test_a_run_of_no_known_query_is_refused(ranker, tmp_path, capsys):
    path, unknown, queries = _half_renamed(tmp_path, every=1)
    argv = ["rerank", "--model", str(ranker), "--collection", str(DL20_MINI), "--candidates", str(path)]
    assert main([*argv, "--output-dir", str(tmp_path / "out")]) == 2
    line = error_line(capsys)
    assert line.startswith(
        f"error: {path}: none of its {queries} queries ({unknown[0]}, {unknown[1]}, ...) is a query of dl20-mini"
    )
    assert not (tmp_path / "out" / f"{path.stem}.run").exists()


# a resumed eval paper


def test_paper_scores_again_what_was_scored_with_other_settings_or_another_model(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    model = save_tiny_ranker(tmp_path / "model", initializer_range=0.2)
    out = tmp_path / "out"
    command = ["paper", "msmarco-doc-dev", "--model", str(model), "--collection", str(MSMARCO_DOC_MINI)]
    command += ["--output-dir", str(out), "--tag", "mine"]
    assert main([*command, "--max-length", "64"]) == 0
    first = (out / "mine.run").read_text()
    assert main([*command, "--max-length", "64"]) == 0
    assert "resuming, 6 queries already done" in caplog.text  # the same inputs: nothing scored again
    caplog.clear()
    assert main([*command, "--max-length", "32"]) == 0
    assert (
        f"{out / 'mine.run'}: started with other settings (max_length 64 -> 32); scoring all its queries again"
        in caplog.text
    )
    assert (out / "mine.run").read_text() != first  # pairs of 32 tokens: other scores
    caplog.clear()
    save_tiny_ranker(model, initializer_range=0.5)  # another checkpoint saved in the same folder
    assert main([*command, "--max-length", "32"]) == 0
    assert "the model's files changed since this run was started" in caplog.text
    fresh = tmp_path / "fresh"
    assert main([*command[:-4], "--output-dir", str(fresh), "--tag", "mine", "--max-length", "32"]) == 0
    assert (out / "mine.run").read_text() == (fresh / "mine.run").read_text()
