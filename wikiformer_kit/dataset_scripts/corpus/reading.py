"""Read a shard ahead of its extraction: in a thread, or in a process of its own.

Reading a dump is bz2 decompression and XML parsing (about a fifth of the work); extraction is wikitext parsing.
Run one after the other, each task uses one core for both. A reader process (forked, so nothing is imported
again) lets a task read the next pages while it parses the current ones, as wikiextractor does with its reader
and extractor processes. That only pays when a core is free for it: with as many tasks as cores, the reader
processes compete with the extractors, so ``auto`` reads in line then.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from queue import Empty, Queue

from wikiformer_kit.dataset_scripts.corpus.formats.base import ReaderOptions
from wikiformer_kit.dataset_scripts.corpus.sources import Shard, get_format

BATCH = 16  # records per message to the reader process's consumer
READ_AHEAD_CHOICES = ("auto", "process", "off")
PROCESS_MIN_BYTES = 128 << 10
"""A smaller shard is read ahead in a thread: a reader process takes ~7 ms to start (fork, queue, join on the 2-core
dev VM), about what decompressing 40 KiB of bz2 takes, and a one-page file has nothing to overlap anyway."""


def read_shard(shard: Shard, options: ReaderOptions, read_ahead: str, on_bytes: Callable[[int], object]) -> Iterator:
    """The records of a shard as its format's reader yields them (:class:`RawPage` from the raw hook ``read_raw``,
    Articles from ``read``; see :mod:`.formats.base`), read ahead when ``read_ahead`` is ``process``.

    A ``read_raw`` shard of at least :data:`PROCESS_MIN_BYTES` is read by a process of its own; anything else is
    read ahead by a thread (or in line with ``off``). ``on_bytes`` reports input bytes read where the reader
    counts them.
    """
    module = get_format(shard.fmt)
    if hasattr(module, "read_raw"):
        if read_ahead == "process" and shard.size >= PROCESS_MIN_BYTES:
            return read_raw_in_process(shard, options, on_bytes)
        records = module.read_raw(shard.path, options, byte_range=shard.byte_range, on_bytes=on_bytes)
    else:  # only the parameters a shard needs: a format that never splits a file takes none of them
        cut = {"part": shard.record_part, "byte_range": shard.line_range, "row_groups": shard.row_group_range}
        records = module.read(
            Path(shard.path), options, **{key: value for key, value in cut.items() if value is not None}
        )
    return prefetch(records) if read_ahead == "process" else records


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask, which Slurm and containers narrow)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def resolve_read_ahead(read_ahead: str, workers: int, executor: str = "local") -> str:
    """``process`` or ``off``: what ``auto`` means for ``workers`` tasks at once on this machine.

    A reader process per task when the local machine has a core to spare for it (fewer workers than cores);
    on cluster executors each task gets its own CPU, so reading stays in line unless asked for.
    """
    if read_ahead not in READ_AHEAD_CHOICES:
        raise ValueError(f"read_ahead must be one of {', '.join(READ_AHEAD_CHOICES)}, not {read_ahead!r}")
    if read_ahead != "auto":
        return read_ahead
    return "process" if executor == "local" and workers < usable_cores() else "off"


@dataclass
class _Failure:
    error: BaseException


def prefetch(records: Iterator, size: int = 256) -> Iterator:
    """Iterate ``records`` in a background thread, ``size`` records ahead; a reader error is raised here, in order."""
    done = object()
    queue: Queue = Queue(maxsize=size)
    stop = threading.Event()

    def fill() -> None:
        try:
            for record in records:
                if stop.is_set():
                    return
                queue.put(record)
        except BaseException as error:  # handed over to the consumer, which raises it
            queue.put(_Failure(error))
        finally:
            queue.put(done)

    thread = threading.Thread(target=fill, name="shard-reader", daemon=True)
    thread.start()
    try:
        while (item := queue.get()) is not done:
            if isinstance(item, _Failure):
                raise item.error
            yield item
    finally:
        stop.set()
        while thread.is_alive():  # let the reader notice the stop and end
            try:
                queue.get_nowait()
            except Empty:
                thread.join(0.05)


def read_raw_in_process(shard: Shard, options: ReaderOptions, on_bytes: Callable[[int], object]) -> Iterator:
    """The raw records of a shard (``read_raw`` of its format), read by a forked child process.

    Falls back to a reader thread where ``fork`` is not available. Stopping early (``--limit``) ends the child.
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        records = get_format(shard.fmt).read_raw(shard.path, options, byte_range=shard.byte_range, on_bytes=on_bytes)
        yield from prefetch(records)
        return
    context = multiprocessing.get_context("fork")
    queue = context.Queue(maxsize=32)
    child = context.Process(target=_read_shard, args=(shard, options, queue), name="shard-reader", daemon=True)
    child.start()
    try:
        while True:
            try:
                kind, payload, read_bytes = queue.get(timeout=10)
            except Empty:
                if not child.is_alive():
                    raise RuntimeError(
                        f"{shard.path}: the reader process ended unexpectedly (exit {child.exitcode})"
                    ) from None
                continue
            on_bytes(read_bytes)
            if kind == "error":
                raise payload
            if kind == "done":
                return
            yield from payload
    finally:
        if child.is_alive():
            child.terminate()
        child.join()


def _read_shard(shard: Shard, options: ReaderOptions, queue) -> None:
    """The reader process: send the shard's records in batches, with the bytes read since the last batch."""
    pending = 0

    def count(n: int) -> None:
        nonlocal pending
        pending += n

    batch: list = []
    try:
        for record in get_format(shard.fmt).read_raw(shard.path, options, byte_range=shard.byte_range, on_bytes=count):
            batch.append(record)
            if len(batch) >= BATCH:
                queue.put(("records", batch, pending))
                batch, pending = [], 0
        queue.put(("records", batch, pending))
        queue.put(("done", None, 0))
    except BaseException as error:  # the consumer raises it, naming the shard
        queue.put(("error", RuntimeError(f"{shard.path}: {type(error).__name__}: {error}"), 0))
