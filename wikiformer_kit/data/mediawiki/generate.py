"""Generate ``languages.json`` (namespace names and aliases, image-option magic words, per language) from
MediaWiki's language files.

    python -m wikiformer_kit.data.mediawiki.generate MEDIAWIKI_CHECKOUT [--output data/mediawiki/languages.json]

Reads ``languages/messages/Messages<Code>.php`` of the languages in :data:`LANGUAGES` (the 30 largest Wikipedias
and the others the kit names), follows each file's ``$fallback`` chain down to English as MediaWiki's
localisation cache does, and writes for every language:

- ``namespaces``: namespace number → every name a link may use for it (``$namespaceNames`` and
  ``$namespaceAliases`` of the language and its fallbacks, English included; ``_`` as a space);
- ``image_options``: magic word → its synonyms (``$magicWords`` entries ``img_*``; ``$1`` stands for the value,
  as in ``$1px`` or ``alt=$1``), with whether MediaWiki compares them case-sensitively.

The file is data read from MediaWiki (GPL-2.0-or-later); see README.md.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

LANGUAGES = (
    "en ceb de fr sv nl ru es it pl arz zh ja uk vi war ar pt fa ca id sr ko no ce fi tr hu cs tt "
    "sh ro eu he ms hy da bg eo el hi th af nn lv ltg bn ur ta kk be az sk lt et hr sl gl ka"
).split()
"""Wikipedia language codes: the 30 largest Wikipedias by articles first."""
_FILE_CODE = {"no": "nb"}  # the Norwegian (Bokmål) Wikipedia's language is nb
NAMESPACES = {
    "NS_MEDIA": -2, "NS_SPECIAL": -1, "NS_MAIN": 0, "NS_TALK": 1, "NS_USER": 2, "NS_USER_TALK": 3,
    "NS_PROJECT": 4, "NS_PROJECT_TALK": 5, "NS_FILE": 6, "NS_IMAGE": 6, "NS_FILE_TALK": 7, "NS_IMAGE_TALK": 7,
    "NS_MEDIAWIKI": 8, "NS_MEDIAWIKI_TALK": 9, "NS_TEMPLATE": 10, "NS_TEMPLATE_TALK": 11, "NS_HELP": 12,
    "NS_HELP_TALK": 13, "NS_CATEGORY": 14, "NS_CATEGORY_TALK": 15,
}  # fmt: skip
_STRING = r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\""


def write_by_language(path: Path, document: dict, languages: dict) -> None:
    """Write ``document`` as JSON with its ``languages`` one line a language: the tables are read by the kit, not
    by people, and a line a language keeps their diffs readable."""
    head = json.dumps({**document, "languages": {}}, ensure_ascii=False, indent=1)[: -len('"languages": {}\n}')]
    body = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in languages.items())
    path.write_text(f'{head}"languages": {{\n{body}\n }}\n}}\n', encoding="utf-8")


def _block(php: str, variable: str) -> str:
    """The body of ``$variable = [ ... ];`` (or ``array( ... );``), empty when the file has none."""
    match = re.search(rf"^\${variable}\s*=\s*(?:\[|array\s*\()(.*?)^\s*(?:\]|\))\s*;", php, re.M | re.S)
    return match.group(1) if match else ""


def _unquote(match: re.Match) -> str:
    single, double = match.group(1), match.group(2)
    text = single if single is not None else double
    return re.sub(r"\\(.)", r"\1", text)


def parse(php: str) -> dict:
    """Fallbacks, namespace names, aliases and ``img_*`` magic words of one Messages file."""
    fallback = re.search(rf"^\$fallback\s*=\s*(?:{_STRING})", php, re.M)
    names: dict[int, set[str]] = {}
    for match in re.finditer(rf"(NS_[A-Z_]+)\s*=>\s*(?:{_STRING})", _block(php, "namespaceNames")):
        names.setdefault(NAMESPACES[match.group(1)], set()).add(_unquote_groups(match, 2))
    for match in re.finditer(rf"(?:{_STRING})\s*=>\s*(NS_[A-Z_]+)", _block(php, "namespaceAliases")):
        names.setdefault(NAMESPACES[match.group(3)], set()).add(_unquote_groups(match, 1))
    words: dict[str, tuple[bool, list[str]]] = {}
    for match in re.finditer(r"'(img_[a-z_]+)'\s*=>\s*(?:\[|array\s*\()(.*?)(?:\]|\))\s*,", _block(php, "magicWords")):
        case, _, rest = match.group(2).partition(",")
        synonyms = [_unquote(m) for m in re.finditer(_STRING, rest)]
        words[match.group(1)] = (case.strip().strip("'\"") == "1", synonyms)
    chain = [c.strip() for c in _unquote(fallback).split(",")] if fallback else []
    return {"fallback": chain, "namespaces": names, "image_options": words}


def _unquote_groups(match: re.Match, first: int) -> str:
    text = match.group(first) if match.group(first) is not None else match.group(first + 1)
    return re.sub(r"\\(.)", r"\1", text)


def _file(checkout: Path, code: str) -> Path:
    code = _FILE_CODE.get(code, code)
    return checkout / "languages" / "messages" / f"Messages{code[:1].upper()}{code[1:].replace('-', '_')}.php"


def language_data(checkout: Path, code: str, cache: dict) -> dict:
    """The merged data of ``code``: its own file first, then its fallbacks', then English's."""
    chain, todo = [], [code]
    while todo:
        current = todo.pop(0)
        if _file(checkout, current) in (_file(checkout, c) for c in chain) or not _file(checkout, current).is_file():
            continue
        chain.append(current)
        if current not in cache:
            cache[current] = parse(_file(checkout, current).read_text(encoding="utf-8"))
        todo += cache[current]["fallback"]
    if "en" not in chain:
        chain.append("en")
        cache.setdefault("en", parse(_file(checkout, "en").read_text(encoding="utf-8")))
    namespaces: dict[int, list[str]] = {}
    options: dict[str, dict] = {}
    for current in chain:
        for number, names in cache[current]["namespaces"].items():
            known = namespaces.setdefault(number, [])
            for name in sorted(names):
                name = name.replace("_", " ")
                if "$1" not in name and "{{" not in name and name not in known:
                    known.append(name)
        for word, (case_sensitive, synonyms) in cache[current]["image_options"].items():
            entry = options.setdefault(word, {"case_sensitive": case_sensitive, "synonyms": []})
            entry["synonyms"] += [s for s in synonyms if s not in entry["synonyms"]]
    return {
        "files": [_file(checkout, c).name for c in chain],
        "namespaces": {str(k): namespaces[k] for k in sorted(namespaces) if k != 0},
        "image_options": dict(sorted(options.items())),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", type=Path, help="a MediaWiki core checkout (its languages/messages/)")
    parser.add_argument("--output", type=Path, default=Path(__file__).with_name("languages.json"))
    parser.add_argument("--version", default="", help="the MediaWiki version read, recorded in the file")
    args = parser.parse_args()
    cache: dict = {}
    languages = {code: language_data(args.checkout, code, cache) for code in LANGUAGES}
    missing = [code for code in LANGUAGES if not _file(args.checkout, code).is_file()]
    document = {
        "source": f"MediaWiki {args.version}".strip() + ", languages/messages/Messages*.php",
        "license": "GPL-2.0-or-later (MediaWiki); data facts read from its language files",
        "without_own_file": missing,
        "languages": languages,
    }
    text = json.dumps(document, ensure_ascii=False, indent=1, sort_keys=False)
    args.output.write_text(text + "\n", encoding="utf-8")
    print(f"{len(languages)} languages -> {args.output} ({len(text.encode()) // 1024} KiB); no own file: {missing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
