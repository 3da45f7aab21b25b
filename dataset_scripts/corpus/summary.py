"""The lines a build prints about its corpus: how the See also sections were found (by heading name, by
structure) and, for a language whose See also heading no table names, a warning saying what falls back to
structure. Both ``python -m dataset_scripts.corpus`` and ``python -m dataset_scripts.build`` print them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from wikiformer_kit.dataset_scripts.corpus.folder import corpus_languages, read_build_record
from wikiformer_kit.dataset_scripts.corpus.see_also import knows_language


def see_also_line(stats: Mapping[str, int]) -> str:
    """``N articles with See also: X found by heading name, Y by structure``."""
    return (
        f"{stats.get('articles_with_see_also', 0):,} articles with See also: {stats.get('see_also_by_name', 0):,} "
        f"found by heading name, {stats.get('see_also_by_structure', 0):,} by structure"
    )


def unknown_language_warnings(languages: Mapping[str, int], see_also_titles: tuple[str, ...] = ()) -> list[str]:
    """One warning per language of the corpus whose See also heading the built-in table does not name (none when
    ``--see-also-title`` gave the names)."""
    if see_also_titles:
        return []
    return [
        f"warning: no See also heading name is known for language {code!r} ({count:,} articles): their See also "
        "sections are found by structure (a late list of links), which can be wrong; give the heading with "
        "--see-also-title"
        for code, count in languages.items()
        if code and not knows_language(code)
    ]


def corpus_summary(corpus_dir: str | Path) -> list[str]:
    """The See also line and the unknown-language warnings of a built corpus folder (from ``build_stats.json``;
    empty for a folder built elsewhere)."""
    record = read_build_record(corpus_dir)
    if record is None:
        return []
    titles = tuple(record.get("options", {}).get("reader", {}).get("see_also_titles") or ())
    languages = record.get("languages") or corpus_languages(corpus_dir)
    return [f"corpus: {see_also_line(record.get('statistics', {}))}", *unknown_language_warnings(languages, titles)]
