from __future__ import annotations

import logging

import pytest

from wikiformer_kit.eval.collections import (
    CollectionFormatError,
    read_trec_qrels,
    read_trec_run,
    read_trec_topics,
    write_trec_run,
)
from wikiformer_kit.eval.collections.trec import ranked


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
    with pytest.raises(CollectionFormatError, match=r"run:1: expected 'qid Q0 docid rank score \[tag\]'"):
        read_trec_run(write(tmp_path, "run", "1 Q0 d1 1\n"))
    with pytest.raises(CollectionFormatError, match=r"run:2: expected"):
        read_trec_run(write(tmp_path, "run", "1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0\n"))
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


def test_qrels_in_anserini_layout_with_q0_and_tabs(tmp_path):
    # Anserini's qrels.dl19-passage.txt: "19335 Q0 1017759 0"; ir_datasets exports "qid 0 docid rel"; MS MARCO tabs
    anserini = read_trec_qrels(write(tmp_path, "qrels.dl19-passage.txt", "19335 Q0 1017759 0\n19335 Q0 1082489 1\n"))
    assert anserini == {"19335": {"1017759": 0, "1082489": 1}}
    assert read_trec_qrels(write(tmp_path, "qrels.dev.tsv", "1102432\t0\t2026790\t1\n")) == {"1102432": {"2026790": 1}}


def test_runs_with_and_without_tag_and_msmarco_layout(tmp_path):
    tagged = read_trec_run(write(tmp_path, "a", "1 Q0 d1 1 3.5 bm25\n1 Q0 d2 2 2.5 bm25\n"))
    untagged = read_trec_run(write(tmp_path, "b", "1\tQ0\td1\t1\t3.5\n1\tQ0\td2\t2\t2.5\n"))
    assert tagged == untagged == {"1": {"d1": 3.5, "d2": 2.5}}
    msmarco = read_trec_run(write(tmp_path, "run.dev.small.tsv", "1048585\t7187158\t1\n1048585\t7187157\t2\n"))
    assert [d for d, _ in ranked(msmarco["1048585"])] == ["7187158", "7187157"]


def test_compressed_and_bom_files_are_read(tmp_path):
    import gzip

    (tmp_path / "qrels.txt.gz").write_bytes(gzip.compress(b"1 0 d1 2\n"))
    assert read_trec_qrels(tmp_path / "qrels.txt.gz") == {"1": {"d1": 2}}
    (tmp_path / "topics.tsv").write_bytes("1\tcaf\u00e9\n".encode("utf-16"))
    assert read_trec_topics(tmp_path / "topics.tsv") == {"1": "caf\u00e9"}
    (tmp_path / "bad").write_bytes(b"1 0 d1 2\n1 0 d\xff 1\n")
    with pytest.raises(CollectionFormatError, match=r"bad:2: not text"):
        read_trec_qrels(tmp_path / "bad")


def test_a_run_with_an_id_of_two_words_is_refused_naming_it(tmp_path):
    with pytest.raises(ValueError, match="'jodie emery'"):
        write_trec_run({"q1": {"jodie emery": 1.0}}, tmp_path / "run")
    with pytest.raises(ValueError, match="'q 1'"):
        write_trec_run({"q 1": {"d1": 1.0}}, tmp_path / "run")
    assert not (tmp_path / "run").exists()
