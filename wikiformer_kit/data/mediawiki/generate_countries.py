"""Generate ``countries.json`` (each country's name per language, by the three-letter codes that name Wikipedia's
country and flag templates: ``{{GER}}``, ``{{USA}}``, ``{{JPN}}``) from the Unicode CLDR, as the Babel package
ships it.

    pip install babel  # only to regenerate; the kit reads the JSON
    python -m wikiformer_kit.data.mediawiki.generate_countries [--output data/mediawiki/countries.json]

A template named by a code shows a flag and the country's name in the wiki's language. The codes are ISO 3166-1
alpha-3 (CLDR's territory aliases map them to the two-letter region codes whose names CLDR gives) and the IOC codes
where they differ (:data:`IOC_CODES`, from the IOC's list of National Olympic Committees), which Wikipedia's sports
templates use; where both read a code differently (``BRN``: Bahrain for the IOC, Brunei for ISO) the IOC's wins,
as on Wikipedia. Names are CLDR's for the region in each language of :data:`LANGUAGES` (``generate.py``'s list).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from wikiformer_kit.data.mediawiki.generate import write_by_language
from wikiformer_kit.data.mediawiki.generate_calendar import cldr_locales

IOC_CODES = {
    "ALG": "DZ", "ANG": "AO", "ANT": "AG", "ARU": "AW", "ASA": "AS", "BAH": "BS", "BAN": "BD", "BAR": "BB",
    "BER": "BM", "BHU": "BT", "BIZ": "BZ", "BOT": "BW", "BRN": "BH", "BRU": "BN", "BUL": "BG", "BUR": "BF",
    "CAM": "KH", "CAY": "KY", "CHA": "TD", "CHI": "CL", "CRC": "CR", "CRO": "HR", "DEN": "DK", "ESA": "SV",
    "FIJ": "FJ", "GAM": "GM", "GBS": "GW", "GEQ": "GQ", "GER": "DE", "GRE": "GR", "GRN": "GD", "GUA": "GT",
    "GUI": "GN", "HAI": "HT", "HON": "HN", "INA": "ID", "IRI": "IR", "ISV": "VI", "IVB": "VG", "KOS": "XK",
    "KSA": "SA", "KUW": "KW", "LAT": "LV", "LBA": "LY", "LES": "LS", "LIB": "LB", "MAD": "MG", "MAS": "MY",
    "MAW": "MW", "MGL": "MN", "MON": "MC", "MRI": "MU", "MTN": "MR", "MYA": "MM", "NCA": "NI", "NED": "NL",
    "NEP": "NP", "NGR": "NG", "NIG": "NE", "OMA": "OM", "PAR": "PY", "PHI": "PH", "PLE": "PS", "POR": "PT",
    "PUR": "PR", "RSA": "ZA", "SAM": "WS", "SEY": "SC", "SIN": "SG", "SKN": "KN", "SLO": "SI", "SOL": "SB",
    "SRI": "LK", "SUD": "SD", "SUI": "CH", "TAN": "TZ", "TGA": "TO", "TOG": "TG", "TPE": "TW", "TRI": "TT",
    "UAE": "AE", "URU": "UY", "VAN": "VU", "VIE": "VN", "VIN": "VC", "ZAM": "ZM", "ZIM": "ZW",
}  # fmt: skip
"""IOC country codes that are not the country's ISO 3166-1 alpha-3 code → its two-letter region code."""


def codes() -> dict[str, str]:
    """Three-letter code → two-letter region code: ISO 3166-1 alpha-3 from CLDR's territory aliases, then IOC."""
    from babel.core import get_global

    found = {
        alias: replacement[0]
        for alias, replacement in get_global("territory_aliases").items()
        if len(alias) == 3
        and alias.isalpha()
        and alias.isupper()
        and len(replacement) == 1
        and not _private_use(replacement[0])
    }
    return found | IOC_CODES


def _private_use(region: str) -> bool:
    """ISO 3166's user-assigned codes (AA, QM-QZ, XA-XZ, ZZ), which name no country; Kosovo's XK does."""
    return region in ("AA", "ZZ") or region[0] == "Q" and region >= "QM" or region[0] == "X" and region != "XK"


def main() -> int:
    from babel import __version__
    from babel.core import get_cldr_version

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", type=Path, default=Path(__file__).with_name("countries.json"))
    args = parser.parse_args()
    code_table = codes()
    regions = sorted(set(code_table.values()))
    locales, missing = cldr_locales()
    languages = {
        code: {region: locale.territories[region] for region in regions if region in locale.territories}
        for code, locale in locales.items()
    }
    document = {
        "source": f"Unicode CLDR {get_cldr_version()}, as shipped by Babel {__version__} (region names, ISO 3166-1 "
        "alpha-3 territory aliases); IOC codes from the IOC's list of National Olympic Committees",
        "license": "Unicode License v3 (CLDR data)",
        "without_cldr_locale": missing,
        "codes": dict(sorted(code_table.items())),
    }
    write_by_language(args.output, document, languages)
    print(f"{len(code_table)} codes, {len(languages)} languages -> {args.output}; no CLDR locale: {missing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
