"""Dataset cards state the licence of the corpus they were built from (build_info["formats"])."""

from __future__ import annotations

import yaml

from wikiformer_kit.dataset_scripts.tasks.card import render_card
from wikiformer_kit.dataset_scripts.tasks.prop import PropOptions
from wikiformer_kit.dataset_scripts.tasks.stats import TaskStats

STATISTICS = {"articles": 100, "see_also": {"articles": 0, "links": 0}}


def card(**info) -> tuple[dict, str]:
    text = str(render_card("prop", TaskStats(), STATISTICS, {"options": PropOptions().to_dict(), **info}))
    _, metadata, body = text.split("---\n", 2)
    return yaml.safe_load(metadata), body.split("## License and attribution")[1].split("## Citation")[0]


def test_a_prop_card_from_ms_marco_states_microsofts_terms_not_wikipedias():
    metadata, licence = card(source="msmarco_toy.tsv", formats=["msmarco-tsv"])
    assert metadata["license"] == "other" and metadata["license_name"] == "ms-marco-terms"
    assert metadata["license_link"] == "https://microsoft.github.io/msmarco/" and "wikipedia" not in metadata["tags"]
    assert "non-commercial research" in licence and "Wikipedia" not in licence and "CC BY-SA" not in licence


def test_a_wikipedia_build_keeps_cc_by_sa_and_attribution():
    for info in ({"source": "x.xml.bz2", "formats": ["mediawiki-xml"]}, {"source": "x.xml.bz2"}):
        metadata, licence = card(**info)
        assert metadata["license"] == "cc-by-sa-4.0" and "wikipedia" in metadata["tags"]
        assert "CC BY-SA 4.0" in licence and "Wikipedia contributors" in licence


def test_other_inputs_name_the_input_corpus_licence():
    metadata, licence = card(source="site.zip", formats=["html"])
    assert metadata["license"] == "other" and "licence of the input corpus (site.zip)" in licence


def test_the_source_formats_come_from_the_corpus_build_record():
    from wikiformer_kit.dataset_scripts.tasks.build import source_formats

    assert source_formats({"formats": ["msmarco-tsv"], "options": {"fmt": "auto"}}) == ["msmarco-tsv"]
    assert source_formats({"options": {"fmt": "msmarco-tsv"}}) == ["msmarco-tsv"]  # recorded before formats were
    assert source_formats({"options": {"fmt": "auto"}}) is None and source_formats({}) is None


def test_the_card_shows_an_example_row_every_field_and_the_dump(tmp_path):
    """Hub-ready: DatasetCard parses the metadata; the body has per-field descriptions, one row and the dump."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from huggingface_hub import DatasetCard

    from wikiformer_kit.dataset_scripts.tasks.card import FIELDS, example_row, write_card
    from wikiformer_kit.dataset_scripts.tasks.registry import get_task

    row = {"query": "Albedo Terrestrial albedo", "positive": "x" * 500, "negatives": ["a", "b", "c", "d"]}
    row |= {"article_id": "39", "title": "Albedo", "path": ["Albedo", "Terrestrial albedo"]}
    (tmp_path / "data").mkdir()
    pq.write_table(pa.Table.from_pylist([row]), tmp_path / "data" / "00000.parquet")
    info = {"source": "enwiki-20240601-pages-articles-multistream.xml.bz2", "options": {}}
    card = DatasetCard.load(write_card(tmp_path, "srr", TaskStats(rows=1), STATISTICS, info))
    assert card.data.license == "cc-by-sa-4.0" and card.data.task_categories == ["text-retrieval"]
    assert card.data.configs[0]["data_files"][0]["path"] == "data/*.parquet"
    for name in get_task("srr").features:
        assert f"| `{name}` | " in card.text and FIELDS[name] in card.text
    assert '"title": "Albedo"' in card.text and '"d"' not in card.text and "x" * 161 not in card.text
    assert "Wikimedia dump `enwiki` of 2024-06-01" in card.text
    assert example_row(tmp_path / "missing") is None
