"""``python release.py [options]`` in a checkout: the whole job, ``wikiformer-release`` when installed; the code is
``wikiformer_kit/release/``."""

import sys

from wikiformer_kit.release.pipeline import main

if __name__ == "__main__":
    sys.exit(main())
