"""Hub publishing of the task datasets (the cards are written by :mod:`dataset_scripts.tasks.card`)."""
