import sys

from wikiformer_kit.dataset_scripts.build import main

if __name__ == "__main__":
    sys.exit(main())
