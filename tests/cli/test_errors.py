"""One-line errors: the message of each kind of exception, the exit codes, and --debug."""

from __future__ import annotations

import pytest

from wikiformer_kit.cli.errors import RESTARTS, RESUMES, InputError, one_line, one_line_errors, split_debug


def test_a_missing_file_is_named_with_what_to_do():
    error = FileNotFoundError(2, "No such file or directory", "/data/qrels.txt")
    assert one_line(error) == "/data/qrels.txt: no such file or directory (check the path)"


def test_a_long_library_message_becomes_one_short_line():
    message = "Can't load the model.\n\n  Make sure the path is right.\n" + "x" * 1000
    line = one_line(OSError(message))
    assert "\n" not in line and line.startswith("Can't load the model. Make sure") and len(line) <= 400


def test_an_unexpected_error_says_how_to_see_the_traceback():
    assert one_line(TypeError("bad")) == "unexpected TypeError: bad (rerun with --debug for the traceback)"


def test_debug_is_taken_out_of_the_command_line_before_a_bare_double_dash():
    assert split_debug(["a", "--debug", "--", "--debug"]) == (["a", "--", "--debug"], True)
    assert split_debug(["a"]) == (["a"], False)


@one_line_errors
def _main(argv, exception=None):
    assert "--debug" not in argv
    if exception:
        raise exception
    return 0


def test_exit_codes_and_the_single_line(capsys):
    assert _main([]) == 0
    assert _main(["x"], InputError("f.txt: bad record 3; fix it")) == 2
    assert capsys.readouterr().err == "error: f.txt: bad record 3; fix it\n"
    assert _main(["x"], RuntimeError("boom")) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_debug_shows_the_traceback_and_usage_errors_pass_through():
    with pytest.raises(InputError):
        _main(["--debug"], InputError("f.txt: bad"))
    with pytest.raises(SystemExit):
        _main([], SystemExit(2))


def test_a_debug_with_a_value_can_stay_the_commands_own():
    argv = ["c.yaml", "--debug", "underflow_overflow", "--debug"]
    assert split_debug(argv, valued_debug_is_the_commands=True) == (["c.yaml", "--debug", "underflow_overflow"], True)
    assert split_debug(["--debug", "x"]) == (["x"], True)


def test_ctrl_c_is_one_line_and_exit_code_130(capsys):
    assert _main(["x"], KeyboardInterrupt()) == 130
    assert capsys.readouterr().err == "\ninterrupted: rerun the same command to resume\n"
    with pytest.raises(KeyboardInterrupt):
        _main(["--debug"], KeyboardInterrupt())


def test_the_interrupted_line_can_depend_on_the_command_line(capsys):
    @one_line_errors(interrupted=lambda argv: RESUMES if "resumable" in argv else RESTARTS)
    def main(argv):
        raise KeyboardInterrupt

    assert main(["resumable"]) == 130
    assert capsys.readouterr().err.strip() == RESUMES
    assert main(["other"]) == 130
    assert capsys.readouterr().err.strip() == "interrupted: this command does not resume; rerun it to start again"
