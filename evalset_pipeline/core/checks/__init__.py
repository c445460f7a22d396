"""Quality gates over the pipeline's tables, and the corpus state the sensor and freshness check compare.

Plain Python over rows (no dagster import): `defs/checks.py` wraps these as Dagster asset checks,
`defs/sensors.py` uses `corpus_state` to decide when to rebuild.
"""
