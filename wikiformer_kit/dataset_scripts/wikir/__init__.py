"""WIKIR: an ad-hoc retrieval test collection built from a Wikipedia corpus (Frej et al., LREC 2020)."""
