"""The lines a build prints about its corpus: how the See also sections were found (by heading name, by
structure), the templates cut from running text with their words (by name, most cut first: what to add to
``data/mediawiki/templates.json``) and, for a language whose See also heading no table names, a warning saying
what falls back to structure. Both ``python -m dataset_scripts.corpus`` and ``python -m dataset_scripts.build``
print them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from wikiformer_kit.dataset_scripts.corpus.folder import corpus_languages, read_build_record
from wikiformer_kit.dataset_scripts.corpus.see_also import knows_language
from wikiformer_kit.dataset_scripts.corpus.templates import CUT_KEY

TEMPLATES_SHOWN = 10
"""How many of the templates cut the summary line names (``build_stats.json`` has them all)."""


def see_also_line(stats: Mapping[str, int]) -> str:
    """``N articles with See also: X found by heading name, Y by structure``."""
    return (
        f"{stats.get('articles_with_see_also', 0):,} articles with See also: {stats.get('see_also_by_name', 0):,} "
        f"found by heading name, {stats.get('see_also_by_structure', 0):,} by structure"
    )


def split_template_counts(stats: Mapping[str, int]) -> tuple[Counter, dict[str, int]]:
    """The statistics with their ``template_cut:NAME`` keys summed into ``templates_cut``, and those templates
    by name, most cut first (ties by name)."""
    kept = Counter({key: value for key, value in stats.items() if not key.startswith(CUT_KEY)})
    cut = {key[len(CUT_KEY) :]: value for key, value in stats.items() if key.startswith(CUT_KEY)}
    kept["templates_cut"] = sum(cut.values())
    return kept, dict(sorted(cut.items(), key=lambda item: (-item[1], item[0])))


def templates_line(stats: Mapping[str, int], templates_cut: Mapping[str, int]) -> str:
    """``templates in running text: R rendered, W without words removed, C cut with their words (N templates:
    name n, ...)``."""
    line = (
        f"templates in running text: {stats.get('templates_rendered', 0):,} rendered, "
        f"{stats.get('templates_without_words', 0):,} without words removed, "
        f"{sum(templates_cut.values()):,} cut with their words"
    )
    if not templates_cut:
        return line
    most_cut = sorted(templates_cut.items(), key=lambda item: (-item[1], item[0]))  # build_stats.json sorts keys
    shown = ", ".join(f"{name} {count:,}" for name, count in most_cut[:TEMPLATES_SHOWN])
    more = (
        f", ... ({len(templates_cut):,} templates, all in build_stats.json)"
        if len(templates_cut) > TEMPLATES_SHOWN
        else ""
    )
    return f"{line} ({shown}{more}): the ones that carry words belong in data/mediawiki/templates.json"


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


def language_sources_note(sources: Mapping[str, list[str]]) -> str:
    """The language of each MediaWiki dump and what gave it (``<dbname>``, ``xml:lang``, ``--language`` ...), to
    follow the See also line (the See also names are the language's): `` (language 'de' of pages.xml from
    xml:lang)``; empty without a dump."""
    notes = [f"language {language!r} of {name} from {source}" for name, (language, source) in sources.items()]
    return f" ({'; '.join(notes)})" if notes else ""


def corpus_summary(corpus_dir: str | Path) -> list[str]:
    """The See also line, the templates line and the unknown-language warnings of a built corpus folder (from
    ``build_stats.json``; empty for a folder built elsewhere)."""
    record = read_build_record(corpus_dir)
    if record is None:
        return []
    titles = tuple(record.get("options", {}).get("reader", {}).get("see_also_titles") or ())
    languages = record.get("languages") or corpus_languages(corpus_dir)
    statistics = record.get("statistics", {})
    lines = [f"corpus: {see_also_line(statistics)}{language_sources_note(record.get('language_sources', {}))}"]
    if "templates_cut" in statistics:
        lines.append(f"corpus: {templates_line(statistics, record.get('templates_cut', {}))}")
    return [*lines, *unknown_language_warnings(languages, titles)]
