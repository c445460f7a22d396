"""`corpus_changed`: one rebuild per change of the corpus folder, not one per file.

Each tick computes the corpus fingerprint (the same one `documents` and every golden set record;
only files whose size or mtime changed are re-hashed) and compares it with the cursor, which is
the fingerprint seen last. Ten PDFs copied in between two ticks are one change: one run. A new
sensor (no cursor) compares with the fingerprint the latest golden set was built from. On a
change it also reports a materialization of the external `corpus_files` asset with the
fingerprint as its data version (a materialization, not an observation: Dagster's staleness
reads only materializations of non-observable external assets), so the UI marks `documents` and
everything downstream stale until the run catches up.

Off by default; EVALSET_SENSOR_INTERVAL_S sets the polling interval (default 60 s). Changes to
the metadata sidecar (metadata.csv) alone do not trigger a run: every build reports the
sidecar's version (`corpus_sidecar`, from the `documents` step) so page_metadata and what reads
it show stale until it runs; a PDF change reports both.
"""

import dagster as dg

from evalset_pipeline.core.checks.corpus_state import (
    current_corpus_fingerprint,
    decide_rebuild,
    latest_golden_info,
    stat_cache_path,
)
from evalset_pipeline.core.environment import environment
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.defs.assets.corpus import corpus_files, corpus_sidecar
from evalset_pipeline.defs.external import changed_input_events
from evalset_pipeline.defs.resources import PipelineSettings
from evalset_pipeline.defs.schedules import build_golden_set_job

DATA_VERSION_TAG = "dagster/data_version"


@dg.sensor(
    name="corpus_changed",
    job=build_golden_set_job,
    minimum_interval_seconds=environment().sensor_interval_s,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description="Rebuild through the golden set when PDFs are added, changed or removed under the corpus root "
    "(cursor = corpus fingerprint; one run per change).",
)
def corpus_changed(
    context: dg.SensorEvaluationContext, settings: PipelineSettings
) -> dg.SensorResult:
    paths = DataPaths.at(settings.data_dir)
    fingerprint = current_corpus_fingerprint(
        settings.corpus_dir, stat_cache_path(paths), settings.follow_symlinks
    )
    built = None if context.cursor else latest_golden_info(paths.root)
    decision = decide_rebuild(
        context.cursor, fingerprint, built.get("corpus_fingerprint") if built else None
    )
    context.log.info(decision.reason)
    if not decision.rebuild:
        return dg.SensorResult(skip_reason=decision.reason, cursor=decision.cursor)
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(
                tags={
                    "evalset/trigger": "corpus_changed",
                    "evalset/corpus_fingerprint": fingerprint[:16],
                }
            )
        ],
        cursor=decision.cursor,
        asset_events=[
            dg.AssetMaterialization(
                asset_key=corpus_files.key,
                description=decision.reason,
                metadata={"corpus_fingerprint": fingerprint},
                tags={DATA_VERSION_TAG: fingerprint},
            ),
            *_sidecar_events(context, settings),
        ],
    )


def _sidecar_events(
    context: dg.SensorEvaluationContext, settings: PipelineSettings
) -> list[dg.AssetMaterialization]:
    """The sidecar's new version, when the instance holds another (defs/external.py)."""
    instance = context.instance if context.instance_ref is not None else None
    return [
        e
        for e in changed_input_events(
            instance,
            settings.corpus_dir,
            settings.data_dir,
            follow_symlinks=settings.follow_symlinks,
        )
        if e.asset_key == corpus_sidecar.key
    ]
