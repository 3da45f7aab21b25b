"""One article -> one row of the WIKIR extraction: its document and query texts, and the links that count."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.titles import normalize_title
from wikiformer_kit.dataset_scripts.wikir.options import WikirOptions
from wikiformer_kit.dataset_scripts.wikir.text import Body, LinkLocator, clean

EXTRACT_SCHEMA = pa.schema(
    [*((name, pa.string()) for name in ("id", "title", "key", "skip", "document", "query")),
     ("targets", pa.list_(pa.string()))]
)  # fmt: skip
"""A unit's extraction: ``key`` = the normalised title links resolve to, ``skip`` = why the article is not a
document (empty when it is one), ``targets`` = the normalised targets of the links that count, in order."""

WIKIR_COLUMNS = ("id", "title", "abstract", "sections", "links", "is_disambiguation")
"""The corpus columns the extraction reads (the links with their sentences included)."""

SKIP_SHORT = "shorter than min_length words"
SKIP_DISAMBIGUATION = "disambiguation page"
SKIP_EMPTY = "empty document after cleaning"
SKIP_NO_ID = "no article id"


def trec_id(article_id: str) -> str:
    """The article id as a query and document id of TREC files: white space becomes ``_`` (ids taken from file
    names or titles, ``jodie emery``, would otherwise split a run line into too many fields)."""
    return "_".join(article_id.split()) if article_id else article_id


def extract(article: Article, options: WikirOptions, counts: Counter) -> dict[str, Any]:
    """The extraction row of one article (see :data:`EXTRACT_SCHEMA`); ``counts`` gets the link statistics.

    A link counts when it stands in the first ``doc_length`` words of the body (or, with
    ``first_sentence_links``, in the first sentence). Its position is found from the sentence and anchor the
    corpus keeps for it; links never found are counted as ``links unlocated`` and do not count.
    """
    body = Body.of(article)
    row = {"id": trec_id(article.id), "title": article.title, "key": normalize_title(article.title), "skip": ""}
    row.update(document="", query="", targets=[])
    if not article.id:
        row["skip"] = SKIP_NO_ID
    elif article.is_disambiguation and not options.keep_disambiguation:
        row["skip"] = SKIP_DISAMBIGUATION
    elif body.words < options.min_length:
        row["skip"] = SKIP_SHORT
    if row["skip"]:
        return row
    first = body.first_sentence()
    style = {"lowercase": options.lowercase, "keep_non_alphanumeric": options.keep_non_alphanumeric}
    document = body.text(without=first if options.skip_first_sentence else None)
    row["document"] = clean(document, body.words if options.whole_documents else options.doc_length, **style)
    if not row["document"]:
        row["skip"] = SKIP_EMPTY
        return row
    if options.title_queries:
        query = article.title
    else:
        query = body.parts[first[0]][first[1] : first[2]] if first else ""
    row["query"] = clean(query, options.query_length, **style)
    row["targets"] = list(dict.fromkeys(_counted_targets(article, body, first, options, counts)))
    return row


def _counted_targets(article, body, first, options, counts):
    locator = LinkLocator(body)
    for link in article.links:
        place = locator.locate(link.section, link.sentence, link.anchor)
        if place is None:
            counts["links unlocated"] += 1
            continue
        part, offset = place
        if options.first_sentence_links:
            inside = first is not None and part == first[0] and first[1] <= offset < first[2]
        else:
            inside = locator.word_position(part, offset) < options.doc_length
        if inside:
            counts["links counted"] += 1
            yield normalize_title(link.target)
