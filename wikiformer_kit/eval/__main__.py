"""Entry point of ``python -m eval``."""

from __future__ import annotations

import sys

from wikiformer_kit.eval.cli import main

sys.exit(main())
