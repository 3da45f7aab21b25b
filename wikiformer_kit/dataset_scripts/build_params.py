"""The parameters record of a build folder (``.build/params.json``): a rerun resumes only with the same ones."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write


def record_parameters(
    root: Path, work: Path, params: dict[str, Any], *, what: str, error: type[Exception], expand: Sequence[str] = ()
) -> None:
    """Write ``work/params.json``, or refuse (raising ``error``) to mix ``params`` (JSON values) with those of an
    earlier build in ``root``, named in the message as ``what`` (``"a WIKIR build"``) with the keys that differ (and,
    for the keys in ``expand``, the differing keys of their dict values)."""
    path = work / "params.json"
    if path.exists():
        previous = json.loads(path.read_text("utf-8"))
        if previous != params:
            changed = differing_keys(previous, params)
            for key in expand:
                if key in changed:
                    changed += differing_keys(previous.get(key, {}), params[key])
            raise error(
                f"{root} holds {what} made with other parameters ({', '.join(changed)} differ); "
                "use another --output-dir, or delete that folder to rebuild"
            )
    else:
        text = json.dumps(params, indent=1, sort_keys=True) + "\n"
        atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def differing_keys(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The keys whose values differ between two records (a key in one only included), sorted."""
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
