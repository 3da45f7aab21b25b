"""What is left in the texts of the vendored pages that is not prose: navigation lines, end matter, hatnotes, markup.

    python -m wikiformer_kit.benchmarks.text_cleanup [--json FILE]

Method: docs/benchmarks.md ("How each benchmark measures", ``text_cleanup``).
"""

from __future__ import annotations

import argparse
import bz2
import html
import json
import re
from collections import Counter
from pathlib import Path

from wikiformer_kit.home import kit_file

SAMPLES = kit_file("data/samples/wikipedia")
DUMPS = {"en": SAMPLES / "enwiki-sample.xml.bz2", "ltg": SAMPLES / "ltgwiki-sample.xml.bz2"}
BARE_VERBS = frozenset(
    "see voir ver vedi zie se xem δείτε βλέπε βλ. виж вижте zobacz viz katso vegeu lihat lásd види vidi siehe див. "
    "см. details further bővebben részletesen chi tiết περισσότερα подробнее докладніше детальніше".split()
)


def _pages() -> list[tuple[str, str, str]]:
    """(language, title, wikitext) of every vendored page and of the articles of the two dump samples."""
    pages = []
    for folder in sorted((SAMPLES / "other-languages").iterdir()):
        pages += [(folder.name, p.stem, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.wikitext"))]
    pages += [
        ("el", p.stem, p.read_text(encoding="utf-8")) for p in sorted((SAMPLES / "el-date-page").glob("*.wikitext"))
    ]
    for language, path in DUMPS.items():
        text = bz2.open(path, "rt", encoding="utf-8").read()
        for match in re.finditer(r"<title>(.*?)</title>\s*<ns>0</ns>.*?<text[^>]*>(.*?)</text>", text, re.S):
            wikitext = html.unescape(match.group(2))
            if not re.match(r"\s*#redirect", wikitext, re.I):
                pages.append((language, html.unescape(match.group(1)), wikitext))
    return pages


def measure() -> dict[str, Counter]:
    """The counts per language of the pages as the kit parses them."""
    from wikiformer_kit.dataset_scripts.corpus import end_matter as rules
    from wikiformer_kit.dataset_scripts.corpus import hatnotes, leftovers, navigation, titles
    from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
    from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH
    from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext
    from wikiformer_kit.dataset_scripts.corpus.words import count_words
    from wikiformer_kit.dataset_scripts.tasks.common import end_matter
    from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions

    min_words = TaskOptions().min_words
    counts: dict[str, Counter] = {}
    for language, title, wikitext in _pages():
        count = counts.setdefault(language, Counter())
        namespaces = ENGLISH.with_aliases(namespace_names(language))
        article = parse_wikitext(title, wikitext, language=language, namespaces=namespaces)
        count["articles"] += 1
        lines = article.abstract.split("\n")
        count["navigation_abstracts"] += any(navigation.is_navigation_line(line, language) for line in lines)
        names = rules.end_matter_names(language)
        by_name = {i for i, s in enumerate(article.sections) if rules.is_end_matter(s.path, names)}
        yardstick = by_name | rules.reference_list_sections(article, by_name)
        left_out = end_matter(article)
        count["end_matter_nodes"] += sum(
            1 for i in yardstick - left_out if count_words(article.sections[i].text) >= min_words
        )
        phrases = [p for p in hatnotes.hatnote_phrases(language) if p not in BARE_VERBS]
        media = tuple(n.casefold() + ":" for n in namespaces.media)
        for text in (article.abstract, *(s.text for s in article.sections)):
            for line in text.split("\n"):
                folded = line.casefold()
                count["hatnote_lines"] += any(
                    folded.startswith(p) and folded[len(p) : len(p) + 1] in (" ", ":", "") for p in phrases
                )
                count["leftover_markup"] += len(leftovers._STRAY_TAG.findall(line))
                count["leftover_markup"] += len(re.findall(r"(?:^|\s)\|-|\balign=", line))
                count["leftover_markup"] += sum(
                    1 for word in folded.split() if word.startswith(media) and not word.endswith(":")
                )
        interwiki = titles.OTHER_NAMESPACES
        count["leftover_markup"] += sum(
            1 for link in article.links if link.target.split(":")[0].casefold() in interwiki and ":" in link.target
        )
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path, default=None, help="also write the counts here")
    args = parser.parse_args()
    counts = measure()
    columns = ("articles", "navigation_abstracts", "end_matter_nodes", "hatnote_lines", "leftover_markup")
    print("language  " + "  ".join(columns))
    for language in sorted(counts):
        print(f"{language:<8}  " + "  ".join(f"{counts[language][c]:>{len(c)}}" for c in columns))
    total = sum(counts.values(), Counter())
    print("all       " + "  ".join(f"{total[c]:>{len(c)}}" for c in columns))
    if args.json:
        args.json.write_text(json.dumps({k: dict(v) for k, v in counts.items()}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
