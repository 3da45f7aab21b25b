from __future__ import annotations

import logging

import pytest

from eval.collections import CollectionFormatError, read_trec_qrels, read_trec_run, read_trec_topics, write_trec_run
from eval.collections.trec import ranked


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_qrels_are_read_with_integer_grades(tmp_path):
    qrels = read_trec_qrels(write(tmp_path, "q", "1 0 d1 2\n1 0 d2 0\n\n2 0 d1 1\n"))
    assert qrels == {"1": {"d1": 2, "d2": 0}, "2": {"d1": 1}}


def test_malformed_qrels_line_names_file_and_line(tmp_path):
    path = write(tmp_path, "q", "1 0 d1 2\n1 0 d2\n")
    with pytest.raises(CollectionFormatError, match=r"q:2: expected 4 fields"):
        read_trec_qrels(path)
    with pytest.raises(CollectionFormatError, match=r"q:1: grade 'high'"):
        read_trec_qrels(write(tmp_path, "q", "1 0 d1 high\n"))


def test_repeated_judgment_keeps_last_and_is_counted(tmp_path, caplog):
    with caplog.at_level(logging.WARNING):
        qrels = read_trec_qrels(write(tmp_path, "q", "1 0 d1 2\n1 0 d1 0\n"))
    assert qrels == {"1": {"d1": 0}}
    assert "1 repeated" in caplog.text


def test_topics_tab_separated_and_sgml(tmp_path):
    assert read_trec_topics(write(tmp_path, "t.tsv", "7\twho is  aziz hashim\n8\tx\n")) == {
        "7": "who is aziz hashim",
        "8": "x",
    }
    sgml = "<top>\n<num> Number: 301\n<title> International Organized Crime\n<desc> Description:\nIdentify\n</top>\n"
    sgml += "<top>\n<num>2</num><title>\nWAVEGUIDE DESIGN\n</title>\n</top>\n"
    assert read_trec_topics(write(tmp_path, "t.sgml", sgml)) == {
        "301": "International Organized Crime",
        "2": "WAVEGUIDE DESIGN",
    }


def test_topics_errors(tmp_path):
    with pytest.raises(CollectionFormatError, match=r"t:2: expected 'qid<TAB>text'"):
        read_trec_topics(write(tmp_path, "t", "1\tok\nno tab here\n"))
    with pytest.raises(CollectionFormatError, match="appears twice"):
        read_trec_topics(write(tmp_path, "t", "1\ta\n1\tb\n"))
    with pytest.raises(CollectionFormatError, match="without <num>"):
        read_trec_topics(write(tmp_path, "t", "<top><title>x</title></top>"))


def test_run_duplicates_keep_first_row_and_are_counted(tmp_path, caplog):
    text = "1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0 r\n1 Q0 d1 3 1.0 r\n2 Q0 d1 1 5 r\n"
    with caplog.at_level(logging.WARNING):
        run = read_trec_run(write(tmp_path, "run", text))
    assert run == {"1": {"d1": 3.0, "d2": 2.0}, "2": {"d1": 5.0}}
    assert "1 duplicate (query, document) rows dropped" in caplog.text and "line 3" in caplog.text


def test_malformed_run_line(tmp_path):
    with pytest.raises(CollectionFormatError, match=r"run:1: expected 6 fields"):
        read_trec_run(write(tmp_path, "run", "1 Q0 d1 1 3.0\n"))
    with pytest.raises(CollectionFormatError, match=r"run:1: score 'x'"):
        read_trec_run(write(tmp_path, "run", "1 Q0 d1 1 x r\n"))


def test_trec_eval_order_breaks_ties_by_descending_docid():
    assert [d for d, _ in ranked({"a": 1.0, "c": 2.0, "b": 1.0})] == ["c", "b", "a"]


def test_write_then_read_round_trips_exact_scores(tmp_path):
    run = {"q1": {"d1": 0.1 + 0.2, "d2": 1e-17, "d3": -3.5}, "q2": {"x": 2.0}}
    path = write_trec_run(run, tmp_path / "out" / "r.run", tag="mine")
    assert read_trec_run(path) == run
    lines = path.read_text().splitlines()
    assert lines[0].split() == ["q1", "Q0", "d1", "1", repr(0.1 + 0.2), "mine"]
    with pytest.raises(ValueError, match="one word"):
        write_trec_run(run, tmp_path / "r2", tag="two words")
