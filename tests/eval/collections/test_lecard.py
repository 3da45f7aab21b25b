"""LeCaRD / CAIL-LCR folders as distributed: LeCaRD's real queries and labels (vendored), candidate cases laid out as
its candidate folders are; the layout detected, each query's own candidates its run, bad candidates skipped and
counted; ``python -m eval paper lecard`` on it, with LeCaRD's own nDCG beside trec_eval's.

LeCaRD's candidate archives are not in its repository's public copy: the candidate files here carry the one real
candidate record LeCaRD's README quotes (its text cut with "......" there), under the ids of real labelled candidates.
"""

from __future__ import annotations

import json
import logging
import shutil

import pytest

from tests.conftest import SAMPLES
from tests.eval.conftest import save_tiny_ranker
from wikiformer_kit.eval.cli import main
from wikiformer_kit.eval.collections import CollectionFormatError, load_collection, read_trec_run
from wikiformer_kit.eval.metrics.lecard import lecard_ndcg_mean

LECARD = SAMPLES / "eval" / "lecard"
README_CANDIDATE = {
    "ajId": "dee49560-26b8-441b-81a0-6ea9696e92a8",
    "ajName": "程某某走私、贩卖、运输、制造毒品一案",
    "ajjbqk": " 公诉机关指控，2018年3月1日下午3时许，被告人程某某在本市东西湖区某某路某某工业园某某宾馆门口以人民币300元的"
    "价格向吸毒人员张某贩卖毒品甲基苯丙胺片剂5颗......",
    "pjjg": " 一、被告人程某某犯贩卖毒品罪，判处有期徒刑十个月......",
    "qw": "湖北省武汉市东西湖区人民法院 刑事判决书 （2018）鄂0112刑初298号 公诉机关武汉市东西湖区人民检察院。 被告人程某某......",
    "writId": "0198ec7627d2c78f51e5e7e3862b6c19e42",
    "writName": "程某某走私、贩卖、运输、制造毒品一审刑事判决书",
}
CANDIDATES = {"5156": ["38633", "32518", "501", "16478"], "4891": ["412", "30682", "24091"]}
"""Real candidate ids: labelled ones of each query (grades 2, 3, 3 and 1, 2, 0) and one of BM25's unlabelled."""


def lecard_folder(root, with_order: bool = False):
    """LeCaRD's repository layout: data/query, data/label, data/candidates/<archive>/<ridx>/<id>.json."""
    data = root / "LeCaRD" / "data"
    (data / "query").mkdir(parents=True)
    (data / "label").mkdir()
    shutil.copy(LECARD / "query.json", data / "query" / "query.json")
    shutil.copy(LECARD / "label_top30_dict.json", data / "label" / "label_top30_dict.json")
    for query, documents in CANDIDATES.items():
        folder = data / "candidates" / "candidates1" / query
        folder.mkdir(parents=True)
        for document in documents:
            (folder / f"{document}.json").write_text(json.dumps(README_CANDIDATE, ensure_ascii=False), "utf-8")
    if with_order:
        (data / "prediction").mkdir()
        order = {"5156": [16478, 501, 38633, 32518], "4891": [24091, 412, 30682]}
        (data / "prediction" / "combined_top100.json").write_text(json.dumps(order), encoding="utf-8")
    return root / "LeCaRD"


def test_the_layout_is_detected_and_read(tmp_path, caplog):
    folder = lecard_folder(tmp_path)
    (folder / "data" / "candidates" / "candidates1" / "4891" / "999.json").write_text("{not json", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        collection = load_collection(str(folder))
    assert list(collection.queries) == ["5156", "4891"]
    assert collection.queries["5156"].startswith("2018年1月15日14时10分许，被告人莫新国酒后驾驶")
    assert len(collection.qrels) == 107 and collection.qrels["5156"]["32518"] == 3
    assert list(collection.qrels["4891"])[:3] == ["24048", "412", "30682"]  # the label file's order, kept
    run = collection.runs["candidates"]
    assert {query: sorted(docs) for query, docs in run.items()} == {q: sorted(d) for q, d in CANDIDATES.items()}
    assert collection.titles["501"] == README_CANDIDATE["ajName"]
    assert collection.documents["501"].startswith("程某某走私、贩卖、运输、制造毒品一案 公诉机关指控")
    assert "999.json: skipped (JSONDecodeError" in caplog.text and "1 candidate files skipped" in caplog.text
    assert collection.relevance_level == 2  # grades 0-3, as TREC DL's


def test_the_pooling_order_ranks_the_candidates(tmp_path):
    run = load_collection(f"lecard:{lecard_folder(tmp_path, with_order=True)}").runs["candidates"]
    assert sorted(run["5156"], key=lambda doc: -run["5156"][doc]) == ["16478", "501", "38633", "32518"]


def test_a_bad_query_line_is_named(tmp_path):
    folder = lecard_folder(tmp_path)
    with (folder / "data" / "query" / "query.json").open("a", encoding="utf-8") as handle:
        handle.write('{"q": "no ridx"}\n')
    with pytest.raises(CollectionFormatError, match=r"query.json:3: not a LeCaRD query"):
        load_collection(str(folder))


def test_paper_lecard_writes_trec_evals_and_lecards_ndcg(tmp_path):
    folder = lecard_folder(tmp_path)
    ranker = save_tiny_ranker(tmp_path / "ranker", initializer_range=0.2)
    out = tmp_path / "out"
    command = ["paper", "lecard", "--model", str(ranker), "--collection", str(folder), "--tag", "mine"]
    assert main([*command, "--output-dir", str(out), "--max-length", "128"]) == 0
    record = json.loads((out / "paper-table.json").read_text(encoding="utf-8"))
    assert record["setting"] == "fine-tuned" and record["paper"]["Wikiformer"] == {"nDCG@5": 0.7722, "nDCG@15": 0.8073}
    collection = load_collection(str(folder))
    run = read_trec_run(out / "mine.run")
    labels = {query: collection.qrels[query] for query in run}
    mine = record["this_run"]["mine"]
    assert mine["LeCaRD-nDCG@5"] == pytest.approx(lecard_ndcg_mean(run, labels, 5))
    assert mine["LeCaRD-nDCG@15"] == pytest.approx(mine["nDCG@15"])  # 30 labels a query here: the rules agree
    table = (out / "paper-table.md").read_text(encoding="utf-8")
    assert "| | model | N@5 | N@15 | LeCaRD-nDCG@5 | LeCaRD-nDCG@15 |" in table
    assert "| paper | Wikiformer | 0.7722 | 0.8073 |  |  |" in table
