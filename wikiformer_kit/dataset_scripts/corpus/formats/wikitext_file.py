"""Raw wikitext files, one page per file (``*.wiki``, ``*.wikitext``, ``*.txt``); the title is the file name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from wikiformer_kit.dataset_scripts.corpus.formats.base import RawPage, ReaderOptions, Redirect, Skipped, open_binary
from wikiformer_kit.dataset_scripts.corpus.wikitext import redirect_target

NAME = "wikitext"
SUFFIXES = (".wiki", ".wikitext", ".mediawiki", ".txt")


def sniff(path: Path, head: bytes) -> bool:
    """A text file with a wikitext suffix whose start looks like wikitext (markup or a redirect)."""
    name = Path(path).name.lower().removesuffix(".bz2").removesuffix(".gz")
    text = head.decode("utf-8", errors="replace")
    return name.endswith(SUFFIXES) and any(mark in text for mark in ("[[", "{{", "'''", "\n==", "#REDIRECT"))


def title_from_path(path: str | Path) -> str:
    """The page title a file name stands for (underscores are spaces, as in URLs)."""
    name = Path(path).name
    for suffix in (".bz2", ".gz", *SUFFIXES):
        name = name.removesuffix(suffix)
    return name.replace("_", " ").strip()


def read_raw(
    path: str | Path,
    options: ReaderOptions = ReaderOptions(),
    *,
    byte_range: tuple[int, int] | None = None,
    on_bytes=None,
) -> Iterator[RawPage | Redirect | Skipped]:
    """The file as one :class:`RawPage`, a :class:`Redirect`, or a :class:`Skipped` naming the file (the raw hook
    of :mod:`.base`; a page file is read whole, so ``byte_range`` must be ``None``)."""
    if byte_range is not None:
        raise ValueError(f"{path}: a wikitext file is read whole, not by byte range {byte_range}")
    file, title = str(path), title_from_path(path)
    try:
        with open_binary(path, on_bytes) as stream:
            data = stream.read()
    except (OSError, EOFError) as error:
        yield Skipped("unreadable-file", file, title, str(error))
        return
    text = data.decode("utf-8-sig", errors="replace")  # a byte-order mark is no part of the page
    if not text.strip():
        yield Skipped("empty", file, title, "the file is empty")
    elif (target := redirect_target(text)) is not None:
        yield Redirect(title, target)
    elif options.max_article_bytes and len(data) > options.max_article_bytes:
        yield Skipped("too-large", file, title, f"{len(data)} bytes > max_article_bytes")
    else:
        yield RawPage(title, text, title, "", options.language, source=NAME, file=file)
