"""The See Also Graph (SAG) and the corpus-wide article index LTM samples from, kept on disk.

Per corpus shard, :func:`index_table` writes one Arrow IPC file of ``(title, article_id, display_title, text,
eligible)`` rows in corpus order (``text`` already cut to the LTM word budget) and :func:`edge_table` the shard's
See also links. :class:`ArticleIndex` memory-maps all index files (texts are read from disk only for the rows a
group uses); only the eligibility flags (and the eligible rows, 5 bytes an article in all) are held in memory, and
:meth:`ArticleIndex.release_pages` lets a long-lived worker drop the mapped pages it has read. LTM
resolves link targets in the partitioned title join on disk (:mod:`.see_also_join`);
:meth:`ArticleIndex.resolve` resolves them in memory with Arrow's hash lookup over every title and redirect (the
reference the join is tested against, and what the HARP/ACM baselines use).
"""

from __future__ import annotations

import itertools
import mmap
import re
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.titles import normalize_title
from wikiformer_kit.dataset_scripts.tasks.common import count_words, end_matter
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions

INDEX_SCHEMA = pa.schema(
    [
        ("title", pa.string()),
        ("article_id", pa.string()),
        ("display_title", pa.string()),
        ("text", pa.string()),
        ("eligible", pa.bool_()),
    ]
)
EDGE_SCHEMA = pa.schema([("source", pa.int64()), ("target", pa.string())])
MAX_REDIRECT_HOPS = 5
_WORD = re.compile(r"\S+")


def index_table(articles: Sequence[Article], options: TaskOptions) -> pa.Table:
    """The index rows of a shard's articles, in order. An article is ``eligible`` (may be a query, positive or
    negative) when it is not a disambiguation page and its text has at least ``min_words`` words."""
    texts, eligible = [], []
    for article in articles:
        text, words = ltm_text(article, options.ltm_max_words)
        texts.append(text)
        eligible.append(not article.is_disambiguation and words >= options.min_words)
    return pa.table(
        {
            "title": [normalize_title(a.title) for a in articles],
            "article_id": [a.id for a in articles],
            "display_title": [a.title for a in articles],
            "text": texts,
            "eligible": eligible,
        },
        schema=INDEX_SCHEMA,
    )


def ltm_text(article: Article, max_words: int) -> tuple[str, int]:
    """``(truncate_words(text, max_words), count_words(text))`` of the article's text without its end matter
    (:func:`~.common.end_matter`: See also, references, external links; left out even with ``--keep-sections``) and
    without a line that is one of its own See also targets: LTM pairs this text with those targets, and a text
    that lists its positive's title would teach a re-ranker to match a title string. The whole text is not built:
    parts are counted one by one and only those within the budget are joined (words never span parts, which
    ``Article.text`` joins with blank lines)."""
    left_out = end_matter(article)
    sections = [s.text for i, s in enumerate(article.sections) if i not in left_out]
    parts = [p for p in (_without_target_lines(p, article.see_also) for p in [article.abstract, *sections]) if p]
    kept, words = [], 0
    for part in parts:
        count = count_words(part)
        if max_words <= 0 or words < max_words:
            kept.append(part if max_words <= 0 or words + count <= max_words else _first_words(part, max_words - words))
        words += count
    return "\n\n".join(kept).strip(), words


def _without_target_lines(text: str, targets: Sequence[str]) -> str:
    """``text`` without the lines that name one of ``targets`` and nothing else (a See also list kept under a
    heading that no table names)."""
    if not targets or not text:
        return text
    titles = {normalize_title(t.split("#", 1)[0]).casefold() for t in targets}
    lines = text.split("\n")
    kept = [line for line in lines if not _names_a_target(line, titles)]
    return text if len(kept) == len(lines) else "\n".join(kept)


def _names_a_target(line: str, titles: set[str]) -> bool:
    stripped = line.strip(" \t*#:;•·-–—")
    return bool(stripped) and normalize_title(stripped).casefold() in titles


def _first_words(text: str, count: int) -> str:
    """``text`` up to the end of its ``count``-th word (``count`` >= 1), leading spacing kept."""
    for number, match in enumerate(_WORD.finditer(text), start=1):
        if number == count:
            return text[: match.end()]
    return text


def edge_table(articles: Sequence[Article]) -> pa.Table:
    """The See also links of a shard: ``source`` = the article's position in the shard, ``target`` = the raw
    target title (resolved later, against the whole corpus)."""
    sources, targets = [], []
    for position, article in enumerate(articles):
        for target in article.see_also:
            sources.append(position)
            targets.append(target)
    return pa.table({"source": sources, "target": targets}, schema=EDGE_SCHEMA)


def write_index(table: pa.Table, path: Path) -> None:
    """Write an index shard as an uncompressed Arrow IPC file (so that it can be memory-mapped)."""
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, INDEX_SCHEMA) as writer:
        writer.write_table(table)


class ArticleIndex:
    """All articles of the corpus, memory-mapped from the index shards, with title and redirect resolution.

    Args:
        index_files: the Arrow IPC index shards, in corpus order (row numbers follow this order).
        redirect_files: Parquet files with ``source`` and ``target`` columns (the corpus redirects).
    """

    def __init__(self, index_files: Sequence[Path], redirect_files: Sequence[Path] = ()):
        self._maps = [_map_file(Path(p)) for p in index_files]
        self._shards = tables = [pa.ipc.open_file(pa.py_buffer(mapped)).read_all() for mapped in self._maps]
        self.table = pa.concat_tables(tables) if tables else INDEX_SCHEMA.empty_table()
        self.offsets = np.concatenate([[0], np.cumsum([t.num_rows for t in tables], dtype=np.int64)])
        self.eligible = self.table.column("eligible").to_numpy(zero_copy_only=False).astype(bool)
        # shard by shard: no int64 array of every eligible row (8 bytes an article) on the way
        row_type = np.int32 if len(self.eligible) < 2**31 else np.int64
        self.eligible_rows = np.concatenate(
            [np.array([], dtype=row_type)]
            + [
                (np.flatnonzero(self.eligible[start:stop]) + start).astype(row_type)
                for start, stop in zip(self.offsets[:-1], self.offsets[1:], strict=True)
            ]
        )
        self._redirect_files = list(redirect_files)
        self._readers: dict[int, list] = {}

    @cached_property
    def _titles(self) -> pa.Array:
        """Every normalised title, in memory (only :meth:`resolve` needs them)."""
        return self.table.column("title").combine_chunks()

    @cached_property
    def _redirects(self) -> tuple[pa.Array, pa.Array]:
        return _read_redirects(self._redirect_files)

    def __len__(self) -> int:
        return self.table.num_rows

    def release_pages(self) -> None:
        """Unmap the index pages read so far from this process (the kernel's page cache keeps them; a later read
        maps them again). Without it a worker that reads rows all over the corpus, as LTM's random negatives do,
        ends up with the whole index counted in its RSS, which grows with the corpus (cluster schedulers that
        police RSS count it)."""
        for mapped in self._maps:
            self._release(mapped)

    @staticmethod
    def _release(mapped: mmap.mmap) -> None:
        if hasattr(mmap, "MADV_DONTNEED"):  # not on Windows
            mapped.madvise(mmap.MADV_DONTNEED)

    def resolve(self, titles: Sequence[str]) -> list[int | None]:
        """Row numbers of the articles the titles name (after following redirects), ``None`` when missing.

        Holds every title and redirect of the corpus in memory: LTM uses :class:`.see_also_join.TitleJoin`."""
        unique = list(dict.fromkeys(titles))  # a unit's links name the same pages again and again
        if len(unique) < len(titles):
            rows = dict(zip(unique, self._resolve(unique), strict=True))
            return [rows[title] for title in titles]
        return self._resolve(unique)

    def _resolve(self, titles: Sequence[str]) -> list[int | None]:
        redirect_sources, redirect_targets = self._redirects
        current = pa.array([normalize_title(t) for t in titles], type=pa.string())
        rows = pc.index_in(current, value_set=self._titles).to_pylist()
        for _ in range(MAX_REDIRECT_HOPS):
            pending = [i for i, row in enumerate(rows) if row is None]
            if not pending or len(redirect_sources) == 0:
                break
            hop = pc.index_in(current.take(pending), value_set=redirect_sources).to_pylist()
            followed = [(i, h) for i, h in zip(pending, hop, strict=True) if h is not None]
            if not followed:
                break
            targets = redirect_targets.take([h for _, h in followed])
            found = pc.index_in(targets, value_set=self._titles).to_pylist()
            current = current.to_pylist()
            for (i, _), target, row in zip(followed, targets.to_pylist(), found, strict=True):
                current[i] = target
                rows[i] = row
            current = pa.array(current, type=pa.string())
        return rows

    def rows(self, rows: Sequence[int]) -> dict[int, tuple[str, str, str]]:
        """``row -> (article_id, display_title, text)`` for the given rows (read from disk).

        Each value is decoded from its shard's mapped bytes alone: a take over the whole corpus table would first
        concatenate every shard's texts into memory (pyarrow's take on a chunked table), and a take per shard
        costs tens of microseconds however few rows it takes, while a unit's destinations lie in most shards of a
        large corpus. Each shard's pages are unmapped once its rows are copied out (:meth:`release_pages`), so
        reading rows all over the corpus leaves at most one shard's pages in this process's RSS."""
        unique = np.unique(np.asarray(list(rows), dtype=np.int64))
        shard_of = np.searchsorted(self.offsets, unique, side="right") - 1
        bounds = [*np.flatnonzero(np.diff(shard_of, prepend=-1)).tolist(), len(unique)]  # a run of rows a shard
        found: dict[int, tuple[str, str, str]] = {}
        for lo, hi in itertools.pairwise(bounds if len(unique) else []):
            shard = int(shard_of[lo])
            local = unique[lo:hi] - self.offsets[shard]
            columns = [strings(local) for strings in self._row_readers(shard)]
            found.update(zip(unique[lo:hi].tolist(), zip(*columns, strict=True), strict=True))
            self._release(self._maps[shard])
        return found

    def _row_readers(self, shard: int) -> list:
        """Per column :meth:`rows` returns, a function of a shard's local rows (ascending) to their values; made
        once per shard."""
        readers = self._readers.get(shard)
        if readers is None:
            columns = [self._shards[shard].column(name) for name in ("article_id", "display_title", "text")]
            readers = self._readers[shard] = [_string_reader(column) for column in columns]
        return readers


def _string_reader(column: pa.ChunkedArray):
    """A function of rows (ascending) to a string column's values at them: sliced out of its UTF-8 data by its
    offsets when it is one chunk without nulls (an index shard as written), else taken."""
    if column.num_chunks != 1 or column.null_count or not pa.types.is_string(column.type):
        return lambda rows: column.take(pa.array(rows, pa.int64())).to_pylist()
    array = column.chunk(0)
    bounds = np.frombuffer(array.buffers()[1], dtype=np.int32)[array.offset : array.offset + len(array) + 1]
    data = memoryview(array.buffers()[2] or b"")

    def strings(rows: np.ndarray) -> list[str]:
        starts, ends = bounds[rows].tolist(), bounds[rows + 1].tolist()
        return [str(data[start:end], "utf-8") for start, end in zip(starts, ends, strict=True)]

    return strings


def _map_file(path: Path) -> mmap.mmap:
    """A read-only memory map of an index shard (Python's, unlike pyarrow's, can drop its pages: ``madvise``)."""
    with path.open("rb") as file:
        return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)


def _read_redirects(files: Sequence[Path]) -> tuple[pa.Array, pa.Array]:
    if not files:
        return pa.array([], pa.string()), pa.array([], pa.string())
    table = pa.concat_tables([pq.read_table(f, columns=["source", "target"]) for f in files])
    return normalize_titles(table.column("source")), normalize_titles(table.column("target"))


# A title that normalize_title would change: an entity, escape, fragment, underscore, double or edge space, a
# leading colon, a character Python's str.isprintable rejects, or a first letter that may have an upper case.
_NOT_NORMAL = (
    r"[&%#_]|\s\s|^[\s:]|\s$|\p{C}|\p{Zl}|\p{Zp}|[\x{00A0}\x{1680}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}]"
    r"|^[a-z]|^[^\x00-\x7f]"
)


def normalize_titles(titles: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``normalize_title`` over an Arrow string array: titles already in normal form (nearly all of a dump's
    redirect titles) are found by one regex pass and kept as they are; only the others become Python strings.
    A whole dump's redirects (10M in English) thus cost neither a Python string each nor their memory."""
    titles = titles.combine_chunks() if isinstance(titles, pa.ChunkedArray) else titles
    titles = titles.fill_null("")
    odd = np.flatnonzero(pc.match_substring_regex(titles, _NOT_NORMAL).to_numpy(zero_copy_only=False))
    if len(odd) == 0:
        return titles
    fixed = pa.array([normalize_title(t) for t in titles.take(odd).to_pylist()], pa.string())
    mask = np.zeros(len(titles), dtype=bool)
    mask[odd] = True
    return pc.replace_with_mask(titles, pa.array(mask), fixed)
