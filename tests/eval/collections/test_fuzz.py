"""Every collection reader, and a whole folder load, on damaged copies of the vendored real collections (see
tests/fuzzing.py): truncated, with random bytes spliced in, re-encoded, empty. A reader returns what it read or
raises CollectionFormatError naming the file, never another exception."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.eval.conftest import CRANFIELD_MINI, DL20_MINI, LISA_MINI, NPL_MINI
from tests.fuzzing import CASES, FUZZ_SETTINGS, damaged
from wikiformer_kit.eval.collections import (
    CollectionFormatError,
    load_collection,
    read_rankllm_candidates,
    read_smart_documents,
    read_smart_qrels,
    read_smart_queries,
    read_trec_qrels,
    read_trec_run,
    read_trec_sgml_documents,
    read_trec_topics,
)
from wikiformer_kit.eval.collections.beir import read_beir_qrels_tsv, read_jsonl
from wikiformer_kit.eval.collections.folder import read_msmarco_top1000, read_tsv_documents
from wikiformer_kit.eval.collections.jsonl import read_jsonl_documents, read_jsonl_qrels, read_jsonl_queries
from wikiformer_kit.eval.collections.lisa import read_lisa_documents, read_lisa_qrels, read_lisa_queries


def _first_lines(path: Path, count: int) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:count])


def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()


def _topics() -> dict[str, str]:
    return dict(line.split("\t", 1) for line in (DL20_MINI / "topics.tsv").read_text().splitlines())


def _qrels_rows(count: int) -> list[list[str]]:
    return [line.split() for line in (DL20_MINI / "qrels.txt").read_text().splitlines()[:count]]


def _candidates() -> bytes:
    entries = json.loads((DL20_MINI / "candidates.json").read_text())[:2]
    for entry in entries:
        entry["hits"] = entry["hits"][:5]
    return json.dumps(entries, ensure_ascii=False, indent=1).encode()


# reader -> (file name, real bytes)
SAMPLES = {
    read_trec_qrels: ("qrels.txt", lambda: _first_lines(DL20_MINI / "qrels.txt", 40)),
    read_trec_run: ("bm25.run", lambda: _first_lines(DL20_MINI / "bm25.run", 40)),
    read_trec_topics: ("topics.tsv", lambda: (DL20_MINI / "topics.tsv").read_bytes()),
    read_rankllm_candidates: ("candidates.json", _candidates),
    read_smart_documents: ("cran.all.50", lambda: _first_lines(CRANFIELD_MINI / "cran.all.50", 120)),
    read_smart_queries: ("cran.qry", lambda: (CRANFIELD_MINI / "cran.qry").read_bytes()),
    read_smart_qrels: ("cranqrel", lambda: (CRANFIELD_MINI / "cranqrel").read_bytes()),
    read_trec_sgml_documents: ("doc-text.trec", lambda: _first_lines(NPL_MINI / "doc-text.trec", 60)),
    read_tsv_documents: (
        "collection.tsv",
        lambda: "".join(f"{d}\t{t}\n" for d, t in read_trec_sgml_documents(NPL_MINI / "doc-text.trec").items())[
            :6000
        ].encode(),
    ),
    read_beir_qrels_tsv: (
        "test.tsv",
        lambda: (
            "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{g}\n" for q, _, d, g in _qrels_rows(40))
        ).encode(),
    ),
    read_msmarco_top1000: (
        "top1000.dev",
        lambda: "".join(
            f"{h['qid']}\t{h['docid']}\t{e['query']}\t{h['content']}\n"
            for e in json.loads(_candidates())
            for h in e["hits"]
        ).encode(),
    ),
    read_jsonl_queries: ("queries.jsonl", lambda: _jsonl([{"query_id": q, "text": t} for q, t in _topics().items()])),
    read_jsonl_documents: (
        "docs.jsonl",
        lambda: _jsonl(
            [
                {"id": d, "contents": t}
                for d, t in list(read_trec_sgml_documents(NPL_MINI / "doc-text.trec").items())[:8]
            ]
        ),
    ),
    read_jsonl_qrels: (
        "qrels.jsonl",
        lambda: _jsonl([{"query_id": q, "doc_id": d, "relevance": int(g)} for q, _, d, g in _qrels_rows(30)]),
    ),
    read_lisa_documents: ("LISA5.627", lambda: (LISA_MINI / "LISA5.627").read_bytes()),
    read_lisa_queries: ("LISA.QUE", lambda: (LISA_MINI / "LISA.QUE").read_bytes()),
    read_lisa_qrels: ("LISARJ.NUM", lambda: (LISA_MINI / "LISARJ.NUM").read_bytes()),
}
ORIGINALS = {reader: load() for reader, (_, load) in SAMPLES.items()}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def read_or_refuse(read, path: Path):
    """The reader's result, or the CollectionFormatError it raised (which must name the file)."""
    try:
        return read(path)
    except CollectionFormatError as error:
        assert str(path) in str(error), error
        return error


@pytest.mark.parametrize("read", list(SAMPLES), ids=lambda r: r.__name__)
def test_the_undamaged_samples_are_read(read, workdir):
    name, _ = SAMPLES[read]
    path = workdir / f"ok-{read.__name__}" / name
    path.parent.mkdir()
    path.write_bytes(ORIGINALS[read])
    result = read(path)
    assert result and not isinstance(result, CollectionFormatError)


@pytest.mark.parametrize("read", list(SAMPLES), ids=lambda r: r.__name__)
@FUZZ_SETTINGS
@given(data=st.data())
def test_damaged_files_are_read_or_refused_by_name(read, workdir, data):
    damage = data.draw(damaged(ORIGINALS[read]), label="damage")
    name, _ = SAMPLES[read]
    path = workdir / uuid.uuid4().hex / name
    path.parent.mkdir()
    path.write_bytes(damage.data)
    CASES[read.__name__] += 1
    read_or_refuse(read, path)


FOLDERS = {"dl20-mini": DL20_MINI, "cranfield-mini": CRANFIELD_MINI, "npl-mini": NPL_MINI, "lisa-mini": LISA_MINI}


@pytest.mark.parametrize("folder", sorted(FOLDERS))
@FUZZ_SETTINGS
@given(data=st.data())
def test_a_folder_with_one_damaged_file_loads_or_is_refused_by_name(folder, workdir, data):
    source = FOLDERS[folder]
    files = sorted(p.name for p in source.iterdir() if p.is_file() and p.stat().st_size < 200_000)
    victim = data.draw(st.sampled_from(files), label="file")
    damage = data.draw(damaged((source / victim).read_bytes()), label="damage")
    target = workdir / uuid.uuid4().hex / folder
    shutil.copytree(source, target)
    (target / victim).write_bytes(damage.data)
    CASES[f"folder {folder}"] += 1
    try:
        collection = load_collection(str(target))
    except CollectionFormatError as error:
        assert str(target) in str(error), error
        return
    assert collection.queries or collection.documents or collection.qrels or collection.runs


def test_jsonl_lines_that_are_not_objects_are_named(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"query_id": "1", "text": "a"}\n[1, 2]\n')
    with pytest.raises(CollectionFormatError, match=r"q.jsonl:2: expected a JSON object"):
        read_jsonl(path, ())


def test_zz_cases_were_run():
    """Runs last in this module: the count of damaged cases (printed with ``-s``)."""
    print(f"\ncollection reader fuzz cases: {dict(CASES)} ({sum(CASES.values())} in all)")
