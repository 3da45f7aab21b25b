"""The datasets of every vendored language, side by side with English pages of similar length.

    python -m wikiformer_kit.benchmarks.languages [--output-dir DIR]

Method: docs/benchmarks.md ("How each benchmark measures", ``languages``).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from wikiformer_kit.benchmarks.common import ENWIKI_SAMPLE, TASKS, python_module
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import _table, is_image_option, namespace_names
from wikiformer_kit.dataset_scripts.corpus.words import count_words
from wikiformer_kit.home import kit_file

PAGES = kit_file("data/samples/wikipedia/other-languages")
ENWIKI = ENWIKI_SAMPLE


def _media_prefixes() -> list[str]:
    """The names and aliases of the File and Category namespaces in every language of the table."""
    names = {n for entry in _table().values() for key in ("6", "14") for n in entry["namespaces"].get(key, [])}
    return sorted(names, key=len, reverse=True)


DEBRIS = re.compile(
    r"\d+\s*px\s*\||\bthumb\||\{\||\|\}|^\|-|\n\|-|style=|\[\[|\]\]|\{\{|\}\}|(?:"
    + "|".join(re.escape(n) for n in _media_prefixes())
    + r")\s*:\S",
    re.I,
)
"""Markup that must not be in any task text (the local image options are checked by :func:`debris`)."""


def debris(text: str) -> list[str]:
    """The pieces of ``text`` that match the debris scan: :data:`DEBRIS` and ``|``-separated image options."""
    found = [m.group() for m in DEBRIS.finditer(text)]
    found += [p for p in text.split("|")[:-1] if is_image_option(p)]
    return found


def write_dump(language: str, folder: Path) -> Path:
    """The vendored pages of ``language`` as an uncompressed MediaWiki dump of its Wikipedia."""
    names = namespace_names(language)
    namespaces = "".join(
        f'<namespace key="{key}">{html.escape(names[key][0])}</namespace>' for key in (6, 10, 14) if names.get(key)
    )
    pages = sorted((PAGES / language).glob("*.wikitext"))
    body = "".join(
        f"<page><title>{html.escape(p.stem)}</title><ns>0</ns><id>{i}</id><revision><text>"
        f"{html.escape(p.read_text(encoding='utf-8'))}</text></revision></page>"
        for i, p in enumerate(pages, start=1)
    )
    path = folder / f"{language}wiki-pages.xml"
    path.write_text(
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">'
        f"<siteinfo><dbname>{language.replace('-', '_')}wiki</dbname>"
        f"<base>https://{language}.wikipedia.org/wiki/Main</base><namespaces>{namespaces}</namespaces></siteinfo>"
        f"{body}</mediawiki>",
        encoding="utf-8",
    )
    return path


def build(inputs: list[Path], output: Path) -> Path:
    """Run the task build (one process) and return its output folder."""
    command = python_module("wikiformer_kit.dataset_scripts.build", "--input", *inputs, "--output-dir", output)
    subprocess.run([*command, "--tasks", ",".join(TASKS), "--num-proc", "1"], check=True, capture_output=True)
    return output


def measure(output: Path) -> dict:
    """Articles (with their words), See also counts, rows per task and article, words per positive, debris."""
    corpus = pq.read_table(output / "corpus" / "data").to_pylist()
    words = {a["id"]: count_words(a["abstract"]) + sum(count_words(s["text"]) for s in a["sections"]) for a in corpus}
    titles = {a["title"]: a["id"] for a in corpus}
    record = json.loads((output / "corpus" / "build_stats.json").read_text())["statistics"]
    rows: dict[str, Counter] = {}
    positive_words: dict[str, list[int]] = {}
    found: list[tuple[str, str, str]] = []
    for task in TASKS:
        table = pq.read_table(output / f"wikiformer-{task}" / "data").to_pylist()
        key = "article_id" if task != "ltm" else None
        rows[task] = Counter(r[key] if key else titles.get(r.get("source_title", ""), "") for r in table)
        positive_words[task] = [count_words(r["positive"]) for r in table]
        for row in table:
            for column in ("query", "positive", "negatives", "document"):
                value = row.get(column)
                for text in value if isinstance(value, list) else [value] if value else []:
                    found += [(task, column, piece) for piece in debris(text)]
    links = [link["target"] for a in corpus for link in a["links"]]
    image_links = [t for t in links if re.match(r"[^:]+:.*\.(?:jpe?g|png|svg|gif|tiff?|webp|ogg|pdf)$", t, re.I)]
    return {
        "articles": words,
        "see_also_by_name": record.get("see_also_by_name", 0),
        "see_also_by_structure": record.get("see_also_by_structure", 0),
        "rows": rows,
        "positive_words": positive_words,
        "debris": found,
        "image_links": image_links,
    }


def english_of_similar_length(english: dict, words: dict[str, int]) -> dict[str, float]:
    """Rows per article of each task over the English articles whose length is within a factor of two of one of
    ``words`` (the vendored pages), each vendored page weighing the same."""
    per_task = {task: [] for task in TASKS[:3]}
    for length in words.values():
        similar = [i for i, n in english["articles"].items() if length / 2 <= n <= length * 2]
        for task in per_task:
            if similar:
                per_task[task].append(statistics.mean(english["rows"][task][i] for i in similar))
    return {task: statistics.mean(v) if v else float("nan") for task, v in per_task.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output-dir", type=Path, default=None, help="keep the builds here (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.output_dir or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        english = measure(build([ENWIKI], root / "en"))
        print("| language | articles | words per article | See also by name / by structure | SRR / RWI / ATI rows per "
              "article (English of similar length) | LTM rows | words per positive (SRR / RWI / ATI) | debris | "
              "image pages among links |")  # fmt: skip
        print("|---|---:|---:|---|---|---:|---|---:|---:|")
        languages = sorted(p.name for p in PAGES.iterdir() if p.is_dir())
        for language in ["en", *languages]:
            if language == "en":
                result, compare = english, None
            else:
                (root / "dumps").mkdir(exist_ok=True)
                result = measure(build([write_dump(language, root / "dumps")], root / language))
                compare = english_of_similar_length(english, result["articles"])
            articles = len(result["articles"])
            per_article = " / ".join(
                f"{sum(result['rows'][t].values()) / articles:.1f}" + (f" ({compare[t]:.1f})" if compare else "")
                for t in TASKS[:3]
            )
            positives = " / ".join(
                f"{statistics.mean(result['positive_words'][t]):.0f}" if result["positive_words"][t] else "-"
                for t in TASKS[:3]
            )
            print(
                f"| {language} | {articles} | {statistics.mean(result['articles'].values()):.0f} | "
                f"{result['see_also_by_name']} / {result['see_also_by_structure']} | {per_article} | "
                f"{sum(result['rows']['ltm'].values())} | {positives} | {len(result['debris'])} | "
                f"{len(result['image_links'])} |"
            )
            for task, column, piece in result["debris"][:5]:
                print(f"  debris in {language} {task}.{column}: {piece!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
