"""WIKIR collections as one NanoBEIR-layout dataset: the layout re-rankers are compared in (sentence-transformers'
NanoBEIR evaluators, ``python -m eval nanobeir --data``), one set per language.

A set is ``size`` queries of a WIKIR build's test split, drawn with a seed among those with a positive judgment and
a BM25 ranking; its documents are their judged documents and their BM25 top ``depth`` (the kit's BM25 over the whole
WIKIR corpus, as the build ranked them), so that BM25 over the set's corpus ranks them the same. The dataset has the
subsets ``corpus`` (``_id``, ``text``), ``queries`` (``_id``, ``text``), ``qrels`` (``query-id``, ``corpus-id``) and
``bm25`` (``query-id``, ``corpus-ids``, best first), each with one split per set (``NanoWIKIR_en``), a card that
says how it was made, and an ``eval.yaml`` that declares it a benchmark (a task per set).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from huggingface_hub import DatasetCard

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.eval.collections import load_collection
from wikiformer_kit.eval.collections.trec import ranked

SUBSETS = {
    "corpus": pa.schema([("_id", pa.string()), ("text", pa.string())]),
    "queries": pa.schema([("_id", pa.string()), ("text", pa.string())]),
    "qrels": pa.schema([("query-id", pa.string()), ("corpus-id", pa.string())]),
    "bm25": pa.schema([("query-id", pa.string()), ("corpus-ids", pa.list_(pa.string()))]),
}


def is_wikir_dir(path: str | Path) -> bool:
    """Whether ``path`` is a built WIKIR collection (its test split's TREC folder and its corpus)."""
    return (Path(path) / "test" / "qrels.txt").is_file() and (Path(path) / "corpus").is_dir()


def wikir_language(folder: Path) -> str:
    """The language a WIKIR build's card declares."""
    language = DatasetCard.load(folder / "README.md").data.language
    language = language[0] if isinstance(language, list) and language else language
    if not isinstance(language, str) or not language:
        raise ValueError(f"{folder}/README.md: names no language; a WIKIR build's card does")
    return language


def set_name(language: str) -> str:
    """The split of a language's set: ``NanoWIKIR_en``, ``NanoWIKIR_zh_yue`` (``datasets`` allows no dash in a
    split's name)."""
    return "NanoWIKIR_" + re.sub(r"\W", "_", language)


def nano_set(folder: Path, size: int, seed: int, depth: int = 100) -> dict[str, list[dict]]:
    """One set's rows per subset, from the test split of the WIKIR build in ``folder``."""
    test = load_collection(str(folder / "test"))
    if "bm25" not in test.runs:
        raise ValueError(f"{folder}/test: no bm25.run; export a folder written by the WIKIR build")
    run = test.runs["bm25"]
    eligible = sorted(q for q in test.queries if q in run and any(g > 0 for g in test.qrels.get(q, {}).values()))
    if not eligible:
        raise ValueError(f"{folder}/test: no query has a positive judgment and a BM25 ranking")
    chosen = sorted(random.Random(seed).sample(eligible, min(size, len(eligible))))
    texts = {}
    for path in sorted((folder / "corpus").glob("*.parquet")):
        table = pq.read_table(path, columns=["_id", "text"])
        texts.update(zip(table.column("_id").to_pylist(), table.column("text").to_pylist(), strict=True))
    rows: dict[str, list[dict]] = {subset: [] for subset in SUBSETS}
    documents: set[str] = set()
    for query_id in chosen:
        top = [doc for doc, _ in ranked(run[query_id])[:depth]]
        positives = sorted(doc for doc, grade in test.qrels[query_id].items() if grade > 0)
        rows["queries"].append({"_id": query_id, "text": test.queries[query_id]})
        rows["qrels"] += [{"query-id": query_id, "corpus-id": doc} for doc in positives]
        rows["bm25"].append({"query-id": query_id, "corpus-ids": top})
        documents.update(top, positives)
    missing = sorted(doc for doc in documents if doc not in texts)
    if missing:
        raise ValueError(f"{folder}/corpus: lacks documents the test split names, e.g. {missing[:3]}")
    rows["corpus"] = [{"_id": doc, "text": texts[doc]} for doc in sorted(documents)]
    return rows


def export_nano(folders: list[Path], output_dir: Path, size: int, seed: int = 42, depth: int = 100) -> dict:
    """Write the NanoBEIR-layout dataset of the WIKIR builds in ``folders`` (one set each, by language) to
    ``output_dir``; returns ``{split: {"queries": n, "documents": m}}``."""
    sets: dict[str, dict[str, list[dict]]] = {}
    for folder in folders:
        language = wikir_language(Path(folder))
        split = set_name(language)
        if split in sets:
            raise ValueError(f"{folder}: a second WIKIR build in {language!r}; one set a language")
        sets[split] = nano_set(Path(folder), size, seed, depth)
    output_dir = Path(output_dir)
    for split, rows in sets.items():
        for subset, schema in SUBSETS.items():
            table = pa.Table.from_pylist(rows[subset], schema=schema)
            atomic_write(output_dir / subset / f"{split}.parquet", lambda tmp, table=table: pq.write_table(table, tmp))
    summary = {
        split: {"queries": len(rows["queries"]), "documents": len(rows["corpus"])} for split, rows in sets.items()
    }
    for name, text in (("README.md", card(summary, size, seed, depth)), ("eval.yaml", eval_yaml(list(summary)))):
        atomic_write(output_dir / name, lambda tmp, text=text: tmp.write_text(text, encoding="utf-8"))
    return summary


def eval_yaml(splits: list[str]) -> str:
    """The benchmark declaration (the Hub's ``eval.yaml``): a task per set, on its queries."""
    declaration = {
        "name": "NanoWIKIR",
        "description": "Re-ranking the BM25 top 100 of WIKIR queries (Wikipedia's own links as judgments), a set per "
        "language, in the NanoBEIR layout; the figure is nDCG@10 as sentence-transformers' NanoBEIR evaluators "
        "compute it.",
        "evaluation_framework": "sentence-transformers",
        "tasks": [{"id": split, "config": "bm25", "split": split} for split in splits],
    }
    return yaml.safe_dump(declaration, sort_keys=False, allow_unicode=True)


def card(summary: dict, size: int, seed: int, depth: int) -> str:
    """The dataset card: configs per subset and split, licence and attribution, how the sets were drawn."""
    configs = [
        {"config_name": subset, "data_files": [{"split": s, "path": f"{subset}/{s}.parquet"} for s in summary]}
        for subset in SUBSETS
    ]
    languages = sorted(split[len("NanoWIKIR_") :].replace("_", "-") for split in summary)
    header = {
        "configs": configs,
        "language": languages,
        "license": "cc-by-sa-4.0",
        "task_categories": ["text-ranking", "text-retrieval"],
        "tags": ["wikir", "nanobeir", "reranking", "benchmark", "wikiformer"],
        "pretty_name": "NanoWIKIR",
    }
    rows = "\n".join(f"| `{s}` | {n['queries']} | {n['documents']} |" for s, n in summary.items())
    return f"""---
{yaml.safe_dump(header, sort_keys=False, allow_unicode=True).strip()}
---

# NanoWIKIR

WIKIR ad-hoc retrieval collections (queries from Wikipedia articles, judgments from Wikipedia's own links; Frej et
al., LREC 2020) in the NanoBEIR layout that re-rankers are compared in, one set per language, made by the Wikiformer
kit from its WIKIR builds.

| set (split) | queries | documents |
|---|---:|---:|
{rows}

Each set is {size} queries of its WIKIR build's test split, drawn with seed {seed} among those with a positive
judgment; its documents are their judged documents and their BM25 top {depth} (the kit's BM25 over the whole WIKIR
corpus; the `bm25` subset keeps that order, so BM25 over this corpus ranks them the same). Subsets: `corpus`
(`_id`, `text`), `queries` (`_id`, `text`), `qrels` (`query-id`, `corpus-id`), `bm25` (`query-id`, `corpus-ids`).
`eval.yaml` declares each set a task.

```bash
python -m eval nanobeir MODEL --data THIS_DATASET      # every set; --sets NanoWIKIR_en for one
```

Text: Wikipedia, © Wikipedia contributors, licensed CC BY-SA 4.0 (older revisions CC BY-SA 3.0); this dataset is
shared under the same licence.
"""
