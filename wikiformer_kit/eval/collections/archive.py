"""Archives of a collection (``cran.tar.gz``, ``cisi.zip``): unpacked to a temporary folder and read as one.

Classic collections are distributed as one archive of their files. Extraction keeps every member inside the
target folder (tar's ``data`` filter; zip members with absolute or ``..`` paths are refused), and a corrupt or
truncated archive is an error naming it.
"""

from __future__ import annotations

import atexit
import shutil
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from wikiformer_kit.eval.collections.errors import CollectionFormatError

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


def is_archive(path: str | Path) -> bool:
    """Whether a file is named as an archive of several files (a single ``.gz`` file is not)."""
    return str(path).lower().endswith(ARCHIVE_SUFFIXES)


def archive_stem(path: str | Path) -> str:
    """The archive's name without its archive suffix (``cran.tar.gz`` -> ``cran``)."""
    name = Path(path).name
    suffix = next(s for s in ARCHIVE_SUFFIXES if name.lower().endswith(s))
    return name[: -len(suffix)]


def extract_archive(path: str | Path) -> Path:
    """Unpack an archive into a temporary folder (removed when the process exits).

    Returns:
        The folder holding the collection files: the archive's single top-level folder when it has one.

    Raises:
        CollectionFormatError: a corrupt or truncated archive, a member that would land outside the folder,
            or an archive without files.
    """
    target = Path(tempfile.mkdtemp(prefix=f"{archive_stem(path)}-"))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    try:
        if str(path).lower().endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    member = PurePosixPath(name)
                    if member.is_absolute() or ".." in member.parts:
                        raise CollectionFormatError(path, f"member {name!r} would be written outside the folder")
                archive.extractall(target)
        else:
            with tarfile.open(path) as archive:
                archive.extractall(target, filter="data")
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as error:
        raise CollectionFormatError(path, f"cannot unpack the archive ({error})") from None
    entries = [p for p in target.iterdir() if not p.name.startswith((".", "__MACOSX"))]
    if not any(p.is_file() for p in target.rglob("*")):
        raise CollectionFormatError(path, "the archive holds no file")
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return target
