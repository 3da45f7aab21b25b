"""Generate ``extra_namespaces.json`` (each language Wikipedia's own namespaces beyond MediaWiki core: ``Portail``,
``Портал``, ``Anexo``, ``Draft``, their aliases and the project namespace's name) from Wikimedia's site
configuration.

    python -m wikiformer_kit.data.mediawiki.generate_extra_namespaces core-Namespaces.php [--output data/mediawiki/extra_namespaces.json]

The argument is ``wmf-config/core-Namespaces.php`` of https://github.com/wikimedia/operations-mediawiki-config
(``--commit`` names the commit read, for the ``source`` field). Its settings ``wgExtraNamespaces`` (number →
name), ``wgNamespaceAliases`` (name → number) and ``wgMetaNamespace``/``wgMetaNamespaceTalk`` (names of the
project namespaces, 4 and 5) are read with regular expressions, for the language Wikipedias only (``frwiki``,
``+zh_yuewiki``; not the other projects nor special wikis), keyed by the wiki's language code (``frwiki`` → ``fr``,
``be_x_oldwiki`` → ``be-tarask``, ``zh_yuewiki`` → ``zh-yue``). Aliases of the main namespace and names made
from the project's (``$1_talk``) are left out.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from wikiformer_kit.data.mediawiki.generate import write_by_language

REPOSITORY = "https://github.com/wikimedia/operations-mediawiki-config"
SETTINGS = ("wgExtraNamespaces", "wgNamespaceAliases", "wgMetaNamespace", "wgMetaNamespaceTalk")
CONSTANTS = {
    "NS_MEDIA": -2, "NS_SPECIAL": -1, "NS_MAIN": 0, "NS_TALK": 1, "NS_USER": 2, "NS_USER_TALK": 3,
    "NS_PROJECT": 4, "NS_PROJECT_TALK": 5, "NS_FILE": 6, "NS_FILE_TALK": 7, "NS_MEDIAWIKI": 8,
    "NS_MEDIAWIKI_TALK": 9, "NS_TEMPLATE": 10, "NS_TEMPLATE_TALK": 11, "NS_HELP": 12, "NS_HELP_TALK": 13,
    "NS_CATEGORY": 14, "NS_CATEGORY_TALK": 15, "NS_PORTAL": 100, "NS_PORTAL_TALK": 101, "NS_MODULE": 828,
    "NS_MODULE_TALK": 829,
}  # fmt: skip
"""MediaWiki's namespace constants (core, and the extensions' the configuration names)."""
WIKI_LANGUAGES = {"be_x_old": "be-tarask"}
"""Wikipedias whose database name is not their language code."""
NOT_WIKIPEDIAS = frozenset({"wg_en"})
"""Special wikis whose database name looks like a Wikipedia's."""

_STRING = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""
_TOKENS = re.compile(rf"{_STRING}|//[^\n]*|#[^\n]*", re.S)
_WIKIPEDIA = re.compile(r"\+?((?:[a-z]{2,3}(?:_[a-z]+)*)|simple)wiki")
_ENTRY = re.compile(rf"^\t({_STRING})\s*=>\s*(\[[^\]]*\]|{_STRING})", re.M)
_KEY = rf"{_STRING}|-?\d+|NS_[A-Z_]+"
_PAIR = re.compile(rf"({_KEY})\s*=>\s*({_KEY})")


def _without_comments(php: str) -> str:
    """The PHP text with its ``//`` and ``#`` comments removed (strings kept whole, so a ``#`` in a name stays)."""
    return _TOKENS.sub(lambda match: match[0] if match[0][0] in "'\"" else "", php)


def _string(literal: str) -> str:
    return re.sub(r"\\(.)", r"\1", literal[1:-1])


def _number(literal: str) -> int | None:
    if literal.startswith("NS_"):
        return CONSTANTS.get(literal)
    return int(literal) if re.fullmatch(r"-?\d+", literal) else None


def _setting(php: str, name: str) -> str:
    """The text of one top-level setting's array (``'name' => [`` at the start of a line up to its ``],``)."""
    start = re.search(rf"^'{name}' => \[\n", php, re.M)
    if not start:
        raise SystemExit(f"no setting {name!r} in the file")
    return php[start.end() : re.compile(r"^\],", re.M).search(php, start.end()).start()]


def language_of(wiki: str) -> str:
    """The language code of a Wikipedia's database name (``+frwiki`` → ``fr``), or ``""`` for any other wiki."""
    match = _WIKIPEDIA.fullmatch(wiki)
    if not match or match[1] in NOT_WIKIPEDIAS:
        return ""
    return WIKI_LANGUAGES.get(match[1], match[1].replace("_", "-"))


def extra_namespaces(php: str) -> tuple[dict[str, dict[int, list[str]]], list[str]]:
    """Language code → namespace number → names (spaces for underscores), and the constants the file uses that
    :data:`CONSTANTS` does not know (their entries are left out)."""
    languages: dict[str, dict[int, list[str]]] = {}
    unknown: list[str] = []
    php = _without_comments(php)
    for setting in SETTINGS:
        for wiki, value in _ENTRY.findall(_setting(php, setting)):
            language = language_of(_string(wiki))
            if not language:
                continue
            if setting.startswith("wgMeta"):
                pairs = [("5" if setting.endswith("Talk") else "4", value)]
            else:
                aliases = setting == "wgNamespaceAliases"
                pairs = [(name, key) if aliases else (key, name) for key, name in _PAIR.findall(value)]
            for key, name in pairs:
                number = _number(key)
                if number is None:
                    unknown.append(key)
                elif number != 0 and name[0] in "'\"":
                    names = languages.setdefault(language, {}).setdefault(number, [])
                    spaced = _string(name).replace("_", " ").strip()
                    # "$1 talk" is MediaWiki's pattern for the project's own name, no name of its own
                    if spaced and "$1" not in spaced and spaced not in names:
                        names.append(spaced)
    return languages, sorted(set(unknown))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("config", type=Path, help="wmf-config/core-Namespaces.php of operations-mediawiki-config")
    parser.add_argument("--commit", default="", help="the commit the file was read from, for the source field")
    parser.add_argument("--output", type=Path, default=Path(__file__).with_name("extra_namespaces.json"))
    args = parser.parse_args()
    found, unknown = extra_namespaces(args.config.read_text(encoding="utf-8"))
    languages = {code: {str(k): names for k, names in sorted(found[code].items())} for code in sorted(found)}
    at = f" at commit {args.commit}" if args.commit else ""
    document = {
        "source": f"{REPOSITORY}, wmf-config/core-Namespaces.php{at} ({', '.join(SETTINGS)})",
        "license": "no licence stated for the file (the repository's PHP files that state one: GPL-2.0-or-later); "
        "namespace names and numbers only, facts of the wikis' configuration",
    }
    write_by_language(args.output, document, languages)
    print(f"{len(languages)} languages -> {args.output}; unknown constants left out: {unknown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
