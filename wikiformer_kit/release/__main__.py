"""``python -m wikiformer_kit.release``: the whole job (``python release.py`` in a checkout)."""

import sys

from wikiformer_kit.release.pipeline import main

if __name__ == "__main__":
    sys.exit(main())
