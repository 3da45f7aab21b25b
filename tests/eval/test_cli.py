"""The CLI end to end, in fresh processes with a clean offline HF_HOME."""

from __future__ import annotations

import json

import pytest

from tests.eval.conftest import DL20_MINI, run_fresh


def test_rerank_compare_and_table(tiny_wikiformer, tmp_path):
    out = tmp_path / "out"
    rerank = run_fresh(
        [
            "-m",
            "eval",
            "rerank",
            "--model",
            str(tiny_wikiformer),
            "--collection",
            str(DL20_MINI),
            "--candidates",
            "bm25",
            "--k",
            "5",
            "--max-queries",
            "3",
            "--batch-size",
            "8",
            "--tag",
            "tiny",
            "--output-dir",
            str(out),
            "--measures",
            "nDCG@10",
            "RR@10",
        ],
        tmp_path,
    )
    assert rerank.returncode == 0, rerank.stderr[-3000:]
    assert "bm25: nDCG@10" in rerank.stdout and "tiny: nDCG@10" in rerank.stdout
    metrics = json.loads((out / "metrics.json").read_text())
    assert set(metrics) == {"bm25", "tiny"} and metrics["tiny"]["num_queries"] == 3
    assert metrics["tiny"]["relevance_level"] == 2  # from the sample's collection.json
    lines = (out / "tiny.run").read_text().splitlines()
    assert len(lines) == 15 and lines[0].split()[-1] == "tiny"

    compare = run_fresh(
        [
            "-m",
            "eval",
            "compare",
            str(out / "tiny.run"),
            f"bm25={out / 'bm25.run'}",
            "--collection",
            str(DL20_MINI),
            "--reference",
            "bm25",
            "--measures",
            "nDCG@10",
            "RR@10",
            "--permutations",
            "500",
            "--output-dir",
            str(tmp_path / "cmp"),
        ],
        tmp_path,
    )
    assert compare.returncode == 0, compare.stderr[-3000:]
    assert "| system | nDCG@10 | MRR@10 |" in compare.stdout
    assert "3 of 10 judged queries" not in compare.stdout
    for name in ("comparison.json", "table.md", "table.tex", "chart.png", "metrics.json"):
        assert (tmp_path / "cmp" / name).exists()

    table = run_fresh(["-m", "eval", "table", str(tmp_path / "cmp" / "comparison.json"), "--latex"], tmp_path)
    assert table.returncode == 0 and "\\begin{tabular}{lrr}" in table.stdout


def test_compare_reports_mismatched_runs_clearly(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("999 Q0 4348282 1 1.0 x\n")
    result = run_fresh(["-m", "eval", "compare", str(bad), "--collection", str(DL20_MINI)], tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith(f"error: {bad}: the run (1 queries, e.g. ['999'])")
    assert "Traceback" not in result.stderr


def _with_unknown_documents(tmp_path, every: int):
    """The sample's BM25 run with every ``every``-th line's document id replaced by one the collection lacks."""
    lines = (DL20_MINI / "bm25.run").read_text().splitlines()
    changed = [
        line if i % every else " ".join([*line.split()[:2], f"X{i}", *line.split()[3:]]) for i, line in enumerate(lines)
    ]
    path = tmp_path / f"unknown-{every}.run"
    path.write_text("\n".join(changed) + "\n")
    return path, sum(1 for i in range(len(lines)) if i % every == 0)


def test_compare_warns_about_unknown_document_ids_and_names_the_run(tmp_path):
    path, unknown = _with_unknown_documents(tmp_path, 3)
    result = run_fresh(["-m", "eval", "compare", str(path), "--collection", str(DL20_MINI)], tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"{path}: {unknown} of 300 retrieved document ids (33.3%) are not in the collection" in result.stderr


def test_compare_refuses_a_run_that_matches_no_document(tmp_path):
    path, unknown = _with_unknown_documents(tmp_path, 1)
    result = run_fresh(["-m", "eval", "compare", str(path), "--collection", str(DL20_MINI)], tmp_path)
    assert unknown == 300 and result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: {path}: none of its 300 retrieved document ids is in the collection's")
    assert "|" not in result.stdout  # no table of zeros


def test_first_stage_bm25(tmp_path):
    output = tmp_path / "bm25.run"
    result = run_fresh(
        [
            "-m",
            "eval",
            "first-stage",
            "--collection",
            str(DL20_MINI),
            "--method",
            "bm25",
            "--k",
            "10",
            "--paper-bm25",
            "--no-stemming",
            "--output",
            str(output),
            "--measures",
            "nDCG@10",
        ],
        tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(output.read_text().splitlines()) == 100 and "bm25: nDCG@10" in result.stdout


def test_rerank_dtype_is_checked_and_recorded(tiny_bert_ranker, tmp_path, capsys):
    from wikiformer_kit.eval.cli import main

    common = ["rerank", "--model", str(tiny_bert_ranker), "--collection", str(DL20_MINI), "--candidates", "bm25"]
    common += ["--k", "3", "--max-queries", "2", "--device", "cpu", "--tag", "tiny", "--output-dir", str(tmp_path)]
    with pytest.raises(SystemExit):
        main([*common, "--dtype", "fp16"])
    error = capsys.readouterr().err
    assert "--dtype: invalid choice: 'fp16'" in error and "bfloat16" in error
    assert main([*common, "--dtype", "float16"]) == 2
    assert "error: dtype float16 on a CPU" in capsys.readouterr().err
    assert main([*common, "--dtype", "bfloat16"]) == 0
    assert (tmp_path / "tiny.run.done").read_text().splitlines()[0].endswith("depth=None dtype=bfloat16")
    assert len((tmp_path / "tiny.run").read_text().splitlines()) == 6


def test_a_qa_set_without_queries_is_refused_instead_of_an_empty_run(tmp_path):
    # a QA export: the Cranfield sample's abstracts as paragraphs, its queries as questions with answers
    from tests.eval.conftest import CRANFIELD_MINI
    from wikiformer_kit.eval.collections.smart import read_smart_documents, read_smart_queries

    folder = tmp_path / "qa"
    folder.mkdir()
    paragraphs = read_smart_documents(CRANFIELD_MINI / "cran.all.50")
    questions = read_smart_queries(CRANFIELD_MINI / "cran.qry")
    (folder / "paragraphs.jsonl").write_text(
        "".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in paragraphs.items())
    )
    (folder / "questions.jsonl").write_text(
        "".join(json.dumps({"id": q, "question": t, "answers": ["-"]}) + "\n" for q, t in questions.items())
    )
    output = tmp_path / "qa.run"
    args = ["-m", "eval", "first-stage", "--collection", f"jsonl:{folder}", "--method", "bm25", "--output", str(output)]
    result = run_fresh(args, tmp_path)
    assert result.returncode == 2 and not output.exists()
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: qa: no queries to rank (50 documents, 0 judged queries; not read: questions.jsonl")


def test_rerank_names_candidates_that_are_neither_a_file_nor_a_run(tiny_bert_ranker, tmp_path, capsys):
    from wikiformer_kit.eval.cli import main

    command = ["rerank", "--model", str(tiny_bert_ranker), "--collection", str(DL20_MINI), "--candidates", "bm2"]
    assert main([*command, "--k", "3", "--max-queries", "2", "--output-dir", str(tmp_path)]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: --candidates 'bm2' is neither a file nor a run of")
    assert "'bm25'" in errors[0]
