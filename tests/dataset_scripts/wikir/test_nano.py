"""WIKIR builds of two languages as one NanoBEIR-layout dataset: pushed to the local test Hub, evaluated by
``python -m eval nanobeir --data ID`` and by sentence-transformers' CrossEncoderRerankingEvaluator fed as docs/wikir.md
says, with equal figures."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
import yaml

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT, SAMPLES
from tests.dataset_scripts.hub.pushed import check_pushed_dataset
from tests.eval.conftest import save_tiny_ranker
from wikiformer_kit.dataset_scripts.wikir.nano import export_nano
from wikiformer_kit.eval.hub_results import check_eval_results

RELAXED = ["--min-links", "1", "--validation-size", "10", "--test-size", "5", "--bm25-k", "20"]


def wikir(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "dataset_scripts.wikir", *args]
    result = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """The English and Latgalian samples built as WIKIR collections (relaxed for their size)."""
    folder = tmp_path_factory.mktemp("wikir")
    for name, dump in (("en", ENWIKI_SAMPLE), ("ltg", SAMPLES / "wikipedia" / "ltgwiki-sample.xml.bz2")):
        wikir("--input", str(dump), "--output-dir", str(folder / name), *RELAXED)
    return [folder / "en", folder / "ltg"]


def docs_snippet() -> str:
    text = (PROJECT_ROOT / "docs" / "wikir.md").read_text(encoding="utf-8")
    [block] = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "CrossEncoderRerankingEvaluator" in b]
    return block


def test_a_set_per_language_with_its_judged_and_bm25_documents(builds, tmp_path):
    summary = export_nano(builds, tmp_path / "nano", size=3, seed=7)
    assert list(summary) == ["NanoWIKIR_en", "NanoWIKIR_ltg"]
    for split, counts in summary.items():
        tables = {
            s: pq.read_table(tmp_path / "nano" / s / f"{split}.parquet").to_pylist()
            for s in ("corpus", "qrels", "bm25")
        }
        corpus = {row["_id"] for row in tables["corpus"]}
        assert counts["queries"] == 3 == len(tables["bm25"])
        assert {row["corpus-id"] for row in tables["qrels"]} <= corpus
        assert {doc for row in tables["bm25"] for doc in row["corpus-ids"]} <= corpus and len(corpus) == counts[
            "documents"
        ]
    again = export_nano(builds, tmp_path / "again", size=3, seed=7)
    assert (
        again == summary
        and (tmp_path / "again" / "bm25" / "NanoWIKIR_en.parquet").read_bytes()
        == (tmp_path / "nano" / "bm25" / "NanoWIKIR_en.parquet").read_bytes()
    )  # the same draw for the same seed
    declared = yaml.safe_load((tmp_path / "nano" / "eval.yaml").read_text())
    assert [task["id"] for task in declared["tasks"]] == list(summary)
    with pytest.raises(ValueError, match="one set a language"):
        export_nano([builds[0], builds[0]], tmp_path / "twice", size=3)


@pytest.mark.slow
def test_eval_nanobeir_and_the_docs_lines_agree_through_the_hub(builds, hub, tmp_path):
    env = hub.env(tmp_path / "home_publisher")
    pushed = wikir("--nano", "5", "--input", *map(str, builds), "--output-dir", str(tmp_path / "nano"),
                   "--push-to-hub", "ns", "--repo-name", "NanoWIKIR", env=env)  # fmt: skip
    assert "NanoWIKIR_en" in pushed.stdout and "pushed" in pushed.stdout
    seen = check_pushed_dataset("ns/NanoWIKIR", hub.env(tmp_path / "home_viewer"))
    assert sorted(seen["rows"]) == sorted(
        f"{s}/NanoWIKIR_{lang}" for s in ("bm25", "corpus", "qrels", "queries") for lang in ("en", "ltg")
    )
    model = save_tiny_ranker(tmp_path / "ranker", initializer_range=0.2)

    user = {**hub.env(tmp_path / "home_user"), "PYTHONPATH": str(PROJECT_ROOT)}
    command = [sys.executable, "-m", "eval", "nanobeir", str(model), "--data", "ns/NanoWIKIR", "--output-dir", "out"]
    result = subprocess.run(command, cwd=tmp_path, env=user, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    ours = json.loads((tmp_path / "out" / "nanobeir.json").read_text())
    assert ours["sets"] == ["NanoWIKIR_en", "NanoWIKIR_ltg"]
    for path in (tmp_path / "out" / ".eval_results").glob("*.yaml"):
        check_eval_results(path)
        assert {entry["dataset"]["id"] for entry in yaml.safe_load(path.read_text())} == {"ns/NanoWIKIR"}

    for split in ("NanoWIKIR_en", "NanoWIKIR_ltg"):
        code = docs_snippet().replace(
            '"NS/NanoWIKIR", "NanoWIKIR_en", "NS/wikiformer"', f'"ns/NanoWIKIR", "{split}", {str(model)!r}'
        )
        code += "\nimport json\nprint(json.dumps({k: float(v) for k, v in figures.items()}))\n"
        theirs = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=user, capture_output=True, text=True)
        assert theirs.returncode == 0, theirs.stderr[-3000:]
        figures = json.loads(theirs.stdout.strip().splitlines()[-1])
        for key in ("ndcg@10", "mrr@10", "map"):
            assert ours["results"][f"{split}_R100_{key}"] == pytest.approx(figures[f"{split}_R100_{key}"], abs=1e-6)
