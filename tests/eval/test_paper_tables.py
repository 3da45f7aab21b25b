"""The paper's benchmarks by name: its figures kept as printed in Tables 2-4, and ``python -m eval paper`` on the
vendored MS MARCO Document sample writing the paper's table with this run's rows."""

from __future__ import annotations

import json

import pytest

from tests.conftest import SAMPLES
from tests.eval.conftest import CRANFIELD_MINI, save_tiny_ranker
from wikiformer_kit.eval.cli import main
from wikiformer_kit.eval.collections import load_collection, read_trec_run
from wikiformer_kit.eval.first_stage import BM25Options, BM25Retriever
from wikiformer_kit.eval.metrics import evaluate_run
from wikiformer_kit.eval.paper_tables import BENCHMARKS, PaperFigure, benchmark, paper_figures

MSMARCO_DOC_MINI = SAMPLES / "eval" / "msmarco-doc-mini"


def test_the_papers_figures_as_printed():
    assert set(BENCHMARKS) == {"msmarco-doc-dev", "trec-dl-2019-doc", "trec-covid-round2", "lecard", "cail-lcr"}
    for bench in BENCHMARKS.values():
        for setting in bench.rows:
            assert all(len(cells) == len(bench.measures) for cells in bench.figures(setting).values()), bench.name
    # a few cells, read off the paper's tables
    assert paper_figures(benchmark("msmarco-doc-dev"), "zero-shot")["Wikiformer"] == {"RR@10": 0.2844, "RR@100": 0.2911}
    assert paper_figures(benchmark("trec-dl-2019-doc"), "fine-tuned")["ARES"] == {"nDCG@10": 0.6505, "nDCG@100": 0.5353}
    assert paper_figures(benchmark("msmarco-doc-dev"), "zero-shot")["KNRM"] == {"RR@10": None, "RR@100": None}
    assert paper_figures(benchmark("trec-covid-round2"), "zero-shot")["Wikiformer"] == {"nDCG@10": 0.5449}
    assert paper_figures(benchmark("cail-lcr"), "fine-tuned")["BERT"] == {"nDCG@5": 0.7993, "nDCG@15": 0.8085}
    assert benchmark("lecard").figures("fine-tuned")["BM25"][1] == PaperFigure(0.7303, True)
    assert benchmark("trec-covid-round2").all_measures() == ["nDCG@10", "P@5"]
    with pytest.raises(ValueError, match="lecard: the paper reports it fine-tuned only"):
        benchmark("lecard").figures("zero-shot")
    with pytest.raises(ValueError, match="no paper benchmark 'robust04': choose one of msmarco-doc-dev"):
        benchmark("robust04")


@pytest.fixture(scope="module")
def ranker(tmp_path_factory):
    return save_tiny_ranker(tmp_path_factory.mktemp("ranker"), initializer_range=0.2)


def test_msmarco_document_dev_in_the_papers_layout(ranker, tmp_path, capsys):
    out = tmp_path / "out"
    command = ["paper", "msmarco-doc-dev", "--model", str(ranker), "--collection", str(MSMARCO_DOC_MINI)]
    assert main([*command, "--output-dir", str(out), "--tag", "mine"]) == 0
    table = (out / "paper-table.md").read_text(encoding="utf-8")
    record = json.loads((out / "paper-table.json").read_text(encoding="utf-8"))
    collection = load_collection(str(MSMARCO_DOC_MINI))
    expected = evaluate_run(read_trec_run(out / "mine.run"), collection.qrels, ["RR@10", "RR@100"]).means()
    assert record["this_run"]["mine"] == pytest.approx(expected)
    assert record["paper"]["Wikiformer"] == {"RR@10": 0.2844, "RR@100": 0.2911}
    assert record["setting"] == "zero-shot" and record["queries"] == len(collection.qrels)
    assert table.splitlines()[2] == "| | model | MRR@10 | MRR@100 |"
    assert "| paper | Wikiformer | 0.2844 | 0.2911 |" in table
    assert "| paper | BM25 | 0.2656\\* | 0.2767\\* |" in table
    assert f"| this run | mine | {expected['RR@10']:.4f} | {expected['RR@100']:.4f} |" in table
    assert "| this run | msmarco-docdev-top100 |" in table  # the given candidates, as the paper re-ranks them
    assert table in capsys.readouterr().out


def test_a_setting_the_paper_does_not_report_is_refused(ranker, tmp_path, capsys):
    command = ["paper", "lecard", "--model", str(ranker), "--collection", str(MSMARCO_DOC_MINI)]
    assert main([*command, "--setting", "zero-shot", "--output-dir", str(tmp_path)]) == 2
    assert "lecard: the paper reports it fine-tuned only (Table 4), not zero-shot" in capsys.readouterr().err


def test_first_stage_paper_is_bm25_with_the_papers_parameters(tmp_path):
    output = tmp_path / "paper.run"
    command = ["first-stage", "--collection", str(CRANFIELD_MINI), "--method", "paper", "--k", "10"]
    assert main([*command, "--output", str(output)]) == 0
    collection = load_collection(str(CRANFIELD_MINI))
    query_ids = collection.judged_query_ids()
    expected = BM25Retriever(collection.documents, BM25Options.paper()).retrieve(
        collection.queries, k=10, query_ids=query_ids
    )
    run = read_trec_run(output)
    assert set(run) == set(expected)
    for qid in expected:
        assert list(run[qid]) == list(expected[qid]) or run[qid] == pytest.approx(expected[qid])
    assert BM25Options.paper().k1 == 3.8 and BM25Options.paper().b == 0.87
    default = BM25Retriever(collection.documents, BM25Options()).retrieve(collection.queries, k=10, query_ids=query_ids)
    assert any(default[qid] != pytest.approx(run[qid]) for qid in run)  # the parameters change the scores
