"""Shared fixtures: where the vendored samples and the optional ../shared/data live."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["tests.hub_server"]  # the `hub` fixture: a local Hub-API-compatible server for push/load tests

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLES = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples"
ENWIKI_SAMPLE = SAMPLES / "wikipedia" / "enwiki-sample.xml.bz2"
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"


def shared_data(relative: str) -> Path:
    """A path under ../shared/data, or skip the calling test when it is not there (as on a user's machine)."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"{path} not present (development data in ../shared/data)")
    return path


@pytest.fixture(scope="session")
def enwiki_sample() -> Path:
    """The vendored real enwiki dump sample (CC BY-SA, see data/samples/README.md)."""
    return ENWIKI_SAMPLE
