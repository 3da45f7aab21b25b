"""The Wikiformer kit under one importable name.

An installed kit holds its packages here (``wikiformer_kit.eval``, ``wikiformer_kit.training``, ...). In a checkout
they are the repository's top-level folders, so this package also looks in the repository root: ``python -m eval``
and ``python train.py`` keep working there, and every module is loaded once, under this name.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent
_CHECKOUT = _HERE.parent
if not (_HERE / "modeling_wikiformer.py").is_file() and (_CHECKOUT / "modeling_wikiformer.py").is_file():
    __path__.append(str(_CHECKOUT))  # noqa: F821  (a package's own __path__)

__version__ = "0.1.0"
