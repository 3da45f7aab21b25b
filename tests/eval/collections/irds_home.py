"""A local ``IR_DATASETS_HOME`` made of the vendored samples, laid out where ir_datasets looks for its files, so
that the real ir_datasets reads ``cranfield`` and ``msmarco-passage/trec-dl-2020`` with no network.

ir_datasets downloads a file only when the path it caches it under is absent, and checks a file's MD5 only while
downloading it: a file placed at that path is read as it is (ir_datasets' own advice for a local copy). So:

* ``cranfield/cran.tar.gz``: the archive the Glasgow site serves, with the sample's files under the names it holds
  (``cran.all.1400``, ``cran.qry``, ``cranqrel``);
* ``msmarco-passage/``: ``collection.tsv`` (the passages of the rank_llm BM25 top 30 of the sample's 10 queries;
  ``irds_version.txt`` says it is the re-encoded v2 file), ``trec-dl-2020/queries.tsv.gz``, ``trec-dl-2020/qrels``
  (NIST's judgments of those queries) and ``trec-dl-2020/ms.run`` (the candidates as MS MARCO's top-1000 file lists
  them: query and passage ids, no scores).

``IR_DATASETS_SKIP_DISK_FREE=true`` (an ir_datasets setting) is needed too: building the MS MARCO docstore checks
for the 14 GB the whole corpus takes.
"""

from __future__ import annotations

import gzip
import json
import tarfile
from pathlib import Path

from tests.eval.conftest import CRANFIELD_MINI, DL20_MINI

CRANFIELD_FILES = {"cran.all.1400": "cran.all.50", "cran.qry": "cran.qry", "cranqrel": "cranqrel"}
"""Name in Glasgow's ``cran.tar.gz`` -> the vendored sample's file."""


def environment(home: Path) -> dict[str, str]:
    """The environment variables that make ir_datasets read ``home`` and nothing else."""
    return {"IR_DATASETS_HOME": str(home), "IR_DATASETS_SKIP_DISK_FREE": "true", "IR_DATASETS_DL_TRIES": "1"}


def write_cranfield(home: Path) -> None:
    """``home/cranfield/cran.tar.gz`` holding the Cranfield sample."""
    folder = home / "cranfield"
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(folder / "cran.tar.gz", "w:gz") as archive:
        for name, sample in CRANFIELD_FILES.items():
            archive.add(CRANFIELD_MINI / sample, arcname=name)


def write_trec_dl_2020(home: Path) -> None:
    """``home/msmarco-passage/``: the TREC DL 2020 sample as ir_datasets caches MS MARCO passage's files."""
    folder = home / "msmarco-passage"
    (folder / "trec-dl-2020").mkdir(parents=True, exist_ok=True)
    passages, run_lines = {}, []
    for entry in json.loads((DL20_MINI / "candidates.json").read_text(encoding="utf-8")):
        for hit in entry["hits"]:
            passages[hit["docid"]] = " ".join(hit["content"].split())
            run_lines.append(f"{hit['qid']}\t{hit['docid']}\n")
    (folder / "irds_version.txt").write_text("v2")
    (folder / "collection.tsv").write_text(
        "".join(f"{pid}\t{passages[pid]}\n" for pid in sorted(passages, key=int)), encoding="utf-8"
    )
    with gzip.open(folder / "trec-dl-2020" / "queries.tsv.gz", "wt", encoding="utf-8") as queries:
        queries.write((DL20_MINI / "topics.tsv").read_text(encoding="utf-8"))
    (folder / "trec-dl-2020" / "qrels").write_text((DL20_MINI / "qrels.txt").read_text(encoding="utf-8"))
    (folder / "trec-dl-2020" / "ms.run").write_text("".join(run_lines))
