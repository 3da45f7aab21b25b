"""Re-ranking evaluation: collections -> first stage -> re-rank -> trec_eval metrics -> significance -> tables.

Run as ``python -m eval`` (subcommands ``first-stage``, ``rerank``, ``compare``, ``table``).
"""
