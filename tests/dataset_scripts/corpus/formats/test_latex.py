"""LaTeX reader: sectioning levels, abstract, \\ref/\\cite links, no command left, bad input."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SAMPLES
from tests.dataset_scripts.corpus.formats.markup import LATEX_COMMAND, assert_clean, split_records
from wikiformer_kit.dataset_scripts.corpus.formats import latex
from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions

OPTIONS = ReaderOptions()


def read_one(tmp_path: Path, text: str | bytes, name: str = "paper.tex", options: ReaderOptions = OPTIONS):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return split_records(latex.read(path, options))


PAPER = r"""\documentclass{article}
\usepackage{hyperref}
\newcommand{\method}{WF}
\title{Structure for \emph{Retrieval}}
\author{A. Author}
\begin{document}
\maketitle
\begin{abstract}
We pre-train on structure \cite{su2023,ma2021}. It works.
\end{abstract}
\section{Introduction}
\label{sec:intro}
Ranking matters. Section~\ref{sec:method} gives details; see Figure~\ref{fig:arch}.
Math $x^2 + \alpha$ stays readable, \textbf{bold} too. % a comment
\begin{equation} E = mc^2 \end{equation}
\section*{Method}\label{sec:method}
As in \citep[p.~3]{ma2021}, we sample\footnote{uniformly}. Code: \url{https://x.org}, \href{https://y.org}{site}.
\begin{figure}\includegraphics{arch.png}\caption{The architecture.}\label{fig:arch}\end{figure}
\subsubsection{Deep detail}
A jump from section to subsubsection.
\subsection{Empty}
\subsection{Lists}
\begin{itemize}\item first \item second\end{itemize}
\section{See also}
\cite{harp} and Section~\ref{sec:intro}.
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
"""


def test_structure_links_and_see_also(tmp_path):
    (article,), skipped, _ = read_one(tmp_path, PAPER)
    assert skipped == []
    assert (article.id, article.title, article.source) == ("paper", "Structure for Retrieval", "latex")
    assert article.abstract == "We pre-train on structure [su2023, ma2021]. It works."
    assert [(s.title, s.level, s.parent) for s in article.sections] == [
        ("Introduction", 2, -1),
        ("Method", 2, -1),
        ("Deep detail", 4, 1),  # level jump: under the nearest shallower section
        ("Empty", 3, 1),
        ("Lists", 3, 1),
        ("See also", 2, -1),
    ]
    intro, method, deep, empty, lists, _ = article.sections
    assert intro.text == (
        "Ranking matters. Section Method gives details; see Figure fig:arch. Math x^2 + α stays readable, bold too."
    )
    assert method.text == "As in [ma2021], we sample. Code: https://x.org, site. The architecture."
    assert deep.path == ["Structure for Retrieval", "Method", "Deep detail"]
    assert empty.text == "" and lists.text == "first\nsecond"
    links = [(link.target, link.anchor, link.section) for link in article.links]
    assert links == [
        ("su2023", "su2023", -1),
        ("ma2021", "ma2021", -1),
        ("sec:method", "Method", 0),  # a section label reads as the section title
        ("fig:arch", "fig:arch", 0),
        ("ma2021", "ma2021", 1),
        ("harp", "harp", 5),
        ("sec:intro", "Introduction", 5),
    ]
    assert article.links[2].sentence == "Section Method gives details; see Figure fig:arch."
    assert article.see_also == ["harp", "sec:intro"]
    assert_clean(article, LATEX_COMMAND)
    assert "{" not in article.text and "}" not in article.text and "E = mc" not in article.text


def test_readme_example():
    articles, _, _ = split_records(latex.read(SAMPLES / "structured" / "wikiformer-readme-example.tex", OPTIONS))
    (article,) = articles
    assert article.title == "Example Academic Paper"
    assert [(s.path, s.level) for s in article.sections] == [
        (["Example Academic Paper", "Introduction"], 2),
        (["Example Academic Paper", "Methodology"], 2),
        (["Example Academic Paper", "Methodology", "Subsection of Methodology"], 3),
    ]
    assert [(link.target, link.anchor, link.section) for link in article.links] == [
        ("sec:methodology", "Methodology", 0),
        ("relatedwork", "relatedwork", 1),
    ]
    assert_clean(article, LATEX_COMMAND)


def test_fragment_without_document_environment(tmp_path):
    (article,), _, _ = read_one(tmp_path, r"Lead with \emph{style}. \section{Only} Body \cite{k}.", name="part.tex")
    assert article.title == "part" and article.abstract == "Lead with style."
    assert [(s.title, s.text) for s in article.sections] == [("Only", "Body [k].")]


def test_broken_latex_is_read_or_skipped(tmp_path):
    (article,), _, _ = read_one(tmp_path, r"\begin{document}\section{A} text {unclosed \textbf{x \section{B} more")
    assert article.sections[0].title == "A"
    assert article.sections[0].text.endswith("\nB\nmore")  # a heading swallowed by an open group stays as text
    assert_clean(article, LATEX_COMMAND)
    assert "§" not in article.text
    _, skipped, reasons = read_one(tmp_path, r"\begin{document}\section{A} " + "{" * 3000 + "x" + "}" * 3000)
    assert reasons == {"latex-error": 1} and skipped[0].record == "paper"


def test_bad_input(tmp_path):
    assert read_one(tmp_path, b"")[2] == {"empty": 1}
    assert read_one(tmp_path, r"\begin{document}\section{Title only}\end{document}")[2] == {"empty": 1}
    assert read_one(tmp_path, b"\\section{A} caf\xe9")[2] == {"non-utf8": 1}
    body = "\\section{Part} " + "A sentence with a \\cite{key} in it. " * 2000  # ~75 KB: pylatexenc is slow
    (article,), _, _ = read_one(tmp_path, body)
    assert len(article.links) == 2000
    assert read_one(tmp_path, body, options=ReaderOptions(max_article_bytes=10_000))[2] == {"too-large": 1}


def test_sniff():
    assert latex.sniff(Path("paper.tex"), b"")
    assert latex.sniff(Path("main"), b"%comment\n\\documentclass{article}")
    assert not latex.sniff(Path("notes.md"), b"# x")
