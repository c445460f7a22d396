"""`evalset` console entry point: one module per command group."""
