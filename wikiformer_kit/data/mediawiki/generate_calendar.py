"""Generate ``calendar.json`` (month and weekday names per language, every grammatical form a date uses) from the
Unicode CLDR, as the Babel package ships it.

    pip install babel  # only to regenerate; the kit reads the JSON
    python -m wikiformer_kit.data.mediawiki.generate_calendar [--output data/mediawiki/calendar.json]

For every language of :data:`LANGUAGES` (``generate.py``'s list: the 30 largest Wikipedias and the others the
kit names) it writes the wide month names in their format form (the genitive of ``25 Μαρτίου``, ``25 березня``) and
their stand-alone form (the nominative of a month's own page, ``Μάρτιος``), and the wide weekday names, lower-cased.
A form CLDR only inherits from its root locale (``1月`` for a language without its own) is left out; Wikipedias
whose language CLDR lacks borrow the locale :data:`CLDR_LOCALE` names, or have no entry.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from wikiformer_kit.data.mediawiki.generate import LANGUAGES

CLDR_LOCALE = {"no": "nb", "sh": "sr_Latn", "arz": "ar"}
"""Wikipedias whose language code is not a CLDR locale: the locale whose names their dates use."""


def _names(locale, root, kind: str) -> list[str]:
    """Wide names of ``kind`` (``months`` or ``days``) in both contexts, without the root locale's placeholders."""
    found: list[str] = []
    for context in ("format", "stand-alone"):
        own = getattr(locale, kind)[context]["wide"]
        inherited = getattr(root, kind)[context]["wide"]
        for key in sorted(own):
            name = own[key].strip().lower()
            if name and (locale.language == "root" or own[key] != inherited.get(key)) and name not in found:
                found.append(name)
    return found


def cldr_locales() -> tuple[dict, list[str]]:
    """The CLDR locale of each language of :data:`LANGUAGES` (a Wikipedia's own code, else :data:`CLDR_LOCALE`'s),
    and the languages CLDR has none for."""
    from babel import Locale, UnknownLocaleError

    locales, missing = {}, []
    for code in LANGUAGES:
        try:
            locales[code] = Locale.parse(CLDR_LOCALE.get(code, code))
        except UnknownLocaleError:
            missing.append(code)
    return locales, missing


def main() -> int:
    from babel import Locale, __version__
    from babel.core import get_cldr_version

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", type=Path, default=Path(__file__).with_name("calendar.json"))
    args = parser.parse_args()
    root = Locale("root")
    locales, missing = cldr_locales()
    languages = {
        code: {"months": _names(locale, root, "months"), "days": _names(locale, root, "days")}
        for code, locale in locales.items()
    }
    document = {
        "source": f"Unicode CLDR {get_cldr_version()}, as shipped by Babel {__version__}",
        "license": "Unicode License v3 (CLDR data)",
        "without_cldr_locale": missing,
        "languages": languages,
    }
    args.output.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(languages)} languages -> {args.output}; no CLDR locale: {missing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
