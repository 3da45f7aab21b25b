"""The paper's experiments at this machine's budget, run from a checkout as ``python -m experiments.<name>``: the
effectiveness study, the baselines' comparison zero-shot and fine-tuned, long documents and Cranfield's query ids.
Each module names the docs/ table it produced."""
