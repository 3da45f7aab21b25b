"""Make a large, realistic MediaWiki dump from the vendored real sample: a bz2 multistream dump with its index.

    python -m wikiformer_kit.benchmarks.big_dump --articles 50000 --output-dir /tmp/big [--parts 4] [--prefix enwiki-big]

Method: docs/benchmarks.md ("How each benchmark measures", ``big_dump``).
"""

from __future__ import annotations

import argparse
import bz2
import html
import math
import re
import sys
import zlib
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from wikiformer_kit.home import kit_file

SAMPLE = kit_file("data/samples/wikipedia/enwiki-sample.xml.bz2")
PAGES_PER_STREAM = 100

_PAGE = re.compile(r"  <page>\n.*?</page>\n", re.S)
_TITLE = re.compile(r"<title>(.*?)</title>")
_ID = re.compile(r"<id>(\d+)</id>")
_NS = re.compile(r"<ns>(\d+)</ns>")
_REDIRECT = re.compile(r'<redirect title="(.*?)" />')
_LINK = re.compile(r"\[\[([^\[\]|#]*)(#[^\[\]|]*)?(\|[^\[\]]*)?\]\]")
_SEE_ALSO = re.compile(r"^==\s*see also\s*==[ \t]*$(.*?)(?=^==[^=]|\Z)", re.I | re.M | re.S)
_TEMPLATE_TARGET = re.compile(r"(\{\{\s*(?:annotated link|anl|main|further|see also|section link)\s*\|)([^|{}]*)", re.I)


def normal(title: str) -> str:
    """A title as MediaWiki compares them: underscores as spaces, trimmed, first letter upper case."""
    title = " ".join(title.replace("_", " ").split())
    return title[:1].upper() + title[1:]


def copy_suffix(k: int) -> str:
    """What copy ``k`` appends to every title (nothing for copy 0, the sample itself)."""
    return f" (copy {k})" if k else ""


def id_stride(largest_id: int) -> int:
    """What copy k adds to a page id, k times: the next power of ten above the largest id."""
    return 10 ** math.ceil(math.log10(largest_id + 1))


class Sample:
    """The sample's header, pages and titles, and how to make copy k of a page."""

    def __init__(self, path: Path = SAMPLE):
        xml = bz2.decompress(path.read_bytes()).decode("utf-8")
        first = _PAGE.search(xml)
        self.header = xml[: first.start()]
        self.footer = "</mediawiki>\n"
        self.pages = _PAGE.findall(xml)
        self.titles = {normal(_TITLE.search(p).group(1)) for p in self.pages}
        ids = [int(_ID.search(p).group(1)) for p in self.pages]
        self.stride = id_stride(max(ids))
        self.articles = sorted(
            normal(_TITLE.search(p).group(1))
            for p in self.pages
            if _NS.search(p).group(1) == "0" and "<redirect" not in p
        )
        self.articles_per_copy = len(self.articles)

    def stand_in(self, target: str, own: str) -> str:
        """The sample article a See also target outside the sample is pointed at (fixed per target name, never
        the page itself): the sample's own See also links mostly leave it, a full dump's mostly resolve."""
        number = zlib.crc32(normal(target).encode("utf-8")) % len(self.articles)
        pick = self.articles[number]
        return pick if pick != own else self.articles[(number + 1) % len(self.articles)]

    def copy(self, page: str, k: int, distinct_anchors: bool = False) -> tuple[str, int, str]:
        """Copy ``k`` of a page: ``(xml, page id, title)``. Copy 0 differs from the sample only in its See also
        links to pages outside the sample, which point at a stand-in sample article instead. With
        ``distinct_anchors``, a relinked link's text gets the copy's suffix too, so that an anchor text names one
        page across the copies as it does in the sample (otherwise every anchor text of a copied link names a page
        of each copy, which makes all of them ambiguous to HARP's QDM)."""
        suffix = copy_suffix(k)
        own = normal(html.unescape(_TITLE.search(page).group(1)))

        def see_also_link(match: re.Match) -> str:
            target, label = match.group(1), match.group(3)
            if normal(target) in self.titles or ":" in target:
                return match.group(0)
            return f"[[{self.stand_in(target, own)}{label or '|' + target}]]"

        def see_also_template(match: re.Match) -> str:
            target = match.group(2)
            if normal(target) in self.titles or not target.strip():
                return match.group(0)
            return match.group(1) + self.stand_in(target, own)

        def see_also(match: re.Match) -> str:
            whole, cut = match.group(0), match.start(1) - match.start(0)
            body = _TEMPLATE_TARGET.sub(see_also_template, _LINK.sub(see_also_link, match.group(1)))
            return whole[:cut] + body

        def link(match: re.Match) -> str:
            target, anchor, label = match.group(1), match.group(2) or "", match.group(3)
            if not suffix or normal(target) not in self.titles:
                return match.group(0)
            label = (label or "|" + target + anchor) + (suffix if distinct_anchors else "")
            return f"[[{target.strip()}{suffix}{anchor}{label}]]"

        def template(match: re.Match) -> str:
            target = match.group(2)
            return match.group(0) if normal(target) not in self.titles else f"{match.group(1)}{target.strip()}{suffix}"

        head, _, text = page.partition("<text")
        text = _SEE_ALSO.sub(see_also, text)
        if not suffix:
            return head + "<text" + text, int(_ID.search(head).group(1)), _TITLE.search(head).group(1)
        title = _TITLE.search(head).group(1) + suffix
        page_id = int(_ID.search(head).group(1)) + k * self.stride
        head = _TITLE.sub(lambda _: f"<title>{title}</title>", head, count=1)
        head = _ID.sub(lambda _: f"<id>{page_id}</id>", head, count=1)
        head = _REDIRECT.sub(
            lambda m: f'<redirect title="{m.group(1)}{suffix if normal(m.group(1)) in self.titles else ""}" />', head
        )
        text = _TEMPLATE_TARGET.sub(template, _LINK.sub(link, text))
        return f"{head}<text{text}", page_id, title


def _compress(chunk: str) -> bytes:
    return bz2.compress(chunk.encode("utf-8"), 9)


def _streams(sample: Sample, copies: int, distinct_anchors: bool) -> Iterator[list[tuple[str, int, str]]]:
    batch = []
    for k in range(copies):
        for page in sample.pages:
            batch.append(sample.copy(page, k, distinct_anchors))
            if len(batch) == PAGES_PER_STREAM:
                yield batch
                batch = []
    if batch:
        yield batch


def _part_names(prefix: str, part: int | None, first: int, last: int) -> tuple[str, str]:
    if part is None:
        return f"{prefix}-pages-articles-multistream.xml.bz2", f"{prefix}-pages-articles-multistream-index.txt.bz2"
    pages = f"p{first}p{last}"
    return (
        f"{prefix}-pages-articles-multistream{part}.xml-{pages}.bz2",
        f"{prefix}-pages-articles-multistream-index{part}.txt-{pages}.bz2",
    )


def write_dump(
    output_dir: Path,
    articles: int,
    parts: int = 1,
    prefix: str = "enwiki-big",
    workers: int = 2,
    sample_path: Path = SAMPLE,
    distinct_anchors: bool = False,
) -> list[Path]:
    """Write a multistream dump of at least ``articles`` articles (whole copies of the sample at
    ``sample_path``; ``distinct_anchors``: see :meth:`Sample.copy`); returns the dump files (each with its index
    beside it)."""
    sample = Sample(sample_path)
    copies = max(1, math.ceil(articles / sample.articles_per_copy))
    streams = list(_streams(sample, copies, distinct_anchors))
    per_part = math.ceil(len(streams) / parts)
    output_dir.mkdir(parents=True, exist_ok=True)
    written, next_first = [], 1
    with ProcessPoolExecutor(max(1, workers)) as pool:
        for part in range(parts):
            chunk = streams[part * per_part : (part + 1) * per_part]
            if not chunk:
                break
            # Wikimedia names a part by the page id range it covers: the next part starts one id after this one
            first_id = next_first
            name, index_name = _part_names(prefix, part + 1 if parts > 1 else None, first_id, chunk[-1][-1][1])
            next_first = chunk[-1][-1][1] + 1
            compress = partial(pool.map, chunksize=4)
            written.append(write_streams(output_dir / name, output_dir / index_name, sample, chunk, compress))
    return written


def write_streams(path: Path, index_path: Path, dump, streams: list[list[tuple[str, int, str]]], compress=map) -> Path:
    """A multistream dump at ``path``: ``dump.header``, each stream of ``(xml, page id, title)`` pages and
    ``dump.footer``, each compressed alone (``compress``: a ``map``), with its ``offset:id:title`` index at
    ``index_path``."""
    texts = [dump.header] + ["".join(xml for xml, _, _ in stream) for stream in streams] + [dump.footer]
    index_lines = []
    with open(path, "wb") as out:
        for number, data in enumerate(compress(_compress, texts)):
            if 1 <= number <= len(streams):
                offset = out.tell()
                index_lines += [
                    f"{offset}:{page_id}:{html.unescape(title)}\n" for _, page_id, title in streams[number - 1]
                ]
            out.write(data)
    index_path.write_bytes(bz2.compress("".join(index_lines).encode("utf-8"), 9))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, required=True, help="at least this many articles (whole copies)")
    parser.add_argument("--output-dir", type=Path, required=True)
    parser.add_argument("--parts", type=int, default=1, help="split into this many part files")
    parser.add_argument("--prefix", default="enwiki-big")
    parser.add_argument("--workers", type=int, default=2, help="processes compressing streams")
    parser.add_argument(
        "--sample", type=Path, default=SAMPLE, help="the real dump to repeat (default: the vendored enwiki sample)"
    )
    parser.add_argument(
        "--distinct-anchor-texts", action="store_true",
        help="a relinked link's text gets the copy's suffix too (an anchor text then names one page, as in the sample)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    files = write_dump(
        args.output_dir, args.articles, args.parts, args.prefix, args.workers, args.sample, args.distinct_anchor_texts
    )
    for path in files:
        print(f"{path} ({path.stat().st_size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
