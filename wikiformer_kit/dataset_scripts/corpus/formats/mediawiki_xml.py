"""MediaWiki XML dumps (``pages-articles*.xml``, ``.bz2`` including multistream, ``.gz``), streamed page by page.

lxml's ``iterparse`` reads the dump incrementally and every page element is freed once read, so memory stays
flat whatever the dump size. Only namespace 0 becomes articles; redirects become :class:`Redirect` entries.
A dump in another encoding that its byte-order mark or XML declaration names (UTF-16 LE/BE, which XML allows
and some tools write, or a legacy 8-bit one) is handed to the XML parser as bytes, and the parser's own encoding
detection decodes it. In a UTF-8 dump, bytes that are not UTF-8 are replaced (U+FFFD) rather than ending the
file: the extraction step counts the pages they touched. A truncated or malformed file ends with a :class:`Skipped` record that names the file, the
last page read and the parser's message, so a long run goes on with the next file.

A multistream dump with its index (``...-multistream-index.txt.bz2`` beside it) can be read by byte ranges of
its bz2 streams (:func:`read_raw` with ``byte_range``), one range per pipeline task.
"""

from __future__ import annotations

import codecs
import lzma
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from lxml import etree

from wikiformer_kit.dataset_scripts.corpus.formats._bz2_streams import open_bz2_streams
from wikiformer_kit.dataset_scripts.corpus.formats.base import RawPage, ReaderOptions, Redirect, Skipped, open_binary
from wikiformer_kit.dataset_scripts.corpus.titles import normalize_title

NAME = "mediawiki-xml"
READS_WIDE_TEXT = True
"""Text in UTF-16 is read: a dump in UTF-16 is decoded as its start names it (:func:`xml_encoding`)."""
_CHUNK = 1 << 20
_DBNAME = re.compile(r"^([a-z_-]+?)wiki")
_FILE_WIKI = re.compile(r"^([a-z][a-z_-]*?)wiki(?:[-_.]|$)")
_BASE_HOST = re.compile(
    r"^(?:[a-z]+:)?//([a-z][a-z0-9-]*)\.(?:m\.)?"
    r"(?:wikipedia|wiktionary|wikibooks|wikinews|wikiquote|wikisource|wikiversity|wikivoyage)\.org(?:/|$)",
    re.I,
)
_NOT_A_LANGUAGE = frozenset({"www", "meta", "commons", "species", "incubator", "test", "simple-www"})
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
LANGUAGE_SOURCES = ("--language", "<dbname>", "xml:lang", "<base>", "file name", "default")
"""Where a dump's language comes from, first that gives one: the option, then the dump itself (``<dbname>``
since about 2015, the ``xml:lang`` of its ``<mediawiki>`` root, the host of its ``<base>`` URL), then the file's
name (``dewiki-20150301-pages-articles.xml``), else the reader's default (English)."""
_OPEN_ROOT, _CLOSE_ROOT = b"<mediawiki>", b"</mediawiki>"


_DECLARED = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def xml_encoding(head: bytes) -> str:
    """The encoding an XML document's first bytes name: byte-order mark, UTF-16 without one (``<`` as two
    bytes), else the XML declaration's ``encoding``; UTF-8 when none is named (XML's default)."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    if head.startswith(b"<\0"):
        return "utf-16-le"
    if head.startswith(b"\0<"):
        return "utf-16-be"
    declared = _DECLARED.match(head)
    if declared:
        name = declared.group(1).decode("ascii").lower()
        return "utf-8" if name in ("utf-8", "utf8") else name
    return "utf-8"


def sniff(path: Path, head: bytes) -> bool:
    """A MediaWiki export: its root element is ``<mediawiki``, in the encoding the file's start names."""
    encoding = xml_encoding(head)
    if encoding == "utf-8":
        return b"<mediawiki" in head
    try:
        text = head[: len(head) // 2 * 2].decode(encoding, errors="replace")
    except LookupError:
        return False
    return "<mediawiki" in text


class _Utf8Stream:
    """A binary stream re-encoded as valid UTF-8: invalid bytes become U+FFFD instead of an XML error."""

    def __init__(self, stream: BinaryIO, on_bytes=None):
        self.stream = stream
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.on_bytes = on_bytes

    def read(self, size: int = _CHUNK) -> bytes:
        data = self.stream.read(size)
        if self.on_bytes:
            self.on_bytes(len(data))
        return self.decoder.decode(data, final=not data).encode("utf-8")


class _Prefixed:
    """A binary stream with its first bytes (already read to find the encoding) put back in front."""

    def __init__(self, prefix: bytes, stream: BinaryIO):
        self.prefix, self.stream = prefix, stream

    def read(self, size: int = _CHUNK) -> bytes:
        if self.prefix:
            chunk, self.prefix = self.prefix[:size], self.prefix[size:]
            return chunk
        return self.stream.read(size)

    def close(self) -> None:
        self.stream.close()


class _XmlStream:
    """What the XML parser reads: UTF-8 with bad bytes replaced, or, for a dump in another encoding, the raw
    bytes, which the parser decodes as the byte-order mark or XML declaration says. The encoding is looked up on
    the first read, so that a file broken from its first bytes fails inside the parse (a counted skip)."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        self.inner = None

    def read(self, size: int = _CHUNK) -> bytes:
        if self.inner is None:
            head = self.stream.read(1024)
            encoding = xml_encoding(head)
            if encoding == "utf-8":
                self.inner = _Utf8Stream(_Prefixed(head, self.stream))
            else:
                if encoding in ("utf-16-le", "utf-16-be") and not head.startswith(
                    (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
                ):  # XML wants a byte-order mark on UTF-16; without one the parser would not detect it
                    head = (codecs.BOM_UTF16_LE if encoding == "utf-16-le" else codecs.BOM_UTF16_BE) + head
                self.inner = _Prefixed(head, self.stream)
        return self.inner.read(size)


class _MultistreamRange:
    """The pages of the bz2 streams between two byte offsets of a multistream dump, as one XML document."""

    def __init__(self, path: str | Path, start: int, end: int, on_bytes=None):
        self.stream = open_bz2_streams(path, start, end, on_bytes)
        self.pending = _OPEN_ROOT
        self.held = b""  # the end of the last chunk, which may be the start of a closing tag split between chunks
        self.finished = False
        self.failure: Exception | None = None

    def read(self, size: int = _CHUNK) -> bytes:
        if self.failure is not None and not self.pending:
            raise self.failure
        parts, length = [self.pending], len(self.pending)
        while length < size and not self.finished and self.failure is None:
            try:  # one read at a time, so that what was decompressed before a damaged stream is kept
                data = self.stream.read1(_CHUNK)
            except (EOFError, OSError) as error:  # raised once the pages before it are parsed
                self.failure = error
                parts.append(self.held)
                break
            if not data:
                self.finished = True
                parts.append(self.held + _CLOSE_ROOT)
                break
            # The last stream of the dump closes the root element; the wrapper closes it instead.
            text = (self.held + data).replace(_CLOSE_ROOT, b"")
            cut = max(0, len(text) - len(_CLOSE_ROOT) + 1)
            parts.append(text[:cut])
            length += cut
            self.held = text[cut:]
        pending = b"".join(parts)
        chunk, self.pending = pending[:size], pending[size:]
        return chunk

    def close(self) -> None:
        self.stream.close()


def read_siteinfo(path: str | Path, stream: BinaryIO | None = None, options: ReaderOptions = ReaderOptions()) -> dict:
    """Language (and ``language_source``, one of :data:`LANGUAGE_SOURCES`), base URL and namespace names from the
    dump's ``<siteinfo>`` and root (empty values when absent)."""
    info = {"language": "", "base": "", "namespaces": ()}
    info.update(zip(("language", "language_source"), dump_language({}, str(path), options), strict=True))
    own = stream is None
    stream = stream or open_binary(path)
    try:
        for _, element in etree.iterparse(_XmlStream(stream), events=("end",), tag=("{*}siteinfo", "{*}page")):
            if etree.QName(element).localname == "siteinfo":
                info = _siteinfo(element)
            else:
                info["xml_lang"] = _root_language(element)
            info["language"], info["language_source"] = dump_language(info, str(path), options)
            break
    except (etree.XMLSyntaxError, OSError, EOFError, LookupError, lzma.LZMAError):
        pass
    finally:
        if own:
            stream.close()
    return info


def _siteinfo(element) -> dict:
    dbname = element.findtext("{*}dbname") or ""
    match = _DBNAME.match(dbname)
    namespaces = tuple(
        (int(ns.get("key")), (ns.text or "").strip())
        for ns in element.iterfind("{*}namespaces/{*}namespace")
        if re.fullmatch(r"-?\d+", ns.get("key") or "")  # a damaged entry is left out, not fatal
    )
    base = element.findtext("{*}base") or ""
    host = _BASE_HOST.match(base.strip())
    return {
        "dbname_language": match.group(1).replace("_", "-") if match else "",
        "xml_lang": _root_language(element),
        "base_language": host.group(1).lower() if host and host.group(1).lower() not in _NOT_A_LANGUAGE else "",
        "base": base.rsplit("/", 1)[0] + "/" if "/wiki/" in base else "",
        "namespaces": namespaces,
    }


def _root_language(element) -> str:
    """The ``xml:lang`` of the ``<mediawiki>`` root holding ``element`` (lower case; empty when absent)."""
    root = element.getparent()
    return (root.get(_XML_LANG) or "").strip().lower() if root is not None else ""


def dump_language(info: dict, file: str, options: ReaderOptions) -> tuple[str, str]:
    """The language of a dump and where it comes from (:data:`LANGUAGE_SOURCES`): ``--language`` when given, else
    ``<dbname>``, ``xml:lang``, ``<base>``'s host (``info`` as :func:`_siteinfo` reads it), the file name, the
    reader's default."""
    if options.language_given:
        return options.language, "--language"
    named = _FILE_WIKI.match(Path(file).name)
    candidates = (
        (info.get("dbname_language", ""), "<dbname>"),
        (info.get("xml_lang", ""), "xml:lang"),
        (info.get("base_language", ""), "<base>"),
        (named.group(1).replace("_", "-") if named else "", "file name"),
    )
    return next(((code, source) for code, source in candidates if code), (options.language, "default"))


def read_raw(
    path: str | Path,
    options: ReaderOptions = ReaderOptions(),
    *,
    byte_range: tuple[int, int] | None = None,
    on_bytes=None,
) -> Iterator[RawPage | Redirect | Skipped]:
    """Stream the pages of a dump as :class:`RawPage` (namespace 0), :class:`Redirect` or :class:`Skipped` (the raw
    hook of :mod:`.base`); ``options.language`` applies as :func:`dump_language` says. With ``byte_range`` (whole bz2
    streams of a multistream dump), the siteinfo is read from the dump's first stream."""
    file = str(path)
    if byte_range is None:
        stream = _XmlStream(open_binary(path, on_bytes))
        info = None
    else:
        info = read_siteinfo(path, options=options)
        stream = _Utf8Stream(_MultistreamRange(path, byte_range[0], byte_range[1], on_bytes))
    language, _ = dump_language({}, file, options)
    base = ""
    namespaces: tuple = ()
    if info:
        language, base, namespaces = info["language"], info["base"], info["namespaces"]
    last = "(before the first page)"
    try:
        for _, element in etree.iterparse(
            stream, events=("end",), tag=("{*}siteinfo", "{*}page"), huge_tree=True, remove_comments=True
        ):
            if etree.QName(element).localname == "siteinfo":
                info = _siteinfo(element)
                language, _ = dump_language(info, file, options)
                base, namespaces = info["base"], info["namespaces"]
            else:
                if info is None:  # a dump without <siteinfo>: its root may still say its language
                    info = {"xml_lang": _root_language(element)}
                    language, _ = dump_language(info, file, options)
                record = _page(element, file, language, base, namespaces, options)
                last = getattr(record, "title", None) or getattr(record, "source", None) or record.record
                yield record
            element.clear()
            while element.getprevious() is not None:
                del element.getparent()[0]
    except etree.XMLSyntaxError as error:
        yield Skipped("malformed-xml", file, f"after page {last!r}", f"{error}; the rest of this file is not read")
    except (EOFError, OSError, lzma.LZMAError) as error:
        yield Skipped("truncated-file", file, f"after page {last!r}", f"{error}; the rest of this file is not read")
    finally:
        getattr(stream.stream, "close", lambda: None)()


def _page(element, file: str, language: str, base: str, namespaces: tuple, options: ReaderOptions):
    title = element.findtext("{*}title") or ""
    namespace = (element.findtext("{*}ns") or "0").strip()
    if namespace != "0":
        return Skipped("not-article-namespace", file, title, f"namespace {namespace}")
    redirect = element.find("{*}redirect")
    if redirect is not None:
        return Redirect(title, normalize_title(redirect.get("title") or ""))
    text = element.findtext("{*}revision/{*}text") or ""
    if not text.strip():
        return Skipped("empty", file, title, "the page has no wikitext")
    if options.max_article_bytes and len(text.encode("utf-8")) > options.max_article_bytes:
        return Skipped("too-large", file, title, f"{len(text)} characters > max_article_bytes")
    url = base + title.replace(" ", "_") if base else ""
    page_id = element.findtext("{*}id") or title
    return RawPage(title, text, page_id, url, language or "en", namespaces, source=NAME, file=file)
