"""The error raised for malformed collection files."""

from __future__ import annotations

from pathlib import Path


class CollectionFormatError(ValueError):
    """A collection file that cannot be read; the message names the file and the record.

    Args:
        path: the offending file.
        message: what is wrong.
        line: 1-based line number of the offending record, when known.
    """

    def __init__(self, path: str | Path, message: str, line: int | None = None):
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path = Path(path)
        self.line = line
