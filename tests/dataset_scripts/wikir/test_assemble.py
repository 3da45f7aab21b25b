"""Judgments over the whole corpus: redirects, missing pages, duplicate titles, the minimum of linking documents,
and the seeded split of the original builder."""

from __future__ import annotations

import random
from collections import Counter

import pyarrow as pa
import pytest

from wikiformer_kit.dataset_scripts.corpus.article import Article, Link
from wikiformer_kit.dataset_scripts.wikir.assemble import SKIP_DUPLICATE, assemble, resolve
from wikiformer_kit.dataset_scripts.wikir.extract import EXTRACT_SCHEMA, SKIP_DISAMBIGUATION, SKIP_SHORT, extract
from wikiformer_kit.dataset_scripts.wikir.options import WikirOptions

NO_REDIRECTS = (pa.array([], pa.string()), pa.array([], pa.string()))


def row(article_id: str, key: str, targets: list[str], skip: str = "", query: str | None = None) -> dict:
    return {"id": article_id, "title": key, "key": key, "skip": skip, "document": f"text of {key}",
            "query": key.lower() if query is None else query, "targets": targets}  # fmt: skip


def table(rows: list[dict]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=EXTRACT_SCHEMA)


def test_redirect_chains_are_followed_and_loops_end():
    keys = pa.array(["Angola", "Luanda"])
    redirects = (pa.array(["Republic of Angola", "Angola (country)", "A", "B"]),
                 pa.array(["Angola (country)", "Angola", "B", "A"]))  # fmt: skip
    stats = Counter()
    targets = pa.array(["Luanda", "Republic of Angola", "A", "Nowhere"])
    assert resolve(targets, keys, redirects, stats).tolist() == [1, 0, -1, -1]
    assert stats == Counter({"links to documents": 1, "links through redirects": 1, "links to missing pages": 2})


def test_judgments_grades_and_minimum_of_linking_documents():
    rows = [
        row("10", "Angola", ["Luanda", "Angola"]),  # a self-link does not count
        row("11", "Luanda", ["Angola"]),
        row("12", "Benguela", ["Angola", "Luanda"]),
        row("13", "Huambo", ["Republic of Angola", "Angola"]),  # the same page twice (once by redirect): once
        row("14", "Short page", ["Angola"], skip=SKIP_SHORT),  # not a document: its link does not count
    ]
    redirects = (pa.array(["Republic of Angola"]), pa.array(["Angola"]))
    built = assemble(table(rows), redirects, WikirOptions(min_links=2, validation_size=1, test_size=0))
    assert built.qrels == {"10": {"10": 2, "11": 1, "12": 1, "13": 1}, "11": {"11": 2, "10": 1, "12": 1}}
    assert list(built.queries) == ["10", "11"] and list(built.documents) == ["10", "11", "12", "13"]
    assert built.stats["self links"] == 1 and built.stats["skipped: shorter than min_length words"] == 1
    assert built.stats["candidate queries with too few linking documents"] == 0
    three = assemble(table(rows), redirects, WikirOptions(min_links=3))
    assert list(three.qrels) == ["10"] and three.stats["candidate queries with too few linking documents"] == 1


def test_duplicate_titles_are_counted_skips_and_the_first_is_kept(caplog):
    rows = [
        row("1", "Angola", []),
        row("2", "Angola", []),
        row("3", "Luanda", ["Angola"]),
        row("4", "Cuanza", ["Angola"]),
    ]
    built = assemble(table(rows), NO_REDIRECTS, WikirOptions(min_links=2))
    assert built.stats[f"skipped: {SKIP_DUPLICATE}"] == 1 and "2" not in built.documents
    assert built.qrels == {"1": {"1": 2, "3": 1, "4": 1}}
    assert "'Angola' appears again (article id 2)" in caplog.text


def test_a_query_with_an_empty_text_is_a_counted_skip():
    rows = [row("1", "Angola", [], query=""), row("2", "Luanda", ["Angola"])]
    built = assemble(table(rows), NO_REDIRECTS, WikirOptions(min_links=1))
    assert built.queries == {} and built.stats["candidate queries with an empty query text"] == 1


def test_no_qualifying_article_gives_an_empty_collection():
    built = assemble(table([row("1", "Angola", [], skip=SKIP_SHORT)]), NO_REDIRECTS, WikirOptions())
    assert built.documents == {} and built.queries == {} and built.splits == {"train": [], "validation": [], "test": []}
    empty = assemble(EXTRACT_SCHEMA.empty_table(), NO_REDIRECTS, WikirOptions())
    assert empty.documents == {} and empty.stats["articles read"] == 0


@pytest.mark.parametrize("validation, test", [(1000, 1000), (3, 4), (0, 2)])
def test_split_is_the_original_builders(validation, test):
    rows = [row(str(i), f"T{i}", []) for i in range(40)] + [row("99", "Hub", [f"T{i}" for i in range(40)])]
    rows += [row(f"x{i}", f"X{i}", ["Hub", *(f"T{j}" for j in range(40))]) for i in range(12)]
    built = assemble(table(rows), NO_REDIRECTS, WikirOptions(min_links=5, validation_size=validation, test_size=test))
    # build_wikIR.py: random.seed(27355); list_ids = [key for key in queries]; random.shuffle(list_ids)
    random.seed(27355)
    list_ids = list(built.queries)
    random.shuffle(list_ids)
    assert built.splits == {
        "train": list_ids[validation + test :],
        "validation": list_ids[:validation],
        "test": list_ids[validation : validation + test],
    }
    assert sorted(sum(built.splits.values(), [])) == sorted(built.queries) and len(built.queries) == 41


def test_extract_decodes_every_percent_encoding_and_skips_disambiguation():
    text = " ".join(["word"] * 20)
    article = Article(
        id="7",
        title="Café au lait",
        abstract=f"See Caf%C3%A9 and Angola. {text}",
        links=[Link("Caf%C3%A9_crème", "Caf%C3%A9", "See Caf%C3%A9 and Angola."), Link("Angola%20(country)", "Angola",
               "See Caf%C3%A9 and Angola.")],
    )  # fmt: skip
    counts = Counter()
    extracted = extract(article, WikirOptions(min_length=10), counts)
    assert extracted["targets"] == ["Café crème", "Angola (country)"] and extracted["key"] == "Café au lait"
    assert counts == Counter({"links counted": 2})
    article.is_disambiguation = True
    assert extract(article, WikirOptions(min_length=10), counts)["skip"] == SKIP_DISAMBIGUATION
    assert extract(article, WikirOptions(min_length=10, keep_disambiguation=True), counts)["skip"] == ""


def test_ids_with_white_space_become_one_trec_word():
    from wikiformer_kit.dataset_scripts.wikir.extract import trec_id

    assert trec_id("jodie emery") == "jodie_emery"
    assert trec_id("Anwar Kamal  Pakistan\tQ0") == "Anwar_Kamal_Pakistan_Q0"
    assert trec_id("1644") == "1644" and trec_id("") == ""


def test_whole_documents_keep_the_whole_article_and_links_still_count_in_the_leading_words():
    words = [f"w{i}" for i in range(300)]
    sentence = " ".join(words[250:260]) + " Angola."
    article = Article(
        id="8",
        title="Long",
        abstract=" ".join(words[:250]) + " " + sentence + " " + " ".join(words[260:]),
        links=[Link("Angola", "Angola", sentence)],
    )
    cut = extract(article, WikirOptions(min_length=10, doc_length=50), Counter())
    whole = extract(article, WikirOptions(min_length=10, doc_length=50, whole_documents=True), Counter())
    assert cut["document"].split() == words[:50]
    assert whole["document"].split()[-40:] == words[260:] and len(whole["document"].split()) == 301
    assert cut["targets"] == whole["targets"] == []  # the link stands past the first 50 words
