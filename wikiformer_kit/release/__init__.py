"""The main job: from a Wikipedia dump to a published Wikiformer model and its four task datasets.

    python release.py [--system wikiformer|prop|harp] [--output-dir output/release] [--push-to-hub NAMESPACE]

On a fresh machine with no argument it runs the CPU demo on the vendored real data: the enwiki dump sample →
the SRR, RWI, ATI and LTM datasets with cards → pre-training with ``configs/demo-cpu.yaml`` (the embedded
all-MiniLM-L6-v2) → zero-shot re-ranking of the vendored TREC DL 2020 sample against BM25 → a Hub-ready model
folder with a model card that carries the measured results. Each stage is the project's own command (built from
that command's own options objects, `release.stages`), shown as it runs, so any stage can also be run alone:

1. ``datasets``: ``python -m dataset_scripts.build`` → ``OUT/datasets/wikiformer-<task>/``
2. ``train``: ``python train.py CONFIG`` → ``OUT/train/``
3. ``export``: the trained model as a Hub-ready folder → ``OUT/wikiformer/``
4. ``eval``: ``python -m eval tune-fusion --save`` (the fusion with BM25, chosen by cross-validation on the dev
   queries and stored in the model's ``config.json``), then per collection ``python -m eval rerank`` (this model
   raw and fused, and MiniLM with an untrained head) and ``python -m eval compare`` against its BM25 run
   (significance against the first stage) → ``OUT/eval/``
5. ``card``: ``model_card.md`` rendered with the measured results → ``OUT/wikiformer/README.md``; with
   ``--push-to-hub NS``, ``NS/wikiformer`` and ``NS/wikiformer-<task>`` are created or updated.

Selection is label-free by default: a WIKIR collection is built from the same corpus (``python -m
dataset_scripts.wikir`` → ``OUT/wikir/``, stage ``wikir`` after ``datasets``; on the vendored sample with the
relaxations ``SAMPLE_WIKIR_ARGS``), the checkpoint and the fusion are chosen on its validation split (the dev
queries, figures in ``OUT/eval/dev/``), and ``--eval-collection`` and the WIKIR test split (``OUT/eval/wikir/``)
are test collections: reported, never chosen on. Where the validation split has fewer than
``MIN_SELECTION_QUERIES`` queries, or with ``--select-on-eval-collection``, both are chosen on ``--eval-collection``
instead, and its figures are labelled dev on the console and in the card.

``--system prop`` or ``--system harp`` runs the same job for the two baselines the paper compares with (their
tasks, ``configs/{prop,harp}-demo-cpu.yaml`` at the Wikiformer demo's budget, ``OUT/{prop,harp}/``; the output folder
defaults to ``output/release-<system>``). ``--harp-variant original`` or ``--prop-variant original`` builds a
baseline's datasets as its authors' code built them (``--stopwords FILE``: e.g. HARP's own list), and the dataset
cards' "As built:" line names the variant; HARP's importance model stays the backbone the config trains.

A rerun reuses every stage that finished with the same command, the same input files (size and time) and the
same kit, after the same earlier stages (``OUT/stages/*.json``); otherwise one line says what changed and the
stage runs again. ``--redo STAGE`` runs one again (and the stages after it).

Modules: ``options`` (the command line), ``stages`` (each stage's command from typed options), ``stage_records``
(what a finished stage was made from) and ``stage_runner`` (running a command: log and progress), ``selection``
(where the checkpoint and the fusion are chosen), ``export``, ``card``, ``summary`` (the console's lines), ``push``,
and ``pipeline`` (the stages composed: ``main``, the ``wikiformer-release`` command).
"""
