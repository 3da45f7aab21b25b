"""How well the See also section is found by its structure alone, against the section found by its heading name.

    python -m wikiformer_kit.benchmarks.see_also_structure [--data FOLDER]

Method: docs/benchmarks.md ("How each benchmark measures", ``see_also_structure``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from wikiformer_kit.benchmarks.common import SHARED_DATA, table_head
from wikiformer_kit.dataset_scripts.corpus.disambiguation import is_disambiguation
from wikiformer_kit.dataset_scripts.corpus.extract import _namespaces
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.formats.base import RawPage
from wikiformer_kit.dataset_scripts.corpus.see_also import find_see_also_sections, see_also_names, see_also_targets
from wikiformer_kit.dataset_scripts.corpus.titles import ENGLISH
from wikiformer_kit.home import kit_file

DUMPS = {
    "enwiki_gensim_sample/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2": "en",
    "enwiki_dbpedia_minidump/enwiki-minidump.xml.bz2": "en",
    "enwiki_gensim_sample/enwiki-table-markup.xml.bz2": "en",
    "ltgwiki_sample/smallwiki-latest-pages-articles.xml": "ltg",
}
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_REF = re.compile(r"<ref\b[^>]*?/\s*>|<ref\b[^>]*>.*?(?:</ref\s*>|\Z)", re.S | re.I)


def _targets(sections: list[str], namespaces) -> list[str]:
    found: list[str] = []
    for section in sections:
        found += [t for t in see_also_targets(_REF.sub("", section), namespaces) if t not in found]
    return found


def score(pages, language: str) -> dict[str, int]:
    """Counts of found, missed, false finds and true absences over ``(title, wikitext, namespaces)`` pages."""
    names = see_also_names(language)
    counts = {"found": 0, "missed": 0, "false": 0, "none": 0}
    for _, wikitext, namespaces in pages:
        wikitext = _COMMENT.sub("", wikitext)
        by_name = _targets(find_see_also_sections(wikitext, names, namespaces, by_structure=False)[0], namespaces)
        guess = not is_disambiguation(wikitext, language)
        by_structure = _targets(find_see_also_sections(wikitext, frozenset(), namespaces, guess)[0], namespaces)
        if by_name:
            counts["found" if by_structure == by_name else "missed"] += 1
        else:
            counts["false" if by_structure else "none"] += 1
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data",
        default=str(SHARED_DATA / "wikipedia"),
        help="a folder of MediaWiki dumps and wikitext pages (e.g. data/samples/wikipedia); the default is the local "
        "copy for development",
    )
    args = parser.parse_args()
    data = Path(args.data)
    rows = []
    for relative, language in DUMPS.items():
        path = data / relative
        if path.exists():
            pages = [
                (r.title, r.wikitext, _namespaces(r.namespace_names))
                for r in mediawiki_xml.read_raw(path)
                if isinstance(r, RawPage)
            ]
            rows.append((path.name, language, score(pages, language)))
    wtf = sorted((data / "wikitext_pages_wtf").glob("*.txt"))
    if wtf:
        rows.append(("wikitext_pages_wtf", "en+de", score([(p.stem, p.read_text(), ENGLISH) for p in wtf], "de")))
    samples = kit_file("data/samples/wikipedia/other-languages")
    for folder in sorted(p for p in samples.iterdir() if p.is_dir()):
        pages = [(p.stem, p.read_text(), ENGLISH) for p in sorted(folder.glob("*.wikitext"))]
        rows.append((f"other-languages/{folder.name}", folder.name, score(pages, folder.name)))
    print(table_head("pages", "language", "found", "missed", "false finds", "no See also, none found", right=4))
    total = dict.fromkeys(("found", "missed", "false", "none"), 0)
    for name, language, counts in rows:
        print(
            f"| {name} | {language} | {counts['found']} | {counts['missed']} | {counts['false']} | {counts['none']} |"
        )
        total = {k: total[k] + counts[k] for k in total}
    print(f"| all | | {total['found']} | {total['missed']} | {total['false']} | {total['none']} |")
    with_section = total["found"] + total["missed"]
    found_any = total["found"] + total["false"]
    print(
        f"\nrecall {total['found'] / max(with_section, 1):.3f} ({total['found']}/{with_section}), "
        f"precision {total['found'] / max(found_any, 1):.3f} ({total['found']}/{found_any})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
