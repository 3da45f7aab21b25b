"""The Article record: one document as its Wiki Structure Tree (WST), with links and See also targets.

Every reader in :mod:`dataset_scripts.corpus` yields :class:`Article` objects, and every task sampler in
:mod:`dataset_scripts.tasks` reads them. The on-disk form (the Parquet "corpus") is :data:`ARTICLE_SCHEMA`
(``ARTICLE_FEATURES``: the same as Hugging Face ``Features``);
:meth:`Article.to_dict` and :meth:`Article.from_dict` convert between the two.

The tree is stored flat: ``sections`` in document order, each with the index of its parent (``-1`` for the
root, i.e. the article itself, whose text is ``abstract``). ``path`` holds the titles from the article title
down to the section, so ``path[0] == article.title`` and ``path[-1] == section.title``.

``categories`` are the page's categories by name (``[[Category:1821_births|Clark]]`` → ``1821 births``), each once;
what each format can show differs (:mod:`.category_sources`, ``docs/corpus-and-datasets.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

ROOT = -1
"""Parent index of a top-level section: the root node (title + abstract)."""


@dataclass
class Section:
    """One node of the Wiki Structure Tree below the root: its plain heading, its ``level`` as in wikitext (``==``
    is 2; Markdown ``##``, HTML ``h2`` and LaTeX ``\\section`` are 2 too), its own text before its first subsection,
    the titles from the article's down to it, and the index of its parent in ``Article.sections`` (``-1``: the root).
    """

    title: str
    level: int
    text: str
    path: list[str]
    parent: int = ROOT


@dataclass
class Link:
    """An internal link: its target page title, its anchor text, the plain sentence it stands in, and the
    index of the section it is in (``-1`` for the abstract)."""

    target: str
    anchor: str
    sentence: str
    section: int = ROOT


@dataclass
class Article:
    """One article as a Wiki Structure Tree (see the module docstring)."""

    id: str
    title: str
    abstract: str = ""
    sections: list[Section] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    see_also: list[str] = field(default_factory=list)
    url: str = ""
    source: str = ""
    language: str = ""
    is_disambiguation: bool = False
    see_also_found_by: str = ""  # "name" (a known heading), "structure" (see see_also.py), "" (no See also)
    categories: list[str] = field(default_factory=list)  # names without the namespace: see the module docstring

    def children(self, index: int) -> list[int]:
        """Indices of the direct children of section ``index`` (``-1`` for the root)."""
        return [i for i, section in enumerate(self.sections) if section.parent == index]

    def depth(self, index: int) -> int:
        """Depth of section ``index`` in the tree: 1 for a top-level section, 0 for the root."""
        return 0 if index == ROOT else len(self.sections[index].path) - 1

    @property
    def text(self) -> str:
        """The whole article as plain text: abstract then every section's text, in document order."""
        parts = [self.abstract] + [s.text for s in self.sections]
        return "\n\n".join(p for p in parts if p)

    def to_dict(self) -> dict[str, Any]:
        """The row stored in the Parquet corpus (matches :data:`ARTICLE_FEATURES`)."""
        # dataclasses.asdict deep-copies every field recursively: the slowest step of a build before this.
        row = dict(vars(self))
        row["sections"] = [dict(vars(s), path=list(s.path)) for s in self.sections]
        row["links"] = [dict(vars(link)) for link in self.links]
        row["see_also"] = list(self.see_also)
        row["categories"] = list(self.categories)
        return row

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> Article:
        """Rebuild an Article from a corpus row."""
        row = dict(row)
        row["sections"] = [Section(**s) for s in row.get("sections") or []]
        row["links"] = [Link(**link) for link in row.get("links") or []]
        row["see_also"] = list(row.get("see_also") or [])
        row["categories"] = list(row.get("categories") or [])  # a corpus written before the column: none
        return cls(**row)


_SECTION = pa.struct(
    [("title", pa.string()), ("level", pa.int32()), ("text", pa.string()), ("path", pa.list_(pa.string())),
     ("parent", pa.int32())]
)  # fmt: skip
_LINK = pa.struct(
    [("target", pa.string()), ("anchor", pa.string()), ("sentence", pa.string()), ("section", pa.int32())]
)

ARTICLE_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("title", pa.string()),
        ("abstract", pa.string()),
        ("sections", pa.list_(_SECTION)),
        ("links", pa.list_(_LINK)),
        ("see_also", pa.list_(pa.string())),
        ("url", pa.string()),
        ("source", pa.string()),
        ("language", pa.string()),
        ("is_disambiguation", pa.bool_()),
        ("see_also_found_by", pa.string()),
        ("categories", pa.list_(pa.string())),
    ]
)
"""Arrow schema of the Parquet corpus written by ``python -m dataset_scripts.corpus`` (one row per Article). Columns
are only ever added at the end, so that the columns of a corpus written before are a prefix of it."""


def __getattr__(name: str) -> Any:
    # The Hugging Face Features of the same schema, built on first use: importing `datasets` costs about a
    # second, paid by every build worker that only writes Parquet.
    if name == "ARTICLE_FEATURES":
        import datasets

        return datasets.Features.from_arrow_schema(ARTICLE_SCHEMA)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
