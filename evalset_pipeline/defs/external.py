"""The corpus folder's two external inputs, reported to the instance with their content hashes.

`corpus_files` (the PDFs; data version = corpus fingerprint) and `corpus_sidecar` (metadata.csv;
data version = sha256 of its bytes, or `absent`) are not built by any asset. Their state is
reported as a materialization whose `dagster/data_version` tag is that hash, only when it differs
from what the instance last recorded:

- by the `documents` step, at the start of every run that builds the corpus (CLI, UI, schedule),
  so page_metadata records the sidecar version it was built from;
- by the `corpus_changed` sensor on every change, so the UI marks the dependents stale before
  any run.

A materialization, not an observation: Dagster's staleness reads only materializations of
non-observable external assets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import dagster as dg

from evalset_pipeline.core.checks.corpus_state import (
    current_corpus_fingerprint,
    sidecar_fingerprint,
    stat_cache_path,
)
from evalset_pipeline.core.paths import DataPaths

if TYPE_CHECKING:  # resources imports this module
    from evalset_pipeline.defs.resources import PipelineSettings

DATA_VERSION_TAG = "dagster/data_version"
CORPUS_FILES = dg.AssetKey("corpus_files")
CORPUS_SIDECAR = dg.AssetKey("corpus_sidecar")


def current_inputs(
    corpus_dir: str, data_dir: str, follow_symlinks: bool = False
) -> dict[dg.AssetKey, str]:
    """Each external input's data version as the folder is now."""
    return {
        CORPUS_FILES: current_corpus_fingerprint(
            corpus_dir, stat_cache_path(DataPaths.at(data_dir)), follow_symlinks
        ),
        CORPUS_SIDECAR: sidecar_fingerprint(corpus_dir),
    }


def recorded_version(instance: dg.DagsterInstance | None, key: dg.AssetKey) -> str | None:
    if instance is None:
        return None
    event = instance.get_latest_materialization_event(key)
    mat = event.asset_materialization if event else None
    return mat.tags.get(DATA_VERSION_TAG) if mat and mat.tags else None


def changed_input_events(
    instance: dg.DagsterInstance | None,
    corpus_dir: str,
    data_dir: str,
    description: str = "",
    follow_symlinks: bool = False,
) -> list[dg.AssetMaterialization]:
    """Materializations for the inputs whose version differs from the instance's last record."""
    events = []
    for key, version in current_inputs(corpus_dir, data_dir, follow_symlinks).items():
        if recorded_version(instance, key) != version:
            events.append(
                dg.AssetMaterialization(
                    asset_key=key,
                    description=description or f"{key.to_user_string()} is now {version[:16]}",
                    metadata={"data_version": version, "corpus_dir": corpus_dir},
                    tags={DATA_VERSION_TAG: version},
                )
            )
    return events


def report_corpus_inputs(context: dg.AssetExecutionContext, settings: PipelineSettings) -> None:
    """Inside the `documents` step: record the inputs this run reads, if the instance is behind."""
    for event in changed_input_events(
        context.instance,
        settings.corpus_dir,
        settings.data_dir,
        follow_symlinks=settings.follow_symlinks,
    ):
        context.log_event(event)


def report_to_instance(
    instance: dg.DagsterInstance, corpus_dir: str, data_dir: str, follow_symlinks: bool = False
) -> int:
    """Outside a run (the CLI before it launches one): report changed inputs as runless events."""
    events = changed_input_events(instance, corpus_dir, data_dir, follow_symlinks=follow_symlinks)
    for event in events:
        instance.report_runless_asset_event(event)
    return len(events)
