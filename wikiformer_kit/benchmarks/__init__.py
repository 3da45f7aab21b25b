"""Benchmarks of the kit, each against a named peer or the machine's own ceiling, run as ``python -m
wikiformer_kit.benchmarks.<name>``: throughput, memory and scaling of the builds, training and re-ranking, the GPU
report, and the helpers they share (the memory sampler, the device, the large inputs made from the samples)."""
