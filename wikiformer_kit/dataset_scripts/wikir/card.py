"""The dataset card (README.md) of a WIKIR collection: configs for ``load_dataset``, parameters, statistics,
BM25 figures per split, licence and attribution."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.dataset_scripts.corpus.dump_identity import dump_identity
from wikiformer_kit.dataset_scripts.fingerprint import stamped_pattern
from wikiformer_kit.dataset_scripts.wikir.assemble import SPLITS, Collection
from wikiformer_kit.dataset_scripts.wikir.output import MEASURES

METADATA = """language:
- {language}
license: cc-by-sa-4.0
task_categories:
- text-retrieval
task_ids:
- document-retrieval
tags:
- wikir
- wikipedia
"""
PATHS = {"corpus": "corpus/*.parquet", "queries": "queries/*.parquet", "qrels": "qrels/{split}.parquet",
         "triples": "triples/train.parquet"}  # fmt: skip


def front_matter(parts: dict[str, list[str]], language: str, fingerprint: str | None = None) -> str:
    """The YAML header: one config per part with rows (``default`` = the qrels, as MTEB lays them out); the
    patterns name the data files' ``fingerprint`` (:mod:`dataset_scripts.fingerprint`)."""
    lines = ["---", "configs:"]
    for config, source in (("default", "qrels"), ("qrels", "qrels"), ("corpus", "corpus"), ("queries", "queries"),
                           ("triples", "triples")):  # fmt: skip
        if not parts.get(source):
            continue
        lines += [f"- config_name: {config}", "  data_files:"]
        for split in parts[source]:
            lines += [
                f"  - split: {split}",
                f"    path: {stamped_pattern(PATHS[source].format(split=split), fingerprint)}",
            ]
    if len(lines) == 2:
        lines.pop()
    return "\n".join(lines) + "\n" + METADATA.format(language=language or "en") + "---\n"


CITATION = """```bibtex
@inproceedings{frej2020wikir,
  title     = {{WIKIR}: A Python Toolkit for Building a Large-scale {Wikipedia}-based {English} Information Retrieval Dataset},
  author    = {Frej, Jibril and Schwab, Didier and Chevallet, Jean-Pierre},
  booktitle = {Proceedings of the 12th Language Resources and Evaluation Conference (LREC 2020)},
  year      = {2020}
}
```"""

OPTION_ROWS = (
    ("min_length", "articles with fewer words are left out", "-l"),
    ("doc_length", "words kept per document; links count in this many leading words", "-d"),
    ("query_length", "words kept per query", "-q"),
    ("min_links", "linking documents a query needs", "-e"),
    ("first_sentence_links", "only links of the first sentence count", "-f"),
    ("title_queries", "the query is the title (else the first sentence)", "-i"),
    ("skip_first_sentence", "documents lose their first sentence", "-s"),
    ("lowercase", "lower-cased text", "-c"),
    ("keep_non_alphanumeric", "punctuation kept (else non-alphanumerics become spaces)", ""),
    ("validation_size", "validation queries", "-v"),
    ("test_size", "test queries", "-t"),
    ("seed", "seed of the query shuffle", "-r"),
    ("bm25_k", "BM25 documents per query", "-k"),
    ("k1", "BM25 k1", ""),
    ("b", "BM25 b", ""),
    ("stemmer", "Snowball stemmer of the BM25 index and queries", ""),
    ("stopwords", "stopwords of the BM25 index and queries", ""),
    ("train_negatives", "BM25 negatives per training triple", ""),
    ("keep_disambiguation", "disambiguation pages kept as documents", ""),
    ("whole_documents", "documents are whole articles (not cut to doc_length words)", ""),
)


def render_card(collection: Collection, figures: dict[str, Any], info: dict[str, Any]) -> str:
    """The card text. ``info``: ``options`` (dict), ``language``, ``source``, ``command``, ``name``, ``note``,
    ``bm25`` (stemmer and stopwords used), ``triples`` (rows, queries without a negative)."""
    options = info["options"]
    parts = [front_matter(info["parts"], info["language"], info.get("fingerprint")), f"# {info['name']}\n"]
    parts.append(
        "An ad-hoc retrieval test collection built from Wikipedia with the WIKIR method (Frej et al., LREC 2020) "
        f"by `python -m dataset_scripts.wikir` of the Wikiformer kit, from: {info['source']} "
        f"({dump_identity(str(info['source']))}).\n\n"
        "Each query is an article, described by its "
        + ("title" if options["title_queries"] else "first sentence")
        + ". The article itself is relevant with grade 2; every article that links to it "
        + (
            "in its first sentence"
            if options["first_sentence_links"]
            else f"in its first {options['doc_length']} words"
        )
        + f" is relevant with grade 1 (redirects followed). Queries with fewer than {options['min_links']} linking "
        "documents are left out. Documents are the articles' text (without the title"
        + (", without the first sentence" if options["skip_first_sentence"] else "")
        + ("): whole articles" if options.get("whole_documents") else f") cut to {options['doc_length']} words")
        + f"; queries are cut to {options['query_length']} words.\n"
    )
    if info.get("note"):
        parts.append(f"**Note.** {info['note']}\n")
    if not collection.queries:
        parts.append(
            "**This collection has no query: no article qualified** (see the statistics below). Only the parts "
            "with rows are configs (`datasets` cannot load an empty split).\n"
        )
    repo = info.get("repo_id") or "REPO_OR_FOLDER"
    loads = {  # only the configs this build wrote: datasets cannot load an empty split
        "corpus": f'corpus = load_dataset("{repo}", "corpus", split="corpus")      # _id, title (empty), text, article\n',
        "queries": f'queries = load_dataset("{repo}", "queries", split="queries")   # _id, text, article, split\n',
        "qrels": f'qrels = load_dataset("{repo}", "qrels", split="SPLIT")          # query-id, corpus-id, score (2 or 1)\n',
        "triples": f'triples = load_dataset("{repo}", "triples", split="train")     # query, positive, negatives (BM25)\n',
    }
    written = info.get("parts", {})
    qrels_split = "test" if "test" in written.get("qrels", []) else next(iter(written.get("qrels", [])), "test")
    snippet = "".join(line for part, line in loads.items() if written.get(part)).replace("SPLIT", qrels_split)
    parts.append(
        "## Use\n\n```python\nfrom datasets import load_dataset\n\n"
        + (snippet or "# this build is empty: no config has rows to load\n")
        + "```\n\n"
        "The `default` config is the qrels (BEIR/MTEB layout). Each split folder (`train/`, `validation/`, `test/`) "
        "is also a TREC collection: `topics.tsv`, `qrels.txt`, the BM25 run `bm25.run` (top "
        f"{options['bm25_k']}), `bm25.metrics.json`, and for validation and test `candidates.json` (rank_llm "
        "format, with the document texts): `python -m eval rerank --collection test --candidates given ...`. "
        "Document ids and query ids are the Wikipedia page ids; a query's grade-2 document has the query's id.\n"
    )
    parts.append("## Statistics\n\n| | count |\n|---|---:|")
    for split in SPLITS:
        ids = collection.splits[split]
        judgments = sum(len(collection.qrels[q]) for q in ids)
        parts.append(f"| {split} queries (judgments) | {len(ids):,} ({judgments:,}) |")
    parts.append(f"| training triples | {info['triples']['rows']:,} |")
    for key, value in sorted(collection.stats.items()):
        parts.append(f"| {key} | {value:,} |")
    parts.append("")
    if figures:
        parts.append(
            "## BM25\n\nbm25s (Lucene variant), k1 = {k1}, b = {b}, stemmer {stem}, stopwords {stop} (index and queries "
            "alike), top {k}; trec_eval measures through pytrec_eval, grade >= 1 relevant for binary measures.\n".format(
                k1=options["k1"], b=options["b"], k=options["bm25_k"], stem=info["bm25"][0], stop=info["bm25"][1]
            )
        )
        parts.append("| split | queries | " + " | ".join(MEASURES) + " |")
        parts.append("|---|---:|" + "---:|" * len(MEASURES))
        for split, figure in figures.items():
            values = " | ".join(f"{figure['means'][m]:.4f}" for m in MEASURES)
            parts.append(f"| {split} | {figure['retrieved']:,} | {values} |")
        parts.append("")
    parts.append("## Build parameters\n\n| option | value | meaning | original flag |\n|---|---|---|---|")
    for key, meaning, flag in OPTION_ROWS:
        parts.append(f"| `{key}` | {options[key]} | {meaning} | {f'`{flag}`' if flag else ''} |")
    parts.append(f"\nCommand: `{info['command']}`\n")
    parts.append(
        "Differences from the original builder (getalp/wikIR `build_wikIR.py`), on purpose: the BM25 index is "
        "stemmed and stopped like the queries (the original indexes unstemmed text and stems the queries); every "
        "percent-encoding of a link target is decoded (the original decodes only `%20`) and redirects are followed; "
        "letters and digits of every script are kept (the original keeps `[a-zA-Z0-9]`); words are counted on the "
        "plain text (the original counts the link markup of WikiExtractor's output too); sentences are split by the "
        "kit's splitter (the original cuts at the first `. `); disambiguation pages are left out unless "
        "`keep_disambiguation`.\n"
    )
    parts.append(
        "## Licence and attribution\n\nThe text is from Wikipedia, © Wikipedia contributors, licensed CC BY-SA 4.0 "
        "(https://creativecommons.org/licenses/by-sa/4.0/); this derived collection is shared under the same "
        "licence. The method is WIKIR's:\n\n" + CITATION + "\n"
    )
    return "\n".join(parts)


def write_card(root: Path, collection: Collection, figures: dict[str, Any], info: dict[str, Any]) -> None:
    """Write ``README.md`` into the collection folder."""
    (root / "README.md").write_text(as_run(render_card(collection, figures, info)), encoding="utf-8")
