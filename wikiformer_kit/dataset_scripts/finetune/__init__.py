"""Fine-tuning groups from a labelled collection: ``python -m dataset_scripts.finetune``.

A group is one query, one judged-relevant document and negatives mined from a first stage (BM25, a dense
retriever, or a given run), in the kit's ``query, positive, negatives`` Parquet schema that ``train.py`` reads.
Modules: :mod:`.options` (what a mining run is), :mod:`.sources` (the inputs: any collection ``python -m eval``
reads, MS MARCO's training TSVs, its triples TSV), :mod:`.mine` (negatives for a query), :mod:`.triples` (MS MARCO
triples grouped by query and positive), :mod:`.false_negatives` (the cross-encoder filter), :mod:`.output` (shards,
resume, statistics), :mod:`.card` (the dataset card).
"""
