import sys

from wikiformer_kit.dataset_scripts.finetune.__main__ import main

sys.exit(main())
