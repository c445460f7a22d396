"""Dagster: thin assets, checks, resources, schedules and sensors that call `core`."""
