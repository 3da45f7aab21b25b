"""WIKIR on the vendored real enwiki sample: hand-worked judgments, determinism across processes, and loading
through ``datasets.load_dataset`` and ``python -m eval``."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import PROJECT_ROOT, shared_data
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions
from wikiformer_kit.dataset_scripts.wikir.__main__ import main
from wikiformer_kit.dataset_scripts.wikir.build import WikirParametersError, build_wikir
from wikiformer_kit.dataset_scripts.wikir.options import WikirOptions
from wikiformer_kit.dataset_scripts.wikir.text import Body, LinkLocator
from wikiformer_kit.eval.collections import load_collection

pytestmark = pytest.mark.slow  # each build runs the datatrove stages (a few seconds)

# Judged documents of the query "Angola" (page 701) and where each links to [[Angola]] (word of its body):
# 704 Demographics of Angola: "This article is about the demographic features of the population of [[Angola]]"
#     (word 11, first sentence); 708 Transport in Angola: "Transport in [[Angola]] comprises:" (word 2, first
#     sentence); 709 Angolan Armed Forces: "... are the military in [[Angola]] that succeeded ..." (word 12, first
#     sentence); 710 Foreign relations of Angola: "From 1975 to 1989, [[Angola]] was aligned with the Eastern bloc"
#     (word 29, second sentence); 705 Politics of Angola: "[[Angola]] changed from a one-party Marxist-Leninist
#     system" (word 59, second sentence). No other article of the sample links to Angola in its first 200 words.
ANGOLA = "701"
ANGOLA_LINKERS = {"704": 11, "705": 59, "708": 2, "709": 12, "710": 29}
ANGOLA_FIRST_SENTENCE = "Angola officially the Republic of Angola República de Angola ɐ̃ˈɡɔlɐ"


def build(corpus: Path, out: Path, num_proc: int = 1, **options) -> dict:
    return build_wikir(
        corpus, out, WikirOptions(**options), executor=ExecutorOptions(num_proc=num_proc), articles_per_unit=30
    )


def qrels(folder: Path, split: str) -> dict[str, dict[str, int]]:
    judged: dict[str, dict[str, int]] = {}
    (path,) = (folder / "qrels").glob(f"{split}-fp*.parquet")
    for row in pq.read_table(path).to_pylist():
        judged.setdefault(row["query-id"], {})[row["corpus-id"]] = row["score"]
    return judged


@pytest.fixture(scope="module")
def default_build(enwiki_corpus, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wikir") / "default"
    build(enwiki_corpus, out)
    return out


def test_defaults_give_angola_judged_by_its_five_linking_articles(default_build):
    # min_links = 5: only Angola has five documents linking to it in their first 200 words
    summary = json.loads((default_build / ".build" / "summary.json").read_text())
    assert summary["queries"] == {"train": 0, "validation": 1, "test": 0}
    assert qrels(default_build, "validation") == {ANGOLA: {ANGOLA: 2, **dict.fromkeys(ANGOLA_LINKERS, 1)}}
    queries = pq.read_table(default_build / "queries").to_pylist()
    assert queries == [{"_id": ANGOLA, "text": ANGOLA_FIRST_SENTENCE, "article": "Angola", "split": "validation"}]
    # 106 articles: 8 disambiguation pages and 2 articles under 200 words are not documents
    assert summary["documents"] == 96
    assert summary["stats"]["skipped: disambiguation page"] == 8
    assert summary["stats"]["skipped: shorter than min_length words"] == 2
    corpus = {r["_id"]: r for r in pq.read_table(default_build / "corpus").to_pylist()}
    assert corpus[ANGOLA]["text"].startswith(ANGOLA_FIRST_SENTENCE) and corpus[ANGOLA]["title"] == ""
    assert all(len(r["text"].split()) <= 200 for r in corpus.values())


def test_where_the_links_to_angola_stand(enwiki_corpus):
    articles = {r["id"]: Article.from_dict(r) for r in pq.read_table(enwiki_corpus / "data").to_pylist()}
    found = {}
    for article_id in ANGOLA_LINKERS:
        locator = LinkLocator(Body.of(articles[article_id]))
        link = next(link for link in articles[article_id].links if link.target == "Angola")
        found[article_id] = locator.word_position(*locator.locate(link.section, link.sentence, link.anchor))
    assert found == ANGOLA_LINKERS


def test_link_window_first_sentence_and_query_options(enwiki_corpus, tmp_path):
    # a 30-word window keeps the links at words 2, 11, 13 and 29 and loses Politics of Angola's (word 59)
    build(enwiki_corpus, tmp_path / "window", doc_length=30, min_links=4)
    assert qrels(tmp_path / "window", "validation")[ANGOLA] == {ANGOLA: 2, "704": 1, "708": 1, "709": 1, "710": 1}
    # first-sentence links: Foreign relations (second sentence) and Politics (second sentence) drop out
    build(enwiki_corpus, tmp_path / "first", first_sentence_links=True, min_links=3)
    assert qrels(tmp_path / "first", "validation")[ANGOLA] == {ANGOLA: 2, "704": 1, "708": 1, "709": 1}
    # title queries, lower-cased, documents without their first sentence
    out = tmp_path / "title"
    build(enwiki_corpus, out, title_queries=True, lowercase=True, skip_first_sentence=True)
    assert pq.read_table(out / "queries").column("text").to_pylist() == ["angola"]
    angola = next(r for r in pq.read_table(out / "corpus").to_pylist() if r["_id"] == ANGOLA)
    assert angola["text"].startswith("it is the seventh largest country in africa")


def test_relaxed_minimum_judges_ayn_rand_by_the_list_of_atlas_shrugged_characters(enwiki_corpus, tmp_path):
    # "This is a list of characters in [[Ayn Rand]]'s novel Atlas Shrugged." (page 359) -> query Ayn Rand (339)
    build(enwiki_corpus, tmp_path / "one", min_links=1, validation_size=1000)
    assert qrels(tmp_path / "one", "validation")["339"] == {"339": 2, "359": 1}


def test_same_collection_whatever_the_number_of_processes(enwiki_corpus, tmp_path):
    options = {"min_links": 1, "validation_size": 5, "test_size": 5}
    build(enwiki_corpus, tmp_path / "p1", num_proc=1, **options)
    build(enwiki_corpus, tmp_path / "p2", num_proc=2, **options)
    files = sorted(p.relative_to(tmp_path / "p1") for p in (tmp_path / "p1").rglob("*") if ".build" not in p.parts)
    assert len([f for f in files if f.suffix == ".parquet"]) == 6
    for relative in files:
        first, second = tmp_path / "p1" / relative, tmp_path / "p2" / relative
        if first.is_file():
            assert first.read_bytes() == second.read_bytes(), relative


def test_loads_with_datasets_in_a_fresh_process(default_build, tmp_path):
    code = (
        "import json, sys; from datasets import load_dataset\n"
        "folder = sys.argv[1]\n"
        "out = {c: load_dataset(folder, c).num_rows for c in ('corpus', 'queries', 'qrels', 'default')}\n"
        "print(json.dumps(out))\n"
    )
    env = {"HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", code, str(default_build)], env=env, capture_output=True, text=True, check=True
    )
    loaded = json.loads(result.stdout.splitlines()[-1])
    assert loaded == {
        "corpus": {"corpus": 96},
        "queries": {"queries": 1},
        "qrels": {"validation": 6},
        "default": {"validation": 6},
    }


def test_eval_reads_the_split_folders_and_the_dataset(enwiki_corpus, tmp_path):
    out = tmp_path / "wikir"
    build(enwiki_corpus, out, min_links=1, validation_size=5, test_size=5, bm25_k=20)
    validation = load_collection(str(out / "validation"))
    assert validation.name == "wikir-en-validation" and validation.relevance_level == 1
    assert sorted(validation.runs) == ["bm25", "candidates"] and len(validation.queries) == 5
    assert validation.qrels == qrels(out, "validation")
    assert all(len(ranking) == 20 for ranking in validation.runs["bm25"].values())
    assert validation.runs["bm25"] == validation.runs["candidates"]
    assert set(validation.documents) == {d for r in validation.runs["bm25"].values() for d in r}
    whole = load_collection(f"hf:{out}@test")
    assert len(whole.documents) == 96 and whole.qrels == qrels(out, "test")
    train = load_collection(str(out / "train"))
    assert len(train.queries) == 5 and not train.documents  # training queries: triples instead of candidates
    figures = json.loads((out / "test" / "bm25.metrics.json").read_text())["means"]
    result = subprocess.run(
        [sys.executable, "-m", "eval", "first-stage", "--collection", str(out / "test"), "--method", "given",
         "--k", "20", "--output", str(tmp_path / "given.run"), "--measures", "nDCG@10", "AP"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert f"nDCG@10 {figures['nDCG@10']:.4f}, AP {figures['AP']:.4f}" in result.stdout
    triples = pq.read_table(next((out / "triples").glob("train-fp*.parquet"))).to_pylist()
    assert len(triples) == 5
    for triple in triples:
        judged = qrels(out, "train")[triple["query_id"]]
        assert not set(triple["negative_ids"]) & set(judged) and len(triple["negatives"]) == 15


def test_no_qualifying_article_is_a_clear_message_and_a_loadable_corpus(enwiki_corpus, tmp_path, capsys):
    out = tmp_path / "empty"
    assert main(["--input", str(enwiki_corpus), "--output-dir", str(out), "--min-links", "1000"]) == 1
    assert "no article qualified as a query" in capsys.readouterr().err
    card = (out / "README.md").read_text()
    assert "This collection has no query" in card and "config_name: queries" not in card
    assert not list((out / "qrels").glob("*.parquet")) and not (out / "validation").exists()
    from datasets import load_dataset

    assert load_dataset(str(out), "corpus", split="corpus").num_rows == 96
    # the card's loading snippet names only the configs this build has, and runs as shown
    snippet = card.split("```python\n", 1)[1].split("```", 1)[0]
    assert '"queries"' not in snippet and '"qrels"' not in snippet
    scope: dict = {}
    exec(snippet.replace("REPO_OR_FOLDER", str(out)), scope)
    assert scope["corpus"].num_rows == 96


def test_other_parameters_in_the_same_folder_are_refused(default_build, enwiki_corpus):
    with pytest.raises(WikirParametersError, match="min_links"):
        build(enwiki_corpus, default_build, min_links=2)


@pytest.mark.shared_data
def test_latgalian_dump_builds_from_the_xml(tmp_path, capsys):
    dump = shared_data("wikipedia/ltgwiki_sample/smallwiki-latest-pages-articles.xml")
    out = tmp_path / "ltg"
    assert main(["--input", str(dump), "--output-dir", str(out), "--num-proc", "2"]) == 0
    summary = json.loads((out / ".build" / "summary.json").read_text())
    assert summary["language"] == "ltg" and summary["queries"]["validation"] == 3
    topics = dict(line.split("\t") for line in (out / "validation" / "topics.tsv").read_text().splitlines())
    # Reiga (Riga), the first sentence of page 426, with its Latgalian letters kept
    assert topics["426"] == "Reiga Latvejis golvysmīsts pi Daugovys ītakys Reigys leicī"
    assert "language:\n- ltg" in (out / "README.md").read_text()
    assert os.path.isdir(out / ".build" / "corpus")


def test_the_shipped_mini_collection_is_what_the_builder_writes(enwiki_corpus, tmp_path):
    shipped = PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "eval" / "wikir-en-mini"
    out = tmp_path / "mini"
    options = WikirOptions(min_links=1, validation_size=5, test_size=5, bm25_k=20)
    build_wikir(
        enwiki_corpus,
        out,
        options,
        executor=ExecutorOptions(num_proc=2),
        articles_per_unit=30,
        info={"name": "WIKIR (en) mini"},
    )
    files = sorted(p.relative_to(shipped) for p in shipped.rglob("*") if p.is_file() and p.name != "README.md")
    assert len(files) == 23
    for relative in files:
        assert (out / relative).read_bytes() == (shipped / relative).read_bytes(), relative
    assert "minimum of linking documents relaxed from 5 to 1" in (shipped / "README.md").read_text()


def test_the_original_layouts_and_max_articles(enwiki_corpus, tmp_path):
    out = tmp_path / "original-layouts"
    argv = ["--input", str(enwiki_corpus), "--output-dir", str(out), "--min-links", "1", "--validation-size", "2",
            "--test-size", "2", "--max-articles", "50", "--articles-per-unit", "30", "--export", "csv", "json", "xml"]  # fmt: skip
    assert main(argv) == 0
    summary = json.loads((out / ".build" / "summary.json").read_text())
    assert summary["stats"]["articles read"] == 50  # the first 50 rows of the corpus (units of 30: 30 + 20)
    documents = {r["_id"]: r["text"] for r in pq.read_table(out / "corpus").to_pylist()}
    original = out / "original"
    with open(original / "documents.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["id_right", "text_right"] and dict(rows[1:]) == documents
    assert json.loads((original / "documents.json").read_text()) == documents
    assert (original / "documents.xml").read_text().count("<DOCNO>") == len(documents)
    queries = {r["_id"]: r for r in pq.read_table(out / "queries").to_pylist()}
    for split in ("train", "validation", "test"):
        in_split = {q: r["text"] for q, r in queries.items() if r["split"] == split}
        assert json.loads((original / split / "queries.json").read_text()) == in_split
        assert (original / f"{split}.queries.xml").read_text().count("<num>") == len(in_split)
        lines = (original / split / "qrels").read_text().splitlines()
        assert [line.split("\t") for line in lines] == [
            [r["query-id"], "0", r["corpus-id"], str(r["score"])]
            for r in pq.read_table(next((out / "qrels").glob(f"{split}-fp*.parquet"))).to_pylist()
        ]


def test_max_articles_takes_the_first_articles_or_the_originals_random_sample(enwiki_corpus, tmp_path):
    def documents(out: Path) -> set[str]:
        return {row["_id"] for p in (out / "corpus").glob("*.parquet") for row in pq.read_table(p).to_pylist()}

    first = tmp_path / "first"
    build_wikir(enwiki_corpus, first, WikirOptions(min_links=1, min_length=50), max_articles=30)
    drawn = tmp_path / "random"
    summary = build_wikir(
        enwiki_corpus, drawn, WikirOptions(min_links=1, min_length=50), max_articles=30, random_sample=True
    )
    reseeded = tmp_path / "reseeded"
    build_wikir(
        enwiki_corpus, reseeded, WikirOptions(min_links=1, min_length=50, seed=1), max_articles=30, random_sample=True
    )
    # the first 30 corpus articles are read (some are too short); the random sample keeps 30 of all that qualify
    assert len(documents(first)) < 30 and len(documents(drawn)) == len(documents(reseeded)) == 30
    assert documents(drawn) != documents(reseeded) and not documents(drawn) <= documents(first)
    assert summary["stats"]["skipped: not in the random sample of articles"] > 0


def test_a_replaced_dump_is_extracted_again_not_reused(tmp_path, capsys):
    import bz2

    from tests.conftest import ENWIKI_SAMPLE

    xml = bz2.decompress(ENWIKI_SAMPLE.read_bytes()).decode("utf-8")
    pages = xml.split("</page>")
    dump = tmp_path / "enwiki.xml"
    dump.write_text("</page>".join(pages[:120]) + "</page>\n</mediawiki>\n", encoding="utf-8")  # a cut download
    out, fresh = tmp_path / "wikir", tmp_path / "fresh"
    assert main(["--input", str(dump), "--output-dir", str(out), "--min-links", "1"]) == 0
    cut = json.loads((out / ".build" / "summary.json").read_text())
    dump.write_text(xml, encoding="utf-8")  # then the whole file under the same name
    capsys.readouterr()
    assert main(["--input", str(dump), "--output-dir", str(out), "--min-links", "1"]) == 0
    console = capsys.readouterr()
    assert "the corpus changed since the earlier build there: extracting it again" in console.out + console.err
    assert main(["--input", str(dump), "--output-dir", str(fresh), "--min-links", "1"]) == 0
    whole = json.loads((fresh / ".build" / "summary.json").read_text())
    assert json.loads((out / ".build" / "summary.json").read_text()) == whole != cut
    assert qrels(out, "validation") == qrels(fresh, "validation")
