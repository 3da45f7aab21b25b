"""The vendored enwiki sample as a built corpus, once per session, for the WIKIR tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ENWIKI_SAMPLE
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus


@pytest.fixture(scope="session")
def enwiki_corpus(tmp_path_factory) -> Path:
    """The corpus of the vendored real enwiki sample (106 articles, 99 redirects)."""
    folder = tmp_path_factory.mktemp("wikir-corpus") / "corpus"
    build_corpus([ENWIKI_SAMPLE], folder)
    return folder
