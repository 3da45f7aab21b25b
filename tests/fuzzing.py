"""Damaged copies of real sample files, for the property-based tests of every reader (hypothesis).

A case is one of: the file cut at a random byte, random bytes spliced in at a random byte, the file re-encoded in
another encoding (UTF-16 with and without a byte-order mark, Latin-1, cp1252), or the empty file. The property
each reader test checks: the run ends with records (bad ones as counted skips) or with the reader's named error,
never with another exception, and records that lie wholly before the damage are all still read.

``FUZZ_EXAMPLES`` sets the cases per reader (default 12, so the suite stays well under a minute);
``FUZZ_EXAMPLES=500 python -m pytest tests -k fuzz`` runs a longer campaign. `CASES` counts the cases run.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))
FUZZ_SETTINGS = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    derandomize=os.environ.get("FUZZ_RANDOM") is None,  # CI reproducible; FUZZ_RANDOM=1 explores new cases
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
CASES: Counter = Counter()
"""Cases run per reader in this process (reported by the tests' final line with ``-s``)."""

ENCODINGS = ("utf-16", "utf-16-le", "utf-16-be", "latin-1", "cp1252")


@dataclass(frozen=True)
class Damage:
    """One damaged copy: ``kind`` (truncate, splice, encoding, empty), the bytes, and where the damage starts
    (byte offset in the original; 0 for a re-encoding or the empty file)."""

    kind: str
    data: bytes
    at: int

    def __repr__(self) -> str:
        return f"Damage({self.kind!r}, at={self.at}, {len(self.data)} bytes: ...{self.data[max(0, self.at - 40) : self.at + 40]!r}...)"

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis prints draws with this, not with the fields
        printer.text(repr(self))


@st.composite
def damaged(draw, original: bytes) -> Damage:
    """A damaged copy of ``original`` (see the module docstring)."""
    kind = draw(st.sampled_from(("truncate", "truncate", "splice", "splice", "encoding", "empty")))
    if kind == "empty":
        return Damage(kind, b"", 0)
    if kind == "encoding":
        text = original.decode("utf-8", errors="replace")
        encoding = draw(st.sampled_from(ENCODINGS))
        return Damage(f"encoding:{encoding}", text.encode(encoding, errors="replace"), 0)
    at = draw(st.integers(min_value=0, max_value=len(original)))
    if kind == "truncate":
        return Damage(kind, original[:at], at)
    noise = draw(
        st.one_of(
            st.binary(min_size=1, max_size=24),
            st.sampled_from([b"\x00", b"\xff\xfe", b"<", b"&", b"]]>", b"{{", b"[[", b"\n</doc>\n", b'"', b"\t\t"]),
        )
    )
    return Damage(kind, original[:at] + noise + original[at:], at)


def record_ends(data: bytes, marker: bytes) -> list[int]:
    """Byte offsets just after each occurrence of ``marker`` (where a record of the file ends)."""
    ends, start = [], 0
    while (found := data.find(marker, start)) >= 0:
        ends.append(found + len(marker))
        start = found + len(marker)
    return ends


def kept_before(ends: list[int], damage: Damage) -> int:
    """How many records end before the damage (and must therefore be read as from the undamaged file)."""
    if damage.kind not in ("truncate", "splice"):
        return 0
    return sum(end <= damage.at for end in ends)
