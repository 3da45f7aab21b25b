"""No LTM query names its own positive as a line or a list item, on the built rows of every vendored sample
language: the article text LTM pairs with a See also target leaves out the article's See also and end matter.

Each language's vendored pages (data/samples/wikipedia/other-languages) are built with a short page for each of
their See also targets, so that every See also link makes a row; texts are not cut (``--ltm-max-words 0``), so a
See also list at the foot of a long page would reach the query."""

from __future__ import annotations

import html
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.benchmarks.languages import ENWIKI, PAGES
from wikiformer_kit.dataset_scripts.corpus.mediawiki_languages import namespace_names
from wikiformer_kit.dataset_scripts.corpus.titles import normalize_title
from wikiformer_kit.dataset_scripts.corpus.wikitext import parse_wikitext

LANGUAGES = ("ja", "vi", "zh", "de", "ltg", "ru", "uk", "el")
LIST_MARKERS = " \t*#:;•·-–—"
EXTRA_PAGES = {
    # el "B", whose query ended with its See also list "Βήτα", the positive (the vendored el page has no See also)
    "el": {
        "B": "Το '''B''' είναι το δεύτερο γράμμα του λατινικού αλφαβήτου. "
        + "Προέρχεται από το ελληνικό γράμμα βήτα και ονομάζεται μπι στα αγγλικά. " * 4
        + "\n\n== Δείτε επίσης ==\n* [[Βήτα]]\n"
    }
}


def _dump(language: str, folder: Path) -> Path:
    """The language's vendored pages, a page of 40 words for each of their See also targets and five more."""
    pages = {p.stem: p.read_text(encoding="utf-8") for p in sorted((PAGES / language).glob("*.wikitext"))}
    pages.update(EXTRA_PAGES.get(language, {}))
    targets = {t for title, text in pages.items() for t in parse_wikitext(title, text, language=language).see_also}
    fillers = [f"Page {number}" for number in range(5)]  # the negatives: articles no See also names
    for number, title in enumerate([*sorted(targets), *fillers]):
        pages.setdefault(title, f"{title} " + " ".join(f"w{number}x{i}" for i in range(40)))
    names = namespace_names(language)
    namespaces = "".join(
        f'<namespace key="{key}">{html.escape(names[key][0])}</namespace>' for key in (6, 10, 14) if names.get(key)
    )
    body = "".join(
        f"<page><title>{html.escape(title)}</title><ns>0</ns><id>{i}</id><revision><text>"
        f"{html.escape(text)}</text></revision></page>"
        for i, (title, text) in enumerate(pages.items(), start=1)
    )
    path = folder / f"{language}wiki-pages.xml"
    path.write_text(
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">'
        f"<siteinfo><dbname>{language}wiki</dbname><namespaces>{namespaces}</namespaces></siteinfo>"
        f"{body}</mediawiki>",
        encoding="utf-8",
    )
    return path


def _ltm_rows(dump: Path, output: Path) -> list[dict]:
    command = [sys.executable, "-m", "dataset_scripts.build", "--input", str(dump), "--output-dir", str(output)]
    command += ["--tasks", "ltm", "--num-proc", "1", "--ltm-max-words", "0"]
    subprocess.run(command, cwd=PROJECT_ROOT, check=True, capture_output=True)
    return pq.read_table(output / "wikiformer-ltm" / "data").to_pylist()


def _lines_naming(text: str, title: str) -> list[str]:
    key = normalize_title(title).casefold()
    return [line for line in text.splitlines() if normalize_title(line.strip(LIST_MARKERS)).casefold() == key]


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    root = tmp_path_factory.mktemp("ltm-answers")
    built = {language: _ltm_rows(_dump(language, root), root / language) for language in LANGUAGES}
    built["en"] = _ltm_rows(ENWIKI, root / "en")
    return built


@pytest.mark.slow
@pytest.mark.parametrize("language", (*LANGUAGES, "en"))
def test_no_ltm_query_names_its_positive_as_a_line(rows, language):
    if language != "en":
        assert rows[language], "no LTM row was built"
    named = [
        (r["title"], r["positive_title"]) for r in rows[language] if _lines_naming(r["query"], r["positive_title"])
    ]
    assert named == []


def test_a_line_is_found_as_a_list_item_whatever_its_marker_and_case():
    assert _lines_naming("Intro.\n* Βήτα\nEnd.", "Βήτα") == ["* Βήτα"]
    assert _lines_naming("Intro.\nβήτα", "Βήτα") == ["βήτα"] and _lines_naming("Βήτα is a letter.", "Βήτα") == []
