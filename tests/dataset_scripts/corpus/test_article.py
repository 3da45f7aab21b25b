"""The Article contract on disk: the Arrow schema, the Hugging Face Features and the row round trip."""

from __future__ import annotations

import shutil
import subprocess
import sys

import datasets
import pyarrow as pa
import pyarrow.parquet as pq

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT
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
            "is_disambiguation": datasets.Value("bool"), "see_also_found_by": text, "categories": datasets.List(text),
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
    code = "import sys, wikiformer_kit.dataset_scripts.corpus.steps, wikiformer_kit.dataset_scripts.corpus.build; print('datasets' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "False", result.stderr[-1000:]


def test_categories_are_the_last_column_so_an_older_corpus_is_a_prefix():
    assert ARTICLE_SCHEMA.names[-1] == "categories"
    assert ARTICLE_SCHEMA.field("categories").type == pa.list_(pa.string())
    before = ARTICLE_SCHEMA.remove(ARTICLE_SCHEMA.get_field_index("categories"))
    assert ARTICLE_SCHEMA.names[: len(before.names)] == before.names


def test_a_row_without_categories_reads_as_an_article_without_any():
    row = Article(id="1", title="Albedo", abstract="A.", categories=["Climate forcing"]).to_dict()
    assert row["categories"] == ["Climate forcing"]
    del row["categories"]
    assert Article.from_dict(row).categories == []
    assert Article.from_dict({**row, "categories": None}).categories == []


def test_a_corpus_written_before_categories_still_builds_the_same_tasks(tmp_path):
    from wikiformer_kit.dataset_scripts.build import main

    args = ["--limit", "30", "--articles-per-unit", "10", "--num-proc", "1"]
    assert main(["--input", str(ENWIKI_SAMPLE), "--output-dir", str(tmp_path / "new"), *args]) == 0
    new_corpus = tmp_path / "new" / "corpus"
    assert any(pq.read_table(path).column("categories").to_pylist()[0] for path in (new_corpus / "data").glob("*"))

    old_corpus = tmp_path / "old" / "corpus"
    shutil.copytree(new_corpus, old_corpus)
    for path in (old_corpus / "data").glob("*.parquet"):
        table = pq.read_table(path)
        pq.write_table(table.drop_columns(["categories"]), path)
    out = tmp_path / "from-old"
    assert main(["--input", str(old_corpus), "--output-dir", str(out), "--tasks", "wikiformer,prop", *args]) == 0
    again = tmp_path / "from-new"
    assert main(["--input", str(new_corpus), "--output-dir", str(again), "--tasks", "wikiformer,prop", *args]) == 0
    for task in ("srr", "rwi", "ati", "ltm", "prop"):
        old_rows = [pq.read_table(p) for p in sorted((out / f"wikiformer-{task}" / "data").glob("*.parquet"))]
        new_rows = [pq.read_table(p) for p in sorted((again / f"wikiformer-{task}" / "data").glob("*.parquet"))]
        assert old_rows and [t.to_pylist() for t in old_rows] == [t.to_pylist() for t in new_rows], task
    assert sum(t.num_rows for t in old_rows) > 0
