from __future__ import annotations

import pytest

from tests.eval.conftest import NPL_MINI
from wikiformer_kit.eval.collections import CollectionFormatError, read_trec_sgml_documents


def test_npl_documents():
    documents = read_trec_sgml_documents(NPL_MINI / "doc-text.trec")
    assert len(documents) == 50
    assert documents["4"] == "the british computer society report of a conference held in cambridge june"


def test_tags_headers_and_entities(tmp_path):
    path = tmp_path / "docs.trec"
    path.write_text(
        "<DOC>\n<DOCNO> FT-1 </DOCNO>\n<DOCHDR>http://x 200</DOCHDR>\n<HEADLINE>AT&amp;T</HEADLINE>\n"
        "<TEXT>\nprofits rose\n</TEXT>\n</DOC>\n"
    )
    assert read_trec_sgml_documents(path) == {"FT-1": "AT&T profits rose"}


def test_bad_sgml(tmp_path):
    path = tmp_path / "docs.trec"
    path.write_text("<DOC>\n<DOCNO>1</DOCNO>a\n</DOC>\n<DOC>\nno number\n</DOC>\n")
    with pytest.raises(CollectionFormatError, match=r"docs.trec:4: <DOC> without <DOCNO>"):
        read_trec_sgml_documents(path)
    path.write_text("<DOC><DOCNO>1</DOCNO>a</DOC>\n<DOC><DOCNO>1</DOCNO>b</DOC>\n")
    with pytest.raises(CollectionFormatError, match="DOCNO '1' appears twice"):
        read_trec_sgml_documents(path)
    path.write_text("nothing\n")
    with pytest.raises(CollectionFormatError, match="no <DOC> block"):
        read_trec_sgml_documents(path)
