"""Entry point of ``python -m eval``."""

import sys

from wikiformer_kit.eval.cli import main

sys.exit(main())
