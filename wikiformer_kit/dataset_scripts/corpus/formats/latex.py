r"""LaTeX files, one document per file, parsed with pylatexenc (LatexWalker, then LatexNodes2Text for text).

Mapping onto the Wiki Structure Tree:

- the **title** is ``\title{...}``, else the file stem; the id is the file stem;
- ``\part``/``\chapter`` are level 1, ``\section`` level 2 (a top-level section, as ``==`` in wikitext),
  ``\subsection`` 3, ``\subsubsection`` 4, ``\paragraph`` 5, ``\subparagraph`` 6; starred forms alike. Only
  sectioning commands at the top level of the ``document`` environment count (the whole file when it has no
  ``document`` environment). ``\input``/``\include`` are not followed;
- the text before the first sectioning command is the abstract: the ``abstract`` environment, plus any other
  prose there;
- ``\ref``-like commands (``\ref``, ``\eqref``, ``\autoref``, ``\cref``, ``\pageref``, ...) and ``\cite``-like
  commands (one link per key) become :class:`Link` records whose target is the label or the citation key, with
  the sentence they stand in. A reference to the label of a section reads as that section's title in the text
  (and is the anchor); another reference reads as its label; citations read as their keys in brackets
  (``[key1, key2]``, each key the anchor of its link). The links under a "See also" section are the
  ``see_also`` targets;
- math is rendered as text (``\alpha`` → α), footnotes, figures' graphics, labels, bibliography commands,
  equation environments and comments are dropped. No LaTeX command is left in any text field.

A file pylatexenc cannot parse is skipped with reason ``latex-error`` naming the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from pylatexenc import latexwalker, macrospec
from pylatexenc.latex2text import EnvironmentTextSpec, LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
from pylatexenc.latexwalker import LatexCharsNode, LatexCommentNode, LatexEnvironmentNode, LatexMacroNode

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.formats._builder import (
    ArticleBuilder,
    document_id,
    normalize_space,
    plain_suffix,
    read_text_document,
)
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions, Redirect, Skipped

NAME = "latex"
SUFFIXES = (".tex", ".latex", ".ltx")

SECTION_LEVELS = {
    "part": 1,
    "chapter": 1,
    "section": 2,
    "subsection": 3,
    "subsubsection": 4,
    "paragraph": 5,
    "subparagraph": 6,
}
REF_COMMANDS = ("ref", "eqref", "autoref", "cref", "Cref", "pageref", "nameref", "vref", "hyperref")
CITE_COMMANDS = ("cite", "citep", "citet", "citeauthor", "citeyear", "parencite", "textcite", "autocite", "nocite")

_DISCARDED_MACROS = ("label", "footnote", "maketitle", "bibliography", "bibliographystyle", "includegraphics",
                     "tableofcontents", "newpage", "clearpage", "vspace", "hspace", "thanks", "index", "input",
                     "include", "centering", "noindent", "caption*")  # fmt: skip
_DISCARDED_ENVIRONMENTS = ("equation", "equation*", "align", "align*", "eqnarray", "eqnarray*", "gather", "gather*",
                           "multline", "multline*", "displaymath", "tikzpicture", "verbatim", "lstlisting",
                           "minted", "thebibliography", "comment")  # fmt: skip
_MARK = re.compile("\ue000(\\d+)\ue001")
_PRIVATE = re.compile("[\ue000\ue001]")


def _walker_context() -> macrospec.LatexContextDb:
    """pylatexenc's defaults plus the argument shapes of common commands it does not know."""
    db = latexwalker.get_default_latex_context_db()
    db.add_context_category(
        "wikiformer-kit",
        prepend=True,
        macros=[
            macrospec.MacroSpec("href", "{{"),
            macrospec.MacroSpec("hyperref", "[{"),
            *(macrospec.MacroSpec(name, "*{") for name in ("autoref", "cref", "Cref", "nameref", "vref", "eqref")),
            *(macrospec.MacroSpec(name, "*[[{") for name in CITE_COMMANDS),
            *(macrospec.MacroSpec(name, "*[{") for name in SECTION_LEVELS),
        ],
    )
    return db


_WALKER_CONTEXT = _walker_context()


def sniff(path: Path, head: bytes) -> bool:
    """A LaTeX suffix, or ``\\documentclass`` / ``\\begin{document}`` near the start."""
    return plain_suffix(path) in SUFFIXES or b"\\documentclass" in head or b"\\begin{document}" in head


def read(path: Path, options: ReaderOptions) -> Iterator[Article | Redirect | Skipped]:
    """Read one LaTeX file as one Article, or a :class:`Skipped` (``empty``, ``non-utf8``, ``too-large``,
    ``latex-error``, ``truncated``)."""
    text = read_text_document(path, options)
    if isinstance(text, Skipped):
        yield text
        return
    try:
        record = parse(text, path, options)
    except Exception as error:  # pylatexenc fails in many ways on broken input; one file never stops a run
        record = Skipped("latex-error", str(path), document_id(path), f"{type(error).__name__}: {error}")
    yield record


def parse(text: str, path: Path, options: ReaderOptions) -> Article | Skipped:
    """Turn the LaTeX source of one document into an Article (``path``'s stem: the id and fallback title)."""
    nodes, _, _ = latexwalker.LatexWalker(_PRIVATE.sub("", text), latex_context=_WALKER_CONTEXT).get_latex_nodes()
    nodes = nodes or []
    document = next((n for n in nodes if _is_environment(n, "document")), None)
    body = document.nodelist if document is not None else nodes
    converter = _Converter(_section_labels(body))
    doc_id = document_id(path)
    builder = ArticleBuilder(doc_id, doc_id, NAME, path, options)
    title = next((n for n in nodes if isinstance(n, LatexMacroNode) and n.macroname == "title"), None)
    if title is not None and title.nodeargd and title.nodeargd.argnlist:
        builder.title = converter.plain([title.nodeargd.argnlist[-1]]) or doc_id
    pending: list = []
    for node in body:
        level = _section_level(node)
        if level is None:
            pending.append(node)
            continue
        converter.write(pending, builder)
        pending = []
        builder.heading(level, converter.plain([node.nodeargd.argnlist[-1]]))
    converter.write(pending, builder)
    return builder.build()


def _is_environment(node, name: str) -> bool:
    return isinstance(node, LatexEnvironmentNode) and node.environmentname == name


def _section_level(node) -> int | None:
    if isinstance(node, LatexMacroNode) and node.macroname in SECTION_LEVELS and node.nodeargd:
        args = node.nodeargd.argnlist
        if args and args[-1] is not None:
            return SECTION_LEVELS[node.macroname]
    return None


def _argument_text(node) -> str:
    """The raw text of a macro's last argument (a label or citation keys)."""
    args = node.nodeargd.argnlist if node.nodeargd else []
    last = args[-1] if args else None
    if last is None:
        return ""
    return (
        last.latex_verbatim().strip()[1:-1] if last.latex_verbatim().strip().startswith("{") else last.latex_verbatim()
    )


def _section_labels(body: list) -> dict[str, object]:
    """``\\label`` keys given right after a section heading → that heading's title argument node."""
    labels: dict[str, object] = {}  # label -> the title argument node of its section
    heading = None
    for node in body:
        if _section_level(node) is not None:
            heading = node.nodeargd.argnlist[-1]
        elif isinstance(node, LatexMacroNode) and node.macroname == "label" and heading is not None:
            labels[_argument_text(node).strip()] = heading
        elif isinstance(node, LatexCommentNode) or (isinstance(node, LatexCharsNode) and not node.chars.strip()):
            continue
        else:
            heading = None
    return labels


class _Converter:
    """LatexNodes2Text with references and citations turned into link markers, then fed to a builder."""

    def __init__(self, section_labels: dict[str, object]):
        self.section_labels = section_labels
        self.links: list[tuple[str, str]] = []
        db = get_default_latex_context_db()
        db.add_context_category(
            "wikiformer-kit",
            prepend=True,
            macros=[
                *(MacroTextSpec(name, simplify_repl=self._reference) for name in REF_COMMANDS),
                *(MacroTextSpec(name, simplify_repl=self._citation) for name in CITE_COMMANDS),
                *(MacroTextSpec(name, discard=True) for name in _DISCARDED_MACROS),
                MacroTextSpec("href", simplify_repl="%(2)s"),
                MacroTextSpec("url", simplify_repl="%(1)s"),
                MacroTextSpec("item", simplify_repl="\n\n"),
                MacroTextSpec("today", discard=True),
                # a sectioning command inside a group (not a section of the tree) reads as its title
                *(MacroTextSpec(name, simplify_repl=self._nested_heading) for name in SECTION_LEVELS),
            ],
            environments=[EnvironmentTextSpec(name, discard=True) for name in _DISCARDED_ENVIRONMENTS],
        )
        self.to_text = LatexNodes2Text(latex_context=db, math_mode="text", strict_latex_spaces=True)

    def _marker(self, target: str, anchor: str) -> str:
        self.links.append((target, anchor))
        return f"\ue000{len(self.links) - 1}\ue001"

    def _reference(self, node, **kwargs) -> str:
        label = _argument_text(node).strip()
        heading = self.section_labels.get(label)
        return self._marker(label, self.plain([heading]) if heading is not None else label) if label else ""

    def _nested_heading(self, node, **kwargs) -> str:
        args = node.nodeargd.argnlist if node.nodeargd else []
        return f"\n\n{self.plain([args[-1]])}\n\n" if args and args[-1] is not None else ""

    def _citation(self, node, **kwargs) -> str:
        keys = [key.strip() for key in _argument_text(node).split(",") if key.strip()]
        return "[" + ", ".join(self._marker(key, key) for key in keys) + "]" if keys else ""

    def plain(self, nodes: list) -> str:
        """Plain text of nodes without link markers (titles, anchors)."""
        return normalize_space(
            _MARK.sub(lambda m: self.links[int(m.group(1))][1], self.to_text.nodelist_to_text(nodes))
        )

    def write(self, nodes: list, builder: ArticleBuilder) -> None:
        """Convert nodes to text and write it, with its links, paragraph by paragraph."""
        if not nodes:
            return
        text = self.to_text.nodelist_to_text(nodes)
        for paragraph in re.split(r"\n\s*\n", text):
            position = 0
            for match in _MARK.finditer(paragraph):
                builder.text(paragraph[position : match.start()])
                target, anchor = self.links[int(match.group(1))]
                builder.link(target, anchor)
                position = match.end()
            builder.text(paragraph[position:])
            builder.paragraph_break()
