"""``python -m dataset_scripts.{corpus,build,wikir,finetune} ...`` in a checkout: the kit's dataset commands
(``wikiformer-corpus``, ``wikiformer-build``, ``wikiformer-wikir``, ``wikiformer-finetune-data`` when installed);
the code is ``wikiformer_kit/dataset_scripts/``."""
