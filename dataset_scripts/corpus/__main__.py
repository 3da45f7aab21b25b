import sys

from wikiformer_kit.dataset_scripts.corpus.__main__ import main

sys.exit(main())
