"""Which licence the texts of a corpus carry, from the formats it was read from (recorded in ``build_stats.json``).

A dataset card must state the terms of the text it redistributes, and those are the source's: Wikipedia text is
CC BY-SA 4.0 with attribution; MS MARCO documents come under Microsoft's terms (non-commercial research use only);
any other input (HTML, Markdown, LaTeX, XML sections) keeps the licence of the corpus it came from, which the kit
cannot know and names by its input files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

WIKIPEDIA_FORMATS = frozenset(
    {"mediawiki-xml", "wikiextractor-text", "wikiextractor-json", "wikitext", "enterprise-html", "structured-contents"}
)
"""Formats whose text is Wikipedia's (a dump, WikiExtractor output of one, raw wikitext pages, Enterprise dumps)."""
MSMARCO_FORMATS = frozenset({"msmarco-tsv"})
MSMARCO_TERMS = "https://microsoft.github.io/msmarco/"

WIKIPEDIA_TEXT = (
    "The texts come from Wikipedia and are licensed under the Creative Commons Attribution-ShareAlike 4.0 "
    "license (CC BY-SA 4.0; older revisions CC BY-SA 3.0). Text © Wikipedia contributors; the authors of each "
    "article are listed in its page history (`title` and `article_id` identify the article). Reuse must give "
    "attribution and share alike."
)
MSMARCO_TEXT = (
    "The texts come from the MS MARCO document collection (Microsoft), web pages whose rights Microsoft does not "
    "necessarily own. Its terms and conditions make it available free of charge for non-commercial research "
    "purposes only, as is and without granting any licence or other intellectual property right; rows derived "
    f"from it are bound by the same terms (non-commercial research use only). See {MSMARCO_TERMS} (Terms and "
    "Conditions). `article_id` is the MS MARCO docid."
)


@dataclass(frozen=True)
class SourceLicense:
    """The licence section of a card: the Hub metadata identifier (``license``, plus ``license_name`` and
    ``license_link`` when it is ``"other"``) and the paragraphs of the card's licence section."""

    license: str
    paragraphs: tuple[str, ...]
    license_name: str | None = None
    license_link: str | None = None

    def card_data(self) -> dict[str, Any]:
        """The keyword arguments of ``DatasetCardData`` for the licence."""
        data = {"license": self.license, "license_name": self.license_name, "license_link": self.license_link}
        return {key: value for key, value in data.items() if value}


def source_license(formats: Sequence[str] | None, inputs: str = "") -> SourceLicense:
    """The licence of a corpus read from ``formats`` (format names; ``None`` when the corpus did not record them),
    its inputs named by ``inputs`` (for the "other input" statement).

    Wikipedia-only: CC BY-SA 4.0 (as before). MS MARCO: Microsoft's non-commercial research terms. Anything
    else, or formats not recorded: the input corpus's own licence, named; Wikipedia's terms are stated for any
    Wikipedia text among them.
    """
    named = inputs or "the input files"
    if formats is None:
        return SourceLicense(
            "other",
            (
                f"The texts keep the licence of the input corpus ({named}); its build did not record the input "
                f"formats. Where they are Wikipedia's: {WIKIPEDIA_TEXT}",
            ),
            license_name="input-corpus-license",
        )
    kinds = set(formats)
    if kinds and kinds <= WIKIPEDIA_FORMATS:
        return SourceLicense("cc-by-sa-4.0", (WIKIPEDIA_TEXT,))
    paragraphs = []
    if kinds & WIKIPEDIA_FORMATS:
        paragraphs.append(f"Texts read from Wikipedia formats ({', '.join(sorted(kinds & WIKIPEDIA_FORMATS))}): ")
        paragraphs[-1] += WIKIPEDIA_TEXT
    if kinds & MSMARCO_FORMATS:
        paragraphs.append(MSMARCO_TEXT)
    others = kinds - WIKIPEDIA_FORMATS - MSMARCO_FORMATS
    if others or not kinds:
        paragraphs.append(
            f"Texts read as {', '.join(sorted(others)) or 'an unknown format'} keep the licence of the input corpus "
            f"({named}): check it before reuse; the kit does not change it."
        )
    if kinds == set(MSMARCO_FORMATS):
        return SourceLicense("other", tuple(paragraphs), "ms-marco-terms", MSMARCO_TERMS)
    return SourceLicense("other", tuple(paragraphs), license_name="input-corpus-license")
