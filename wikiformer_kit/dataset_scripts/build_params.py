"""The parameters record of a build folder (``.build/params.json``): a rerun resumes only with the same ones."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wikiformer_kit.dataset_scripts.atomic_files import atomic_write


def record_parameters(
    root: Path,
    work: Path,
    params: dict[str, Any],
    *,
    what: str,
    error: type[Exception],
    expand: Sequence[str] = (),
) -> None:
    """Write ``work/params.json``, or refuse to mix ``params`` with those of an earlier build in ``root``.

    Args:
        root: the build's output folder (named in the error).
        work: its work folder, which holds ``params.json``.
        params: the parameters of this build (JSON values).
        what: the build in the error message (``"a build"``, ``"a WIKIR build"``).
        error: the exception raised when the parameters differ.
        expand: keys whose dict values also name their own differing keys in the error.
    """
    path = work / "params.json"
    if path.exists():
        previous = json.loads(path.read_text("utf-8"))
        if previous != params:
            changed = _differing(previous, params)
            for key in expand:
                if key in changed:
                    changed += _differing(previous.get(key, {}), params[key])
            raise error(
                f"{root} holds {what} made with other parameters ({', '.join(changed)} differ); "
                "use another --output-dir, or delete that folder to rebuild"
            )
    else:
        text = json.dumps(params, indent=1, sort_keys=True) + "\n"
        atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _differing(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
