"""One module per asset: the work each Dagster asset delegates to, callable without Dagster."""
