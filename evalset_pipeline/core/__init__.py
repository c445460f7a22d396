"""The domain: plain Python, no dagster import, unit-testable."""
