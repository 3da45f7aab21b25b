"""``python train.py CONFIG [--flag value ...]`` (or ``torchrun ... train.py CONFIG``) in a checkout: the kit's
training command, ``wikiformer-train`` when installed; the code is ``wikiformer_kit/train.py``."""

import sys

from wikiformer_kit.train import cli_main

if __name__ == "__main__":
    sys.exit(cli_main())
