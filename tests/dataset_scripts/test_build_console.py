"""What a user sees of a build run as a command, output not on a terminal: one line per stage and the summary; the
executor's logs in OUT/logs/<stage>.log; ``--verbose`` prints them instead."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT

SAMPLE = ["--input", str(ENWIKI_SAMPLE), "--limit", "40", "--articles-per-unit", "10"]
STAGES = ["corpus", "tasks", "see-also-join", "ltm", "cards"]
STAGE_LINE = re.compile(r"\[([a-z-]+)\] done in \d+ s(: .*)? · log: (\S+)")


def run(module: str, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", module, *args]
    return subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)


def has_emoji(text: str) -> bool:
    return any(ord(c) >= 0x1F300 for c in text)


def test_the_build_prints_a_line_per_stage_and_logs_the_rest(tmp_path):
    out = tmp_path / "out"
    result = run("dataset_scripts.build", *SAMPLE, "--output-dir", str(out), "--num-proc", "2")
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    stage_lines = [STAGE_LINE.fullmatch(line) for line in lines[: len(STAGES)]]
    assert all(stage_lines), lines
    assert [m.group(1) for m in stage_lines] == STAGES
    assert [Path(m.group(3)) for m in stage_lines] == [out / "logs" / f"{s}.log" for s in STAGES]
    assert "RawPage" in stage_lines[0].group(2) and "srr_rows" in stage_lines[1].group(2)
    assert len(lines) <= len(STAGES) + 6  # the closing summary: the corpus and a line per task
    assert not has_emoji(result.stdout + result.stderr)
    # warnings still reach the console: 20 articles give LTM no group
    assert [line.split(" | ")[1].strip() for line in result.stderr.splitlines()] == ["WARNING"]
    assert "task ltm produced no group" in result.stderr
    tasks_log = (out / "logs" / "tasks.log").read_text()
    assert "PIPELINE" in tasks_log and "Stats: All 2 tasks" in tasks_log and "tasks completed" in tasks_log
    assert "RawPage" in (out / "logs" / "corpus.log").read_text()

    again = run("dataset_scripts.build", *SAMPLE, "--output-dir", str(out), "--num-proc", "2")
    assert again.returncode == 0, again.stderr[-3000:]
    reused = [f"[{stage}] finished earlier: reused · log: {out / 'logs' / stage}.log" for stage in STAGES[:4]]
    assert again.stdout.splitlines()[:4] == reused  # the cards follow the latest command line: written again


def test_verbose_prints_the_executor_logs(tmp_path):
    out = tmp_path / "out"
    result = run("dataset_scripts.build", *SAMPLE, "--output-dir", str(out), "--verbose")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "PIPELINE" in result.stderr and "Stats: All 1 tasks" in result.stderr
    assert [line.split("]")[0][1:] for line in result.stdout.splitlines()[: len(STAGES)]] == STAGES
    assert not (out / "logs").exists()


def test_the_corpus_command_prints_its_stage_line_and_summary(tmp_path):
    out = tmp_path / "corpus"
    result = run("dataset_scripts.corpus", *SAMPLE[:4], "--output-dir", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    first, *summary = result.stdout.strip().splitlines()
    assert STAGE_LINE.fullmatch(first) and first.endswith(str(out / "logs" / "corpus.log"))
    assert len(summary) <= 6 and "articles" in "".join(summary) and not has_emoji(result.stdout + result.stderr)
    assert "Stats" in (out / "logs" / "corpus.log").read_text()


def test_offline_an_importance_model_not_in_the_cache_is_refused_before_the_corpus_is_read(tmp_path):
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "dataset_scripts.build", "--input", str(ENWIKI_SAMPLE), "--output-dir", str(out),
         "--tasks", "harp", "--harp-variant", "original"],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: the HARP importance model google-bert/bert-base-uncased: not in the cache and the Hub cannot be "
        "reached (HF_HUB_OFFLINE is set); unset HF_HUB_OFFLINE once to download it, or give a local model folder"
    )
    assert not (out / "corpus").exists()
