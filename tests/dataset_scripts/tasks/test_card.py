"""Dataset cards state the licence of the corpus they were built from (build_info["formats"])."""

from __future__ import annotations

import yaml

from dataset_scripts.tasks.card import render_card
from dataset_scripts.tasks.prop import PropOptions
from dataset_scripts.tasks.stats import TaskStats

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
