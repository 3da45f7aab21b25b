"""The dataset card (README.md) of a task dataset, written with ``huggingface_hub.DatasetCard`` from the task's
spec (:mod:`.spec`) and its build statistics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from huggingface_hub import DatasetCard, DatasetCardData

from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.dataset_scripts.corpus.dump_identity import dump_identity  # noqa: F401 (part of this module's interface)
from wikiformer_kit.dataset_scripts.corpus.source_license import WIKIPEDIA_FORMATS, source_license
from wikiformer_kit.dataset_scripts.fingerprint import stamped_pattern
from wikiformer_kit.dataset_scripts.tasks.baseline_options import built_choices
from wikiformer_kit.dataset_scripts.tasks.registry import get_task
from wikiformer_kit.dataset_scripts.tasks.stats import TaskStats

CITATION = """@inproceedings{su2024wikiformer,
  title     = {Wikiformer: Pre-training with Structured Information of Wikipedia for Ad-hoc Retrieval},
  author    = {Su, Weihang and Ai, Qingyao and Li, Xiangsheng and Chen, Jia and Liu, Yiqun and Wu, Xiaolong and Hou, Shengluan},
  booktitle = {Proceedings of the AAAI Conference on Artificial Intelligence},
  year      = {2024},
  note      = {arXiv:2312.10661}
}"""


FIELDS = {
    "query": "the fixed side: the pseudo query every candidate is paired with",
    "document": "the fixed side: the document every candidate (a pseudo query) is paired with",
    "positive": "the relevant candidate",
    "negatives": "the non-relevant candidates of the group",
    "article_id": "the Wikipedia page id of the article the row comes from",
    "title": "that article's title",
    "path": "the heading path, root first (the article title, then section titles)",
    "positive_id": "the page id of the positive article",
    "positive_title": "the title of the positive's page",
    "negative_title": "the title of the negative's page",
    "negative_titles": "the titles of the negatives' pages, in the order of `negatives`",
    "anchor": "the anchor text of the link",
    "anchors": "the anchor texts of the sentence's links",
    "importance": "each anchor's importance score, in the order of `anchors`",
    "destination": "the title of the link's destination page",
    "log_likelihoods": "each word set's log-likelihood under the document's language model",
}
"""What each column means (the task's card text says how the fixed side and candidates are chosen)."""
EXAMPLE_CHARS = 160


def example_row(task_dir: Path) -> dict[str, Any] | None:
    """The first row of the dataset's first Parquet shard with rows, texts shortened for the card."""
    import pyarrow.parquet as pq

    for shard in sorted((Path(task_dir) / "data").glob("*.parquet")):
        table = pq.read_table(shard)
        if table.num_rows:
            return {key: _shorten(value) for key, value in table.slice(0, 1).to_pylist()[0].items()}
    return None


def _shorten(value: Any) -> Any:
    if isinstance(value, str) and len(value) > EXAMPLE_CHARS:
        return value[:EXAMPLE_CHARS] + " …"
    if isinstance(value, list):
        return [_shorten(item) for item in value[:3]] + (["…"] if len(value) > 3 else [])
    return value


def size_category(rows: int) -> str:
    """The Hub's size category for a number of rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if rows < limit:
            return name
    return "1M<n<10M" if rows < 10_000_000 else "10M<n<100M"


def render_card(
    task: str,
    stats: TaskStats,
    statistics: dict[str, Any],
    build_info: dict[str, Any],
    example: dict[str, Any] | None = None,
) -> DatasetCard:
    """The card of one task dataset.

    Args:
        task: a registered task name (:data:`.registry.ALL_TASKS`).
        stats: the task's statistics.
        statistics: build-wide statistics (``articles``, ``see_also``).
        build_info: ``options`` (the TaskOptions dict), ``source`` (dump or corpus name), ``formats`` (the corpus's
            input formats, which decide the licence; absent: Wikipedia), ``language``, ``repo_id`` (how users load
            it), ``command`` (the build command), ``fingerprint`` (the data files' content fingerprint that the
            card's pattern names: :mod:`dataset_scripts.fingerprint`).
        example: one row to show (:func:`example_row`), or None.
    """
    spec = get_task(task)
    language = build_info.get("language") or "en"
    licence = _licence(build_info)
    data_files = stamped_pattern("data/*.parquet", build_info.get("fingerprint"))
    wikipedia = wikipedia_source(build_info)
    data = DatasetCardData(
        **licence.card_data(),
        language=[language],
        task_categories=["text-retrieval"],
        task_ids=["document-retrieval"],
        size_categories=[size_category(stats.rows)],
        source_datasets=["original"],
        pretty_name=f"{_method(spec)} {spec.title} pre-training groups",
        tags=["wikiformer", *(["wikipedia"] if wikipedia else []), "information-retrieval", "pretraining", task]
        + ([spec.origin.name.lower()] if spec.origin and spec.origin.name.lower() != task else []),
        configs=[{"config_name": "default", "data_files": [{"split": "train", "path": data_files}]}],
    )
    content = f"---\n{data.to_yaml()}\n---\n\n" + _body(task, stats, statistics, build_info, example)
    return DatasetCard(content)


def write_card(
    task_dir: Path, task: str, stats: TaskStats, statistics: dict[str, Any], build_info: dict[str, Any]
) -> Path:
    """Render the card and save it as ``task_dir/README.md``; returns its path."""
    path = Path(task_dir) / "README.md"
    card = render_card(task, stats, statistics, build_info, example_row(task_dir))
    path.write_text(as_run(str(card)), encoding="utf-8")
    return path


def _licence(info: dict[str, Any]):
    """The source's licence (a build that names no formats: a Wikipedia build, as cards always said)."""
    formats = info.get("formats", ("mediawiki-xml",))
    return source_license(formats, info.get("source", ""))


def wikipedia_source(info: dict[str, Any]) -> bool:
    """Whether the build read Wikipedia (its licence is CC BY-SA)."""
    return _licence(info).license == "cc-by-sa-4.0" or bool(set(info.get("formats") or ()) & WIKIPEDIA_FORMATS)


def _type(feature) -> str:
    inner = getattr(feature, "feature", None)
    return f"list of {inner.dtype}" if inner is not None else getattr(feature, "dtype", str(feature))


def _method(spec) -> str:
    return spec.origin.name if spec.origin else "Wikiformer"


def _body(task: str, stats: TaskStats, statistics: dict[str, Any], info: dict[str, Any], example=None) -> str:
    repo_id = (info.get("repo_id") or "your-namespace/wikiformer-{task}").format(task=task)
    spec = get_task(task)
    fixed = spec.fixed_side
    columns = ", ".join(f"`{c}`" for c in spec.columns)
    options = info.get("options", {})
    origin = spec.origin
    reference = f"{origin.name} ({origin.reference})" if origin else "Wikiformer (Su et al., AAAI 2024)"
    objective = origin.objective if origin else "a softmax cross-entropy over the group"
    as_built = built_choices(origin.name, options) if origin else ""
    lines = [
        f"# {_method(spec)} {spec.title}",
        "",
        f"Pseudo query-document groups for the {spec.title} pre-training task of {reference}, built with the "
        "Wikiformer kit. One row is one training group: the fixed side "
        f"(`{fixed}`), one `positive` and a list of `negatives`; the trainer applies {objective}.",
        "",
        "## How rows are formed",
        "",
        spec.pairing,
        "",
        spec.choices,
        "",
        *([as_built, ""] if as_built else []),
        f"Columns: {columns}. No text is empty, no negative equals the positive, negatives are distinct.",
        "",
        "## Fields",
        "",
        "| field | type | description |",
        "|---|---|---|",
        *(
            f"| `{name}` | {_type(feature)} | {FIELDS.get(name, '')} |"
            for name, feature in spec.features.items()
            if name != ("document" if fixed == "query" else "query")
        ),
        "",
        *(
            ["## Example row", "", "```json", json.dumps(example, ensure_ascii=False, indent=1), "```", ""]
            if example
            else []
        ),
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        *(
            [
                f'groups = load_dataset("{repo_id}", split="train")',
                "row = groups[0]",
                f'candidates = [row["positive"], *row["negatives"]]  # scored against row["{fixed}"], positive first',
            ]
            if stats.rows
            else [
                "# this build is empty: datasets loads a split of 0 rows only streaming",
                f'groups = load_dataset("{repo_id}", split="train", streaming=True)  # 0 rows, every column',
                "print(groups.features)",
            ]
        ),
        "```",
        "",
        "## Build",
        "",
        f"- source: {info.get('source', 'unknown')}"
        + (f" ({dump_identity(info.get('source', ''))})" if wikipedia_source(info) else ""),
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
    if stats.measures:
        lines += ["", "| measure | meaning | count | mean | min | max |", "|---|---|---|---|---|---|"]
        for name, summary in sorted(stats.measures.items()):
            meaning = spec.measures.get(name, "")
            lines.append(
                f"| `{name}` | {meaning} | {summary.count} | {summary.mean:.3f} | {summary.min:.3f} | "
                f"{summary.max:.3f} |"
            )
    if spec.card_notes:
        lines += ["", *spec.card_notes(statistics)]
    lines += ["", "Left out, by reason:", "", "| reason | meaning | count |", "|---|---|---|"]
    reasons = spec.skip_reasons
    lines += [f"| `{k}` | {reasons.get(k, '')} | {v} |" for k, v in sorted(stats.skipped.items())] or ["| none | | 0 |"]
    lines += [
        "",
        "## License and attribution",
        "",
        *(line for paragraph in _licence(info).paragraphs for line in (paragraph, "")),
        "## Citation",
        "",
        "```bibtex",
        origin.citation if origin else CITATION,
        "```",
        "",
    ]
    return "\n".join(lines)
