"""TREC SGML documents: ``<DOC><DOCNO>id</DOCNO> ... </DOC>`` (NPL, and the classic TREC disks)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from wikiformer_kit.eval.collections.errors import CollectionFormatError
from wikiformer_kit.eval.collections.textfile import read_text

_DOC = re.compile(r"<DOC>(.*?)</DOC>", re.S | re.I)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
# metadata blocks whose content is not document text
_SKIPPED = re.compile(r"<(DOCHDR|DOCOLDNO)>.*?</\1>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")


def read_trec_sgml_documents(path: str | Path) -> dict[str, str]:
    """Document id -> text of a file of ``<DOC>`` blocks, each with one ``<DOCNO>``: the text is everything else
    in the block (``<TITLE>``, ``<TEXT>``, ``<HEADLINE>`` ... contents kept, tags and ``<DOCHDR>`` removed, SGML
    entities decoded, whitespace collapsed).

    Raises:
        CollectionFormatError: no ``<DOC>`` block, a block without ``<DOCNO>``, or a repeated DOCNO.
    """
    text = read_text(path, errors="replace")
    documents: dict[str, str] = {}
    for block in _DOC.finditer(text):
        docno = _DOCNO.search(block.group(1))
        if docno is None:
            raise CollectionFormatError(path, "<DOC> without <DOCNO>", text.count("\n", 0, block.start()) + 1)
        if docno.group(1) in documents:
            line = text.count("\n", 0, block.start()) + 1
            raise CollectionFormatError(path, f"DOCNO {docno.group(1)!r} appears twice", line)
        body = _SKIPPED.sub(" ", _DOCNO.sub(" ", block.group(1)))
        documents[docno.group(1)] = " ".join(html.unescape(_TAG.sub(" ", body)).split())
    if not documents:
        raise CollectionFormatError(path, "no <DOC> block found: not a TREC SGML document file")
    return documents
