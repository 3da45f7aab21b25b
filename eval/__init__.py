"""``python -m eval ...`` in a checkout: the kit's evaluation command (``wikiformer-eval`` when installed); the code
is ``wikiformer_kit/eval/``."""
