"""Dataset cards and Hub publishing of the task datasets."""
