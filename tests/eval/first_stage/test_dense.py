from __future__ import annotations

import logging

import pytest

from tests.eval.conftest import CRANFIELD_MINI
from wikiformer_kit.eval.collections import load_collection
from wikiformer_kit.eval.first_stage import DenseRetriever


@pytest.mark.slow
def test_minilm_bi_encoder_finds_the_document_by_its_title(caplog):
    collection = load_collection(str(CRANFIELD_MINI))
    documents = dict(list(collection.documents.items())[:10])  # ten abstracts keep the real-weight test short
    retriever = DenseRetriever(documents, batch_size=16)
    queries = {"t": "simple shear flow past a flat plate in an incompressible fluid of small viscosity", "e": " "}
    with caplog.at_level(logging.WARNING):
        run = retriever.retrieve(queries, k=3)
    assert list(run) == ["t"] and len(run["t"]) == 3 and "2" in run["t"]
    assert "1 of 2 queries are empty" in caplog.text
