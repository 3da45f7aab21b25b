"""The main job: from a Wikipedia dump to a published Wikiformer model and its task datasets (``python release.py``).

Each stage is the project's own command, built from that command's own options objects (``stages``), so any stage
can also be run alone: ``datasets`` (``python -m dataset_scripts.build`` → ``OUT/datasets/``), ``wikir`` (``python
-m dataset_scripts.wikir`` → ``OUT/wikir/``: the dev queries the checkpoint and the fusion are chosen on, see
``selection``), ``train`` (``python train.py CONFIG`` → ``OUT/train/``), ``export`` (the Hub-ready folder →
``OUT/<system>/``), ``eval`` (``python -m eval tune-fusion``, ``rerank`` and ``compare`` → ``OUT/eval/``) and
``card`` (the model card from the measured results; ``--push-to-hub NS`` publishes). A rerun reuses every stage
that finished from the same command, inputs and kit (``stage_records``). What is chosen on what, the baselines
(``--system prop|harp``) and reruns: README.md, docs/evaluation.md, docs/baselines.md.
"""
