"""The dataset card (README.md) of a task dataset, written with ``huggingface_hub.DatasetCard``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from huggingface_hub import DatasetCard, DatasetCardData

from ..tasks.registry import FEATURES, FIXED_SIDE, SKIP_REASONS
from ..tasks.stats import TaskStats

TASK_NAMES = {
    "srr": "Simulated Re-ranking (SRR)",
    "rwi": "Representative Words Identification (RWI)",
    "ati": "Abstract Texts Identification (ATI)",
    "ltm": "Long Texts Matching (LTM)",
}

PAIRING = {
    "srr": (
        "For a node F of an article's Wiki Structure Tree (the root, i.e. the article, included) with at least two "
        "children that have text, a child d_i gives the row: `query` = the titles on the path from the article title "
        "down to d_i (joined by spaces; `path` keeps them as a list), `positive` = d_i's own text, `negatives` = the "
        "texts of d_i's siblings. The query is the fixed side; each candidate is scored as `[CLS] query [SEP] "
        "candidate [SEP]`."
    ),
    "rwi": (
        "A section d_i of depth n (its title path has the article title + n subtitles) gives the row: `document` = "
        "d_i's own text, `positive` = its title path (joined by spaces; `path` keeps the list), `negatives` = the "
        "article title + the subtitles of n other sections drawn at random (same length as the positive, never "
        "equal to it). The document is the fixed side and the candidates are queries: each is scored as "
        "`[CLS] candidate [SEP] document [SEP]`."
    ),
    "ati": (
        "`query` = the article title, `positive` = its abstract (the lead text before the first heading), "
        "`negatives` = the texts of the article's sections. The query is the fixed side."
    ),
    "ltm": (
        "For each edge (v_i, v_j) of the See Also Graph (v_j is listed in v_i's See also section; redirects "
        "followed): `query` = v_i's text, `positive` = v_j's text, `negatives` = texts of random articles that are "
        "neither v_i nor linked from v_i's See also section (`negative_titles` names them). The query (a long "
        "text) is the fixed side."
    ),
}

CHOICES = {
    "srr": (
        "With `positives=sample` (the paper) each node F gives one row, d_i drawn with a seeded RNG; with "
        "`positives=all` each child gives a row. A child has text when its own text has at least `min_words` words. "
        "`srr_variant=original` reproduces the original research code instead (first long section at the two "
        "deepest levels vs all other long sections of the article)."
    ),
    "rwi": (
        "Sections without text (fewer than `min_words` words) are not candidates. With `positives=sample` (the "
        "paper) each article gives one row; with `positives=all` each section with text does. Negative queries are "
        "independent draws, deduplicated."
    ),
    "ati": "Sections with fewer than `min_words` words are not negatives; neither is a text equal to the abstract.",
    "ltm": (
        "Links to pages missing from the corpus, self links and repeated links are dropped and counted below; an "
        "article shorter than `min_words` words or a disambiguation page is never a query, positive or negative."
    ),
}

CITATION = """@inproceedings{su2024wikiformer,
  title     = {Wikiformer: Pre-training with Structured Information of Wikipedia for Ad-hoc Retrieval},
  author    = {Su, Weihang and Ai, Qingyao and Li, Xiangsheng and Chen, Jia and Liu, Yiqun and Wu, Xiaolong and Hou, Shengluan},
  booktitle = {Proceedings of the AAAI Conference on Artificial Intelligence},
  year      = {2024},
  note      = {arXiv:2312.10661}
}"""


def size_category(rows: int) -> str:
    """The Hub's size category for a number of rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if rows < limit:
            return name
    return "1M<n<10M" if rows < 10_000_000 else "10M<n<100M"


def render_card(task: str, stats: TaskStats, statistics: dict[str, Any], build_info: dict[str, Any]) -> DatasetCard:
    """The card of one task dataset.

    Args:
        task: ``srr``, ``rwi``, ``ati`` or ``ltm``.
        stats: the task's statistics.
        statistics: build-wide statistics (``articles``, ``see_also``).
        build_info: ``options`` (the TaskOptions dict), ``source`` (dump or corpus name), ``language``, ``repo_id``
            (how users load it), ``command`` (the build command).
    """
    language = build_info.get("language") or "en"
    data = DatasetCardData(
        license="cc-by-sa-4.0",
        language=[language],
        task_categories=["text-retrieval"],
        task_ids=["document-retrieval"],
        size_categories=[size_category(stats.rows)],
        source_datasets=["original"],
        pretty_name=f"Wikiformer {TASK_NAMES[task]} pre-training groups",
        tags=["wikiformer", "wikipedia", "information-retrieval", "pretraining", task],
        configs=[{"config_name": "default", "data_files": [{"split": "train", "path": "data/*.parquet"}]}],
    )
    content = f"---\n{data.to_yaml()}\n---\n\n" + _body(task, stats, statistics, build_info)
    return DatasetCard(content)


def write_card(
    task_dir: Path, task: str, stats: TaskStats, statistics: dict[str, Any], build_info: dict[str, Any]
) -> Path:
    """Render the card and save it as ``task_dir/README.md``; returns its path."""
    path = Path(task_dir) / "README.md"
    render_card(task, stats, statistics, build_info).save(path)
    return path


def _body(task: str, stats: TaskStats, statistics: dict[str, Any], info: dict[str, Any]) -> str:
    repo_id = (info.get("repo_id") or "<namespace>/wikiformer-{task}").format(task=task)
    fixed = FIXED_SIDE[task]
    columns = ", ".join(f"`{c}`" for c in FEATURES[task])
    options = info.get("options", {})
    lines = [
        f"# Wikiformer {TASK_NAMES[task]}",
        "",
        f"Pseudo query-document groups for the {TASK_NAMES[task]} pre-training task of Wikiformer (Su et al., "
        "AAAI 2024), built from Wikipedia with the Wikiformer kit. One row is one training group: the fixed side "
        f"(`{fixed}`), one `positive` and a list of `negatives`; the trainer applies a softmax cross-entropy over "
        "the group.",
        "",
        "## How rows are formed",
        "",
        PAIRING[task],
        "",
        CHOICES[task],
        "",
        f"Columns: {columns}. No text is empty, no negative equals the positive, negatives are distinct.",
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'groups = load_dataset("{repo_id}", split="train")',
        "row = groups[0]",
        f'candidates = [row["positive"], *row["negatives"]]  # scored against row["{fixed}"], positive first',
        "```",
        "",
        "## Build",
        "",
        f"- source: {info.get('source', 'unknown')}",
        f"- articles read: {statistics['articles']}",
    ]
    if info.get("command"):
        lines.append(f"- command: `{info['command']}`")
    lines += [f"- `{key}`: {value}" for key, value in sorted(options.items())]
    if info.get("empty_reason"):
        lines += ["", f"**This dataset is empty**: {info['empty_reason']}."]
    lines += ["", "## Statistics", "", "| | count | mean | min | max |", "|---|---|---|---|---|"]
    lines.append(f"| rows | {stats.rows} | | | |")
    n = stats.negatives
    lines.append(f"| negatives per row | {n.total} | {n.mean:.1f} | {n.min} | {n.max} |")
    for name, summary in sorted(stats.words.items()):
        lines.append(
            f"| words per `{name}` text | {summary.count} | {summary.mean:.1f} | {summary.min} | {summary.max} |"
        )
    if task == "ltm":
        see_also = statistics["see_also"]
        lines += ["", f"See Also Graph: {see_also['links']} links from {see_also['articles']} articles."]
    lines += ["", "Left out, by reason:", "", "| reason | meaning | count |", "|---|---|---|"]
    reasons = SKIP_REASONS[task]
    lines += [f"| `{k}` | {reasons.get(k, '')} | {v} |" for k, v in sorted(stats.skipped.items())] or ["| none | | 0 |"]
    lines += [
        "",
        "## License and attribution",
        "",
        "The texts come from Wikipedia and are licensed under the Creative Commons Attribution-ShareAlike 4.0 "
        "license (CC BY-SA 4.0; older revisions CC BY-SA 3.0). Text © Wikipedia contributors; the authors of each "
        "article are listed in its page history (`title` and `article_id` identify the article). Reuse must give "
        "attribution and share alike.",
        "",
        "## Citation",
        "",
        "```bibtex",
        CITATION,
        "```",
        "",
    ]
    return "\n".join(lines)
