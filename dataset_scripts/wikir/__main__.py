import sys

from wikiformer_kit.dataset_scripts.wikir.__main__ import main

sys.exit(main())
