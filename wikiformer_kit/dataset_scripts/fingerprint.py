"""Data file names that carry the build's content fingerprint, so that ``datasets.load_dataset(FOLDER)`` of a built
folder loads that folder's files and no other.

``datasets`` caches a local folder whose README has a ``configs:`` block under the folder's *name* and the
configs' relative ``data_files`` patterns only: two builds in folders of the same name (``uk/wikiformer-srr`` and
``ja/wikiformer-srr``), or a rebuild in place, would share one cache entry and the second would load the first
one's rows. Every build therefore ends by renaming its Parquet files to ``<name>-fp<16 hex>.parquet``, where the
fingerprint hashes the content of all of them, and its card's patterns name that fingerprint
(``data/*-fp<16 hex>.parquet``): two builds with different data never share a cache key, and two with the same
data share a correct one. A build that starts again in the folder first gives the files back their plain names
(:func:`unstamp`), so that resuming and the writers see the names they wrote.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

STAMP = re.compile(r"^(?P<stem>.+)-fp(?P<fingerprint>[0-9a-f]{16})\.parquet$")
"""A stamped data file name: the plain stem and the fingerprint."""


def _parquet_files(folders: Iterable[Path]) -> list[Path]:
    return sorted(p for folder in folders for p in Path(folder).glob("*.parquet") if not p.name.startswith("."))


def plain_name(path: Path) -> str:
    """The name a data file had before it was stamped (its name when it carries no fingerprint)."""
    match = STAMP.match(path.name)
    return f"{match['stem']}.parquet" if match else path.name


def unstamp(folders: Iterable[Path]) -> None:
    """Give the Parquet files of ``folders`` back their plain names; where a plain file was written since (a
    rerun rebuilt it), the plain one is kept and the stamped one removed."""
    for path in _parquet_files(folders):
        if STAMP.match(path.name):
            target = path.with_name(plain_name(path))
            if target.exists():
                path.unlink()
            else:
                path.rename(target)


def file_digest(path: Path) -> tuple[int, str]:
    """A data file's size and the digest :func:`content_fingerprint` hashes it by: a writer that records it while
    the file is fresh in the page cache spares the fingerprint a second read of every file (see ``known``)."""
    with Path(path).open("rb") as handle:
        return Path(path).stat().st_size, hashlib.file_digest(handle, "blake2b").hexdigest()


def content_fingerprint(root: Path, folders: Iterable[Path], known: Mapping[str, tuple[int, str]] | None = None) -> str:
    """16 hex digits hashing every Parquet file of ``folders`` (its plain path relative to ``root`` and its bytes).

    ``known``: :func:`file_digest` of files by that relative plain path, recorded when they were written; a file
    whose size differs from its record (or without one) is read."""
    digest = hashlib.blake2b(digest_size=8)
    files = sorted(_parquet_files(folders), key=lambda p: (str(p.parent.relative_to(root)), plain_name(p)))
    for path in files:
        name = f"{path.parent.relative_to(root).as_posix()}/{plain_name(path)}"
        digest.update(f"{name}\0".encode())
        record = (known or {}).get(name)
        if record is None or record[0] != path.stat().st_size:
            record = file_digest(path)
        digest.update(bytes.fromhex(record[1]))
    return digest.hexdigest()


def stamp(root: Path, folders: Iterable[Path], known: Mapping[str, tuple[int, str]] | None = None) -> str:
    """Rename the Parquet files of ``folders`` (under ``root``) to carry their content fingerprint; returns it.

    Files already stamped are first given back their plain names, so stamping twice gives the same names.
    ``known``: the files' digests recorded when written (see :func:`content_fingerprint`).
    """
    folders = [Path(f) for f in folders]
    unstamp(folders)
    fingerprint = content_fingerprint(Path(root), folders, known)
    for path in _parquet_files(folders):
        path.rename(path.with_name(f"{path.stem}-fp{fingerprint}.parquet"))
    return fingerprint


def stamped_pattern(pattern: str, fingerprint: str | None) -> str:
    """A card's ``data_files`` pattern (``data/*.parquet``, ``qrels/test.parquet``) for stamped files."""
    if not fingerprint:
        return pattern
    return f"{pattern.removesuffix('.parquet')}-fp{fingerprint}.parquet"
