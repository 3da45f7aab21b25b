from __future__ import annotations

import pytest

from tests.eval.conftest import CRANFIELD_MINI
from wikiformer_kit.eval.collections import (
    CollectionFormatError,
    read_smart_documents,
    read_smart_qrels,
    read_smart_queries,
)


def test_cranfield_queries_are_numbered_in_file_order():
    queries = read_smart_queries(CRANFIELD_MINI / "cran.qry")
    # the file's .I numbers are 001, 002, 004, 008, 009; cranqrel numbers them 1..5
    assert list(queries) == ["1", "2", "3", "4", "5"]
    assert queries["3"] == "what problems of heat conduction in composite slabs have been solved so far ."


def test_cranfield_documents_do_not_repeat_the_title():
    documents = read_smart_documents(CRANFIELD_MINI / "cran.all.50")
    assert len(documents) == 50 and list(documents)[:2] == ["1", "2"]
    text = documents["1"]
    assert text.startswith("experimental investigation of the aerodynamics of a wing in a slipstream . an experimental")
    assert text.count("experimental investigation of the aerodynamics") == 1


def test_cranfield_codes_map_to_trec_gains():
    qrels = read_smart_qrels(CRANFIELD_MINI / "cranqrel")
    # cranqrel: "1 184 2", "1 13 4", "1 486 -1", "2 12 1" (1 = complete answer, the most relevant)
    assert qrels["1"]["184"] == 3
    assert qrels["1"]["13"] == 1
    assert qrels["1"]["486"] == 0
    assert qrels["2"]["12"] == 4
    assert sorted(qrels) == ["1", "2", "3", "4", "5"]


def test_med_and_cisi_qrels_layouts(tmp_path):
    med = tmp_path / "MED.REL"
    med.write_text("1 0 13 1\n1 0 14 1\n2 0 80 1\n")
    assert read_smart_qrels(med) == {"1": {"13": 1, "14": 1}, "2": {"80": 1}}
    cisi = tmp_path / "CISI.REL"
    cisi.write_text("     1     28\t0\t0.000000\n     1     35\t0\t0.000000\n")
    assert read_smart_qrels(cisi) == {"1": {"28": 1, "35": 1}}


def test_bad_smart_files(tmp_path):
    bad_code = tmp_path / "cranqrel"
    bad_code.write_text("1 184 2\n1 13 7\n")
    with pytest.raises(CollectionFormatError, match=r"cranqrel:2: relevance code '7'"):
        read_smart_qrels(bad_code)
    mixed = tmp_path / "mixed"
    mixed.write_text("1 184 2\n1 0 13 7\n")
    with pytest.raises(CollectionFormatError, match=r"mixed:2: unexpected qrels line"):
        read_smart_qrels(mixed)
    not_smart = tmp_path / "docs"
    not_smart.write_text("plain text\n")
    with pytest.raises(CollectionFormatError, match="no '.I' record"):
        read_smart_documents(not_smart)
