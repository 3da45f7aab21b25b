"""The Wikiformer kit: corpus readers, the pre-training task datasets, training, evaluation and release."""

__version__ = "0.1.0"
