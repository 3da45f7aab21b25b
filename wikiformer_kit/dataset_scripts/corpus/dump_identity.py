"""The Wikimedia dump a source file's name names, for the cards (light to import: the corpus card needs it)."""

from __future__ import annotations

import re

_DUMP_NAME = re.compile(r"(?P<wiki>[a-z_]+wik[a-z]+)-(?P<date>\d{8}|latest)-")
_ENTERPRISE_NAME = re.compile(
    r"(?P<wiki>[a-z_]+wik[a-z]+)-NS(?P<namespace>\d+)-(?P<date>\d{8})-ENTERPRISE-(?P<kind>[A-Z]+)"
)


def dump_identity(source: str) -> str:
    """The Wikimedia dump a source file name names (``enwiki-20240601-...`` → ``enwiki, 2024-06-01``; an Enterprise
    dump ``enwiki-NS0-20240601-ENTERPRISE-HTML.json.tar.gz`` → its kind, wiki, namespace and date)."""
    enterprise = _ENTERPRISE_NAME.search(source)
    if enterprise:
        date = enterprise["date"]
        return (
            f"Wikimedia Enterprise {enterprise['kind']} dump `{enterprise['wiki']}`, namespace "
            f"{enterprise['namespace']}, of {date[:4]}-{date[4:6]}-{date[6:]}"
        )
    match = _DUMP_NAME.search(source)
    if not match:
        return "dump name and date not in the file name"
    wiki, date = match["wiki"], match["date"]
    when = f"{date[:4]}-{date[4:6]}-{date[6:]}" if date.isdigit() else "`latest` (date not in the file name)"
    return f"Wikimedia dump `{wiki}` of {when}"
