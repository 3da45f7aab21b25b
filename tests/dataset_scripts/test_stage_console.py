"""A stage's console: its output in its log, warnings on the console, one closing line, the log's tail on failure;
in this process and in workers forked or started by a fork server."""

from __future__ import annotations

import io
import re
import sys

import pytest

from wikiformer_kit.dataset_scripts import local_executor
from wikiformer_kit.dataset_scripts.stage_console import (
    StageStream,
    counts_line,
    duration,
    log_tail,
    stage_output,
)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_stream_keeps_everything_in_the_log_and_shows_only_what_a_user_must_see(tmp_path):
    console = io.StringIO()
    stream = StageStream(tmp_path / "stage.log", console)
    stream.write("2026-01-01 00:00:00.000 | INFO     | datatrove - Launching pipeline for rank=0\n")
    stream.write("bar:  50%|#####     | 1/2 [00:01<00:01, 1.0it/s]\rbar: 100%|##########| 2/2\n")
    stream.write("2026-01-01 00:00:01.000 | WARNING  | kit.steps - shard 3 had no articles\n")
    stream.write("warning: prop: no stemmer for a corpus in 'xx'")
    stream.write("\n/x/y.py:3: UserWarning: something to know\n")
    stream.close()
    log = (tmp_path / "stage.log").read_text()
    assert "Launching pipeline" in log and "2/2" in log and "UserWarning" in log
    assert console.getvalue().splitlines() == [
        "2026-01-01 00:00:01.000 | WARNING  | kit.steps - shard 3 had no articles",
        "warning: prop: no stemmer for a corpus in 'xx'",
        "/x/y.py:3: UserWarning: something to know",
    ]


def test_on_a_terminal_the_latest_bar_is_shown_in_place_and_erased(tmp_path):
    console = Terminal()
    stream = StageStream(tmp_path / "stage.log", console, transient=True)
    stream.write("\rarticles:  50%|#####     | 1/2 [00:01<00:01, 1.0art/s]")
    stream.write("\rarticles: 100%|##########| 2/2 [00:02<00:00, 1.0art/s]\n")
    stream.write("an INFO line that is no bar\n")
    stream.close()
    shown = console.getvalue()
    assert shown.count("\r") == 3 and "\x1b[K" in shown and "an INFO line" not in shown
    assert shown.endswith("\r\x1b[K")  # nothing left on the line for the stage's closing line


def test_stage_output_routes_this_process_and_loguru_to_the_log_then_restores_them(tmp_path, capsys):
    from datatrove.utils.logging import logger

    with stage_output(tmp_path / "logs" / "tasks.log", transient=False):
        print("to stdout")
        print("to stderr", file=sys.stderr)
        logger.info("an executor banner 📉")
        logger.warning("a warning from a step")
    logger.info("after the stage")
    captured = capsys.readouterr()
    log = (tmp_path / "logs" / "tasks.log").read_text()
    assert log.startswith("=== ") and all(t in log for t in ("to stdout", "to stderr", "executor banner"))
    assert "to stdout" not in captured.out and "executor banner" not in captured.err
    assert "a warning from a step" in captured.err and "after the stage" in captured.err


def test_log_tail_counts_a_redrawn_bar_once(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("one\n\n\rbar 1/3\rbar 2/3\rbar 3/3\ntwo\n" + "".join(f"line {i}\n" for i in range(50)))
    assert log_tail(log, 3) == ["line 47", "line 48", "line 49"]
    assert log_tail(log, 53)[:3] == ["one", "bar 3/3", "two"]
    assert log_tail(tmp_path / "missing.log") == []


def test_counts_and_durations_read_as_a_line():
    from datatrove.utils.stats import PipelineStats, Stats

    reader, writer = Stats("📖 - READER: reader"), Stats("💽 - WRITER: writer")
    reader["RawPage"] += 106
    reader["Skipped"] += 1
    assert counts_line(PipelineStats([reader, writer])) == "106 RawPage, 1 Skipped"
    assert counts_line(None) == ""
    assert [duration(s) for s in (4.2, 725, 10920)] == ["4 s", "12 min 05 s", "3 h 02 min"]


def counted(data, rank: int = 0, world_size: int = 1):
    """A pipeline step: counts one record, logs as datatrove does and warns once."""
    from datatrove.utils.logging import logger

    logger.info(f"rank {rank} counting")
    print(f"warning: rank {rank} has a thing to say", file=sys.stderr)
    yield from data or []


def failing(data, rank: int = 0, world_size: int = 1):
    """A pipeline step that fails after writing what a user needs to find the cause."""
    print(f"reading shard {rank} of the input", file=sys.stderr)
    raise RuntimeError(f"shard {rank} is truncated")


def make_stage(tmp_path, step, workers: int, start_method: str, monkeypatch, verbose: bool = False):
    monkeypatch.setattr(local_executor, "local_start_method", lambda: start_method)
    if start_method == "forkserver":
        # a fork server lives as long as the process that started it, with the stderr of then: an earlier test's
        # capture file. A new one gets this test's, as a build's own fork server gets the build's console.
        import multiprocess.forkserver

        multiprocess.forkserver._forkserver._stop()
    return local_executor.StartMethodAtRun(
        [step],
        workers=workers,
        tasks=2,
        logging_dir=str(tmp_path / "datatrove"),
        stage="tasks",
        stage_log=tmp_path / "logs" / "tasks.log",
        verbose=verbose,
    )


@pytest.mark.parametrize(("workers", "start_method"), [(1, "fork"), (2, "fork"), (2, "forkserver")])
def test_a_stage_prints_one_line_and_its_warnings(tmp_path, monkeypatch, capfd, workers, start_method):
    make_stage(tmp_path, counted, workers, start_method, monkeypatch).run()
    out, err = capfd.readouterr()
    assert re.fullmatch(rf"\[tasks\] done in \d+ s · log: {tmp_path / 'logs' / 'tasks.log'}\n", out)
    assert sorted(err.splitlines()) == ["warning: rank 0 has a thing to say", "warning: rank 1 has a thing to say"]
    log = (tmp_path / "logs" / "tasks.log").read_text()
    # the workers' and this process's output; datatrove logs INFO to stderr only from the task that took local
    # rank 0 of the free ranks, whichever task started first
    assert re.search(r"rank [01] counting", log) and "Stats: All 2 tasks" in log
    assert "rank 0 counting" in (tmp_path / "datatrove" / "logs" / "task_00000.log").read_text()

    make_stage(tmp_path, counted, workers, start_method, monkeypatch).run()  # a rerun: both tasks done
    assert capfd.readouterr().out.startswith("[tasks] finished earlier: reused")


@pytest.mark.parametrize(("workers", "start_method"), [(1, "fork"), (2, "forkserver")])
def test_a_failing_stage_shows_the_tail_of_its_log_and_where_it_is(tmp_path, monkeypatch, capfd, workers, start_method):
    with pytest.raises(Exception, match="truncated"):
        make_stage(tmp_path, failing, workers, start_method, monkeypatch).run()
    out, err = capfd.readouterr()
    assert out == ""
    assert "is truncated" in err and "reading shard" in (tmp_path / "logs" / "tasks.log").read_text()
    assert err.splitlines()[-1].startswith("[tasks] failed after ") and str(tmp_path / "logs" / "tasks.log") in err


def test_verbose_prints_everything_and_writes_no_stage_log(tmp_path, monkeypatch, capfd):
    make_stage(tmp_path, counted, 1, "fork", monkeypatch, verbose=True).run()
    out, err = capfd.readouterr()
    assert "rank 0 counting" in err and "Stats: All 2 tasks" in err
    assert re.fullmatch(r"\[tasks\] done in \d+ s\n", out)
    assert not (tmp_path / "logs").exists()
