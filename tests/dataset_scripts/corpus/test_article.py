"""The Article contract on disk: the Arrow schema, the Hugging Face Features and the row round trip."""

from __future__ import annotations

import subprocess
import sys

import datasets
import pyarrow as pa

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.dataset_scripts.corpus.article import ARTICLE_SCHEMA, Article, Link, Section


def test_features_are_the_documented_contract():
    from wikiformer_kit.dataset_scripts.corpus.article import ARTICLE_FEATURES

    text = datasets.Value("string")
    assert ARTICLE_FEATURES == datasets.Features(
        {
            "id": text, "title": text, "abstract": text,
            "sections": datasets.List(
                {"title": text, "level": datasets.Value("int32"), "text": text, "path": datasets.List(text),
                 "parent": datasets.Value("int32")}
            ),
            "links": datasets.List({"target": text, "anchor": text, "sentence": text, "section": datasets.Value("int32")}),
            "see_also": datasets.List(text), "url": text, "source": text, "language": text,
            "is_disambiguation": datasets.Value("bool"), "see_also_found_by": text,
        }
    )  # fmt: skip
    assert ARTICLE_FEATURES.arrow_schema.remove_metadata() == ARTICLE_SCHEMA


def test_a_row_round_trips_through_the_schema():
    article = Article(
        id="12", title="Albedo", abstract="Albedo is reflection.",
        sections=[Section("Terrestrial albedo", 2, "Snow reflects.", ["Albedo", "Terrestrial albedo"])],
        links=[Link("Snow", "snow", "Snow reflects.", 0)], see_also=["Cool roof"], url="u", source="s", language="en",
    )  # fmt: skip
    table = pa.Table.from_pylist([article.to_dict()], schema=ARTICLE_SCHEMA)
    assert Article.from_dict(table.to_pylist()[0]) == article


def test_the_build_modules_do_not_import_datasets():
    code = "import sys, dataset_scripts.corpus.steps, dataset_scripts.corpus.build; print('datasets' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "False", result.stderr[-1000:]
