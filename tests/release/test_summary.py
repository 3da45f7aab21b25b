"""release.py's closing lines name only what exists."""

from __future__ import annotations

import argparse

from wikiformer_kit.release.summary import closing_summary


def summary(out):
    args = argparse.Namespace(verbose=False, push_to_hub=None)
    model_dir, eval_dir = out / "wikiformer", out / "eval"
    return closing_summary(args, out, model_dir, eval_dir, ("srr", "rwi"), 8.0)


def test_a_datasets_only_run_names_no_model_and_no_results(tmp_path):
    (tmp_path / "datasets").mkdir()
    lines = summary(tmp_path)
    assert "datasets: " in lines and "wikiformer-{srr,rwi}" in lines
    assert "model:" not in lines and "results:" not in lines and "Next:" not in lines


def test_a_finished_run_names_the_model_its_results_and_what_to_do_next(tmp_path):
    for folder in ("datasets", "wikiformer", "eval/compare"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "wikiformer" / "config.json").write_text("{}", encoding="utf-8")
    lines = summary(tmp_path)
    assert "model:" in lines and "results:" in lines and "Next:" in lines
    assert "python -m eval rerank --model" in lines and "python release.py --push-to-hub" in lines
