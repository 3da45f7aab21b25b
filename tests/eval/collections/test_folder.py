"""Folders as users bring them: real layouts of other tools, every file read or named, ambiguities refused."""

from __future__ import annotations

import io
import json
import logging
import shutil
import tarfile
import zipfile

import pytest

from tests.eval.conftest import CRANFIELD_MINI, DL20_MINI
from wikiformer_kit.eval.collections import CollectionFormatError, load_collection
from wikiformer_kit.eval.collections.smart import read_smart_documents
from wikiformer_kit.eval.collections.sniff import LAYOUTS
from wikiformer_kit.eval.first_stage import first_stage_run
from wikiformer_kit.eval.metrics import RunMismatchError, evaluate_run

# Anserini's qrels.dl19-passage.txt, first lines as distributed (tools/topics-and-qrels), and its topics layout
ANSERINI_QRELS = "19335 Q0 1017759 0\n19335 Q0 1082489 0\n19335 Q0 109063 0\n19335 Q0 1160863 0\n"
ANSERINI_TOPICS = "19335\tanthropological definition of environment\n"


def dl20_without_metadata(tmp_path):
    folder = tmp_path / "dl20"
    shutil.copytree(DL20_MINI, folder)
    (folder / "collection.json").unlink()
    return folder


def test_anserini_q0_qrels_are_judgments(tmp_path):
    (tmp_path / "qrels.dl19-passage.txt").write_text(ANSERINI_QRELS)
    (tmp_path / "topics.dl19-passage.txt").write_text(ANSERINI_TOPICS)
    (tmp_path / "run.msmarco-v1-passage.bm25-default.topics.dl19-passage.txt").write_text(
        "19335 Q0 1017759 1 11.1 Anserini\n19335 Q0 109063 2 10.5 Anserini\n"
    )
    collection = load_collection(str(tmp_path))
    assert collection.judged_query_ids() == ["19335"]
    assert collection.qrels["19335"] == {"1017759": 0, "1082489": 0, "109063": 0, "1160863": 0}
    assert list(collection.runs) == ["run.msmarco-v1-passage.bm25-default.topics.dl19-passage"]


def test_dl_folder_without_collection_json_defaults_to_level_2(tmp_path):
    folder = dl20_without_metadata(tmp_path)
    collection = load_collection(str(folder))
    assert collection.name == "dl20" and collection.relevance_level == 2
    assert "TREC DL-style grades 0-3" in collection.relevance_source
    stated = load_collection(str(DL20_MINI))
    run = collection.runs["bm25"]
    rr = evaluate_run(run, collection.qrels, ["RR@10"], collection.relevance_level).means()["RR@10"]
    assert rr == evaluate_run(run, stated.qrels, ["RR@10"], stated.relevance_level).means()["RR@10"]
    at_one = evaluate_run(run, collection.qrels, ["RR@10"], 1).means()["RR@10"]
    assert at_one > rr  # the silent level-1 number the issue reported
    assert load_collection(str(folder), relevance_level=1).relevance_source == "from --relevance-level"


def test_cli_prints_the_level_and_records_it(tmp_path):
    from wikiformer_kit.eval.cli import main

    folder = dl20_without_metadata(tmp_path)
    out = tmp_path / "cmp"
    args = ["compare", f"bm25={folder / 'bm25.run'}", "--collection", str(folder), "--output-dir", str(out)]
    assert main([*args, "--measures", "RR@10", "AP"]) == 0
    assert json.loads((out / "comparison.json").read_text())["relevance_level"] == 2
    assert "Binary measures count grades >= 2 as relevant." in (out / "table.md").read_text()
    assert json.loads((out / "metrics.json").read_text())["bm25"]["relevance_level"] == 2


def test_cli_prints_the_level_and_why(tmp_path, capsys):
    from wikiformer_kit.eval.cli import main

    folder = dl20_without_metadata(tmp_path)
    main(["first-stage", "--collection", str(folder), "--method", "given", "--output", str(tmp_path / "r.trec")])
    assert "grades >= 2 as relevant (TREC DL-style grades 0-3" in capsys.readouterr().err


def write_sgml_copy(documents: dict[str, str], path, prefix: str = "") -> None:
    path.write_text(
        "".join(f"<DOC>\n<DOCNO>{prefix}{d}</DOCNO>\n<TEXT>\n{t}\n</TEXT>\n</DOC>\n" for d, t in documents.items())
    )


def test_smart_folder_with_a_trec_sgml_copy_is_refused_with_the_choices(tmp_path):
    folder = tmp_path / "cran"
    shutil.copytree(CRANFIELD_MINI, folder)
    write_sgml_copy(read_smart_documents(CRANFIELD_MINI / "cran.all.50"), folder / "cran.trec", prefix="CRAN-")
    with pytest.raises(CollectionFormatError) as error:
        load_collection(str(folder))
    message = str(error.value)
    assert "documents in 2 formats" in message and "smart: ['cran.all.50']" in message
    assert "trec-sgml: ['cran.trec']" in message
    # only the choice whose ids the qrels use is offered: the SGML copy's CRAN-1... would score zeros
    assert f"--collection smart:{folder}" in message and f"--collection trec-sgml:{folder}" not in message
    assert "(trec-sgml: not offered, the qrels judge none of its documents)" in message
    smart = load_collection(f"smart:{folder}")
    assert len(smart.documents) == 50 and smart.documents == load_collection(str(CRANFIELD_MINI)).documents
    # loaded on purpose, the copy whose ids the qrels never use is named, and any run of it is refused when scored
    sgml = load_collection(f"trec-sgml:{folder}")
    run = first_stage_run(sgml, "bm25", 10, list(sgml.queries))
    with pytest.raises(RunMismatchError, match="the qrels judge none of the collection's documents"):
        evaluate_run(run, sgml.qrels, source="bm25", documents=set(sgml.documents))


def test_the_offered_choice_is_the_one_whose_ids_the_qrels_use(tmp_path):
    # the reported layout: qrels in the TREC copy's ids (MED-1...) beside a SMART original with plain ids
    folder = tmp_path / "cran"
    shutil.copytree(CRANFIELD_MINI, folder)
    write_sgml_copy(read_smart_documents(CRANFIELD_MINI / "cran.all.50"), folder / "cran.trec", prefix="CRAN-")
    lines = (CRANFIELD_MINI / "cranqrel").read_text().splitlines()
    (folder / "cranqrel").write_text(
        "".join(f"{q} 0 CRAN-{d} {g}\n" for q, d, g in (line.split()[:3] for line in lines))
    )
    with pytest.raises(CollectionFormatError) as error:
        load_collection(str(folder))
    message = str(error.value)
    assert f"--collection trec-sgml:{folder}" in message and f"--collection smart:{folder}" not in message
    sgml = load_collection(f"trec-sgml:{folder}")
    judged = {d for docs in sgml.qrels.values() for d in docs}
    assert len(judged & set(sgml.documents)) == 10  # the mini corpus holds 10 of the 59 judged documents
    # neither choice matches: none is offered, and the message says why
    (folder / "cranqrel").write_text("1 0 OTHER-1 2\n")
    with pytest.raises(CollectionFormatError, match="none holds the documents the qrels judge") as error:
        load_collection(str(folder))
    assert "--collection" not in str(error.value)


def test_two_copies_in_one_format_are_refused(tmp_path):
    documents = read_smart_documents(CRANFIELD_MINI / "cran.all.50")
    (tmp_path / "collection.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in documents.items()))
    (tmp_path / "docs-copy.tsv").write_text("".join(f"X{d}\t{t}\n" for d, t in documents.items()))
    (tmp_path / "queries.tsv").write_text("1\tslipstream\n")
    with pytest.raises(CollectionFormatError, match=r"document ids in different schemes") as error:
        load_collection(str(tmp_path))
    assert f"--collection trec:{tmp_path / 'collection.tsv'}," in str(error.value)
    (tmp_path / "docs-copy.tsv").write_text("".join(f"{int(d) + 1000}\t{t}\n" for d, t in documents.items()))
    with pytest.raises(CollectionFormatError, match=r"50 texts of collection.tsv repeat in docs-copy.tsv"):
        load_collection(str(tmp_path))
    chosen = load_collection(f"trec:{tmp_path / 'collection.tsv'},{tmp_path / 'queries.tsv'}")
    assert len(chosen.documents) == 50 and chosen.queries == {"1": "slipstream"}


def test_topics_and_queries_tsv_are_ambiguous(tmp_path):
    (tmp_path / "topics.tsv").write_text("1\tfirst\n")
    (tmp_path / "queries.tsv").write_text("1\tother\n")
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n")
    with pytest.raises(CollectionFormatError, match=r"several query files \['queries.tsv', 'topics.tsv'\]") as error:
        load_collection(str(tmp_path))
    assert f"--collection trec:{tmp_path / 'qrels.txt'},{tmp_path / 'queries.tsv'}" in str(error.value)


def test_unrecognised_files_are_named(tmp_path, caplog):
    shutil.copytree(DL20_MINI, tmp_path / "c")
    (tmp_path / "c" / "notes.txt").write_text("BM25 run from last week, see the wiki\n")
    (tmp_path / "c" / "empty.tsv").write_text("")
    (tmp_path / "c" / "old").mkdir()
    with caplog.at_level(logging.WARNING):
        load_collection(str(tmp_path / "c"))
    assert "notes.txt: not read: no known layout" in caplog.text
    assert "empty.tsv: not read: empty file" in caplog.text and "old: not read (a subfolder" in caplog.text
    with pytest.raises(CollectionFormatError, match="notes.txt: not a collection file"):
        load_collection(f"trec:{tmp_path / 'c' / 'qrels.txt'},{tmp_path / 'c' / 'notes.txt'}")


def test_ir_datasets_and_pyserini_jsonl_and_msmarco_tsv(tmp_path):
    (tmp_path / "docs.jsonl").write_text(
        json.dumps({"doc_id": "D1", "url": "u", "title": "Wiki", "body": "A wiki is a site."}) + "\n"
    )
    (tmp_path / "queries.jsonl").write_text(json.dumps({"query_id": "1", "text": "what is a wiki"}) + "\n")
    (tmp_path / "qrels.jsonl").write_text(
        json.dumps({"query_id": "1", "doc_id": "D1", "relevance": 1, "iteration": "0"}) + "\n"
    )
    collection = load_collection(str(tmp_path))
    assert collection.documents == {"D1": "Wiki A wiki is a site."} and collection.qrels == {"1": {"D1": 1}}
    pyserini = tmp_path / "pyserini"
    pyserini.mkdir()
    (pyserini / "part0.jsonl").write_text(json.dumps({"id": "7", "contents": "passage text"}) + "\n")
    (pyserini / "queries.dev.small.tsv").write_text("1\tquery\n")
    (pyserini / "qrels.dev.small.tsv").write_text("1\t0\t7\t1\n")
    (pyserini / "run.dev.small.tsv").write_text("1\t7\t1\n1\t8\t2\n1\t9\t3\n")
    collection = load_collection(str(pyserini))
    assert collection.documents == {"7": "passage text"} and list(collection.runs["run.dev.small"]["1"]) == list("789")
    marco = tmp_path / "marco"
    marco.mkdir()
    (marco / "msmarco-docs.tsv").write_text("D1\thttp://x.org/\tTitle\tBody text\n")
    assert load_collection(f"trec:{marco}").documents == {"D1": "Title Body text"}


def test_archives_are_read_or_refused(tmp_path, caplog):
    archive = tmp_path / "cran.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(CRANFIELD_MINI, arcname="cranfield")
    from_archive = load_collection(str(archive))
    assert from_archive.name == "cran" and len(from_archive.documents) == 50 and len(from_archive.qrels) == 5
    folder = tmp_path / "only-archive"
    folder.mkdir()
    with zipfile.ZipFile(folder / "cran.zip", "w") as zipped:
        for path in CRANFIELD_MINI.iterdir():
            zipped.write(path, path.name)
    assert len(load_collection(str(folder)).documents) == 50
    shutil.copytree(CRANFIELD_MINI, tmp_path / "both")
    shutil.copy(archive, tmp_path / "both")
    with caplog.at_level(logging.WARNING):
        load_collection(str(tmp_path / "both"))
    assert "cran.tar.gz: not read (an archive beside other collection files" in caplog.text
    (tmp_path / "broken.tar.gz").write_bytes(archive.read_bytes()[:300])
    with pytest.raises(CollectionFormatError, match="broken.tar.gz: cannot unpack the archive"):
        load_collection(str(tmp_path / "broken.tar.gz"))
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as zipped:
        zipped.writestr("../outside.txt", "1 0 d 1\n")
    with pytest.raises(CollectionFormatError, match="outside the folder"):
        load_collection(str(evil))


def test_tar_members_outside_the_folder_are_refused(tmp_path):
    archive = tmp_path / "evil.tar"
    with tarfile.open(archive, "w") as tar:
        data = b"1 0 d 1\n"
        member = tarfile.TarInfo("../qrels")
        member.size = len(data)
        tar.addfile(member, io.BytesIO(data))
    with pytest.raises(CollectionFormatError, match="evil.tar: cannot unpack"):
        load_collection(str(archive))
    assert not (tmp_path.parent / "qrels").exists()


def test_msmarco_top1000_candidates_with_texts(tmp_path):
    # MS MARCO's top1000.dev layout: qid, pid, query, passage (unranked BM25 candidates)
    (tmp_path / "top1000.dev").write_text(
        "188714\t1000052\tfoods and supplements to lower blood sugar\tWatch portion sizes.\n"
        "188714\t1000084\tfoods and supplements to lower blood sugar\tCinnamon may help.\n"
    )
    (tmp_path / "qrels.dev.small.tsv").write_text("188714\t0\t1000052\t1\n")
    collection = load_collection(str(tmp_path))
    assert collection.queries == {"188714": "foods and supplements to lower blood sugar"}
    assert collection.documents["1000084"] == "Cinnamon may help."
    assert collection.runs["top1000"] == {"188714": {"1000052": 0.0, "1000084": 0.0}}


def test_a_file_in_no_known_layout_is_refused_listing_the_layouts_read(tmp_path):
    (tmp_path / "notes.txt").write_text("BM25 run from last week, see the wiki\n")
    with pytest.raises(CollectionFormatError, match=r"notes.txt: not a collection file: no known layout") as error:
        load_collection(str(tmp_path / "notes.txt"))
    message = str(error.value)
    assert f"the layouts read: {LAYOUTS}" in message and "TREC qrels" in message and "JSON lines" in message
    assert ".py" not in message


@pytest.mark.parametrize("kept", [0.1, 0.9])  # less than the 8 KB sniffed, or more
def test_a_truncated_compressed_file_is_refused_as_truncated(tmp_path, kept):
    import gzip

    shutil.copytree(DL20_MINI, tmp_path / "c")
    qrels = tmp_path / "c" / "qrels.txt"
    data = gzip.compress(qrels.read_bytes())
    qrels.unlink()
    (tmp_path / "c" / "qrels.txt.gz").write_bytes(data[: int(len(data) * kept)])
    with pytest.raises(CollectionFormatError, match=r"qrels.txt.gz:\d+: cannot be read to the end: truncated or dam"):
        load_collection(str(tmp_path / "c"))
