"""Wikitext vs Parsoid HTML on the same pages: Enterprise records that carry both, side by side.

    python -m wikiformer_kit.benchmarks.enterprise_html [FILE ...] [--repeat N] [--build]

Method: docs/benchmarks.md ("How each benchmark measures", ``enterprise_html``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

from wikiformer_kit.benchmarks.common import TASKS, python_module, table_head
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.extract import parse_page
from wikiformer_kit.dataset_scripts.corpus.formats import enterprise_html
from wikiformer_kit.dataset_scripts.corpus.formats.base import RawPage, ReaderOptions, open_binary
from wikiformer_kit.dataset_scripts.corpus.words import letter_words
from wikiformer_kit.home import kit_file

SAMPLE = kit_file("data/samples/enterprise/wiki-NS0-sample-ENTERPRISE-HTML.json.tar.gz")


def record_lines(path: Path) -> list[bytes]:
    """The NDJSON lines of a dump file (every member of a tar) or of an NDJSON file."""
    if tarfile.is_tarfile(path):
        with tarfile.open(path) as archive:
            return [
                line
                for member in archive
                if member.isfile()
                for line in archive.extractfile(member).read().splitlines()
                if line.strip()
            ]
    with open_binary(path) as stream:
        return [line for line in stream.read().splitlines() if line.strip()]


def both_forms(paths: list[Path]) -> list[tuple[bytes, dict]]:
    """The records that carry both HTML and wikitext, with their raw line (a page given twice counted once)."""
    found: dict[tuple[str, str], tuple[bytes, dict]] = {}
    for path in paths:
        for line in record_lines(path):
            record = json.loads(line)
            body = record.get("article_body") or {}
            if body.get("html") and body.get("wikitext"):
                found.setdefault(
                    (enterprise_html.record_language(record), str(record.get("identifier"))), (line, record)
                )
    return list(found.values())


def from_html(line: bytes) -> Article:
    (article,) = [
        r for r in enterprise_html.parse_record(line, "bench", "line", ReaderOptions()) if isinstance(r, Article)
    ]
    return article


def from_wikitext(record: dict) -> Article:
    language = enterprise_html.record_language(record) or "en"
    page = RawPage(record["name"], record["article_body"]["wikitext"], id=str(record["identifier"]), language=language)
    return parse_page(page, ReaderOptions(language=language))


def words(article: Article) -> Counter:
    return Counter(word.lower() for word, _, _ in letter_words(article.text))


def side_by_side(records: list[tuple[bytes, dict]]) -> None:
    print(table_head("page", "words wt / html", "sections wt / html", "links wt / html", "See also wt / html",
                     "words only in html", "words only in wikitext", "disambiguation wt / html",
                     "categories wt / html (only in html)"))  # fmt: skip
    for line, record in records:
        html, wikitext = from_html(line), from_wikitext(record)
        html_words, wikitext_words = words(html), words(wikitext)
        gained, lost = html_words - wikitext_words, wikitext_words - html_words
        examples = ", ".join(word for word, _ in gained.most_common(6))
        print(
            f"| {html.language}: {html.title} | {sum(wikitext_words.values())} / {sum(html_words.values())} "
            f"| {len(wikitext.sections)} / {len(html.sections)} | {len(wikitext.links)} / {len(html.links)} "
            f"| {len(wikitext.see_also)} / {len(html.see_also)} | {sum(gained.values())} ({examples}) "
            f"| {sum(lost.values())} | {wikitext.is_disambiguation} / {html.is_disambiguation} "
            f"| {len(wikitext.categories)} / {len(html.categories)} "
            f"({len(set(html.categories) - set(wikitext.categories))}) |"
        )


def speed(records: list[tuple[bytes, dict]], repeat: int) -> None:
    totals = {"wikitext": [], "html": []}
    for _ in range(repeat):
        for name, parse in (("wikitext", lambda r: from_wikitext(r[1])), ("html", lambda r: from_html(r[0]))):
            start = time.process_time()
            for item in records:
                parse(item)
            totals[name].append(time.process_time() - start)
    html_bytes = sum(len(record["article_body"]["html"].encode()) for _, record in records)
    wikitext_bytes = sum(len(record["article_body"]["wikitext"].encode()) for _, record in records)
    for name, seconds in totals.items():
        rates = sorted(len(records) / s for s in seconds)
        print(f"{name}: median {rates[len(rates) // 2]:.1f} articles per CPU s (runs {rates[0]:.1f}-{rates[-1]:.1f})")
    ratios = sorted(wikitext / html for wikitext, html in zip(totals["wikitext"], totals["html"], strict=True))
    print(f"HTML / wikitext articles per CPU s, round by round: median {ratios[len(ratios) // 2]:.2f}x "
          f"({ratios[0]:.2f}-{ratios[-1]:.2f})")  # fmt: skip
    print(f"input per article: wikitext {wikitext_bytes / len(records) / 1000:.1f} kB, HTML "
          f"{html_bytes / len(records) / 1000:.1f} kB")  # fmt: skip


def rows(records: list[tuple[bytes, dict]]) -> None:
    by_language: dict[str, list[tuple[bytes, dict]]] = {}
    for line, record in records:
        by_language.setdefault(enterprise_html.record_language(record) or "en", []).append((line, record))
    print(table_head("language", "input", *TASKS))
    with tempfile.TemporaryDirectory() as folder:
        for language, items in sorted(by_language.items()):
            dump = Path(folder) / f"{language}.ndjson"
            dump.write_bytes(b"\n".join(line for line, _ in items) + b"\n")
            pages = Path(folder) / f"{language}-pages"
            pages.mkdir()
            for _, record in items:
                name = record["name"].replace("/", "∕")
                (pages / f"{name}.wikitext").write_text(record["article_body"]["wikitext"], encoding="utf-8")
            for label, source in (("wikitext", pages), ("html", dump)):
                out = Path(folder) / f"{language}-{label}-out"
                command = python_module("wikiformer_kit.dataset_scripts.build", "--input", source, "--output-dir", out, "--language", language)  # fmt: skip
                result = subprocess.run(command, capture_output=True, text=True)
                counts = {task: re.search(rf"^{task}: (\d+) rows", result.stdout, re.M) for task in TASKS}
                cells = [match.group(1) if match else "-" for match in counts.values()]
                print(f"| {language} ({len(items)} pages) | {label} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, default=[SAMPLE])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--build", action="store_true", help="also build the four tasks from both forms")
    args = parser.parse_args()
    records = both_forms(args.files)
    print(f"{len(records)} records with both HTML and wikitext\n")
    side_by_side(records)
    print()
    speed(records, args.repeat)
    if args.build:
        print()
        rows(records)


if __name__ == "__main__":
    main()
