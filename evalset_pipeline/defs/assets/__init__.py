"""One module per Dagster group: corpus, index, negatives, questions, golden."""
