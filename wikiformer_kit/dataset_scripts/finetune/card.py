"""The dataset card (README.md) of a folder of fine-tuning groups, from the run's public statistics."""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import DatasetCard, DatasetCardData

from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.dataset_scripts.tasks.card import size_category

FIRST_STAGES = {"bm25": "BM25 (bm25s)", "dense": "the kit's dense bi-encoder", "given": "the collection's own run"}


def render_card(public: dict, info: dict) -> DatasetCard:
    """The card: what a row is, how the negatives were chosen, the statistics, how to load and train on it.

    Args:
        public: what ``mining_stats.json`` holds (source, kind, part, relevance level, options, statistics).
        info: ``repo_id`` (how users load it), ``command`` (the command that built it), ``license`` (the source's
            licence id, default ``other``), ``terms`` (a sentence on the source's terms).
    """
    stats = public["statistics"]
    groups = stats["counts"].get("groups", 0)
    data = DatasetCardData(
        license=info.get("license") or "other",
        task_categories=["text-retrieval"],
        task_ids=["document-retrieval"],
        size_categories=[size_category(groups)],
        source_datasets=[public["source"]],
        pretty_name=f"Fine-tuning groups from {public['source']}",
        tags=["wikiformer", "information-retrieval", "fine-tuning", "hard-negatives"],
        configs=[{"config_name": "default", "data_files": [{"split": "train", "path": "data/*.parquet"}]}],
    )
    return DatasetCard(f"---\n{data.to_yaml()}\n---\n\n" + "\n".join(_body(public, info)) + "\n")


def write_card(folder: Path, public: dict, info: dict) -> Path:
    """Render the card and save it as ``folder/README.md``; returns its path."""
    path = Path(folder) / "README.md"
    path.write_text(as_run(str(render_card(public, info))), encoding="utf-8")
    return path


def _how(public: dict) -> list[str]:
    o = public["options"]
    if public["kind"] == "triples":
        return [
            "Rows group MS MARCO's triples (`query<TAB>positive<TAB>negative`, one negative a line) by query and "
            "positive: each row holds every distinct negative the file pairs with that positive (copies of the "
            f"positive dropped), at most {o['num_negatives']} of them ({_sampling(o)})."
        ]
    stage = FIRST_STAGES.get(o["first_stage"], f"the run `{o['first_stage']}`")
    part = f" (the `#{public['part']}` part of its queries, `eval/splits.py`)" if public.get("part") else ""
    return [
        f"One row per judged-relevant document of a query of {public['source']}{part}: the query, the document "
        f"(graded >= {public['relevance_level']}) as the `positive`, and as `negatives` up to {o['num_negatives']} "
        f"documents ({_sampling(o)}) from the candidates {stage} ranks {o['min_rank']} to "
        f"{o['max_rank'] or o['depth']} of its top {o['depth']}.",
        "",
        "A negative is never a document judged relevant to the query in any grade (a partly relevant document is "
        "neither a positive nor a negative) and never a document missing from the corpus."
        + (
            f" BM25: k1 {o['k1']}, b {o['b']}, stemmer {o['stemmer']}, stopwords {o['stopwords']}."
            if o["first_stage"] == "bm25"
            else ""
        ),
    ]


def _sampling(options: dict) -> str:
    if options["sampling"] == "top":
        return "the best-ranked ones"
    return f"a draw seeded by seed {options['seed']}, the query and the positive, kept in rank order"


def _body(public: dict, info: dict) -> list[str]:
    o, stats = public["options"], public["statistics"]
    repo_id = info.get("repo_id") or "your-namespace/<name>"
    lines = [f"# Fine-tuning groups from {public['source']}", "", *_how(public), ""]
    if o.get("filter_model"):
        margins = ", ".join(
            f"{name} margin {o[key]}"
            for name, key in (("absolute", "absolute_margin"), ("relative", "relative_margin"))
            if o.get(key) is not None
        )
        lines += [
            f"False negatives filtered: the cross-encoder `{o['filter_model']}` scored each positive and its "
            f"candidates; a candidate scored too close to the positive ({margins}: kept only when "
            "`score <= positive - absolute margin` and `score <= positive - |positive| x relative margin`, as in "
            "sentence-transformers' `mine_hard_negatives`) is not a negative.",
            "",
        ]
    lines += [
        "Columns: `query`, `positive`, `negatives` (the schema `train.py` of the Wikiformer kit trains on: a "
        "softmax cross-entropy over the positive and sampled negatives), then `query_id`, `positive_id`, "
        "`negative_ids`.",
        "",
        "## Loading and training",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'groups = load_dataset("{repo_id}", split="train")',
        "```",
        "",
        "```bash",
        f"python train.py configs/finetune-cranfield-cpu.yaml --train_datasets {repo_id} --task_names finetune",
        "```",
        "",
        "## Build",
        "",
        f"- source: {public['source']}" + (f" (`#{public['part']}`)" if public.get("part") else ""),
    ]
    if info.get("command"):
        lines.append(f"- command: `{info['command']}`")
    lines += [f"- `{key}`: {value}" for key, value in sorted(o.items()) if value is not None]
    n = stats["negatives per group"]
    lines += [
        "",
        "## Statistics",
        "",
        "| | count | mean | min | max |",
        "|---|---|---|---|---|",
        f"| groups | {n['count']} | | | |",
        f"| negatives per group | {n['total']} | {n['total'] / max(n['count'], 1):.1f} | {n['min']} | {n['max']} |",
    ]
    for column, summary in sorted(stats["words"].items()):
        mean = summary["total"] / max(summary["count"], 1)
        lines.append(
            f"| words per `{column}` text | {summary['count']} | {mean:.1f} | {summary['min']} | {summary['max']} |"
        )
    lines += ["", "Counted while mining:", "", "| what | count |", "|---|---|"]
    lines += [f"| {what} | {count} |" for what, count in stats["counts"].items()]
    lines += [
        "",
        "## License and terms",
        "",
        info.get("terms")
        or f"The texts, queries and judgments are those of {public['source']}; its terms of use apply to this dataset.",
        "",
    ]
    return lines
