"""The rebuild job and its nightly schedule.

`build_golden_set` materializes every asset and runs every check, corpus to golden set; the
blocking checks on candidate_labels stop it before a bad version is published.
Both the schedule and the corpus sensor launch this job; both are off until switched on in the UI
(Automation) or with `dagster schedule start` / `dagster sensor start`, as Dagster convention goes.

Settings, read when the code location loads (core/environment.py declares them):
EVALSET_REFRESH_CRON, EVALSET_REFRESH_TIMEZONE, EVALSET_REFRESH_SKIP_BASELINE, EVALSET_MAX_RUNTIME_S.
"""

import dagster as dg

from evalset_pipeline.core.environment import environment
from evalset_pipeline.core.paths import default_data_dir

BUILD_TAGS_KEY = (
    "evalset/build"  # every build run carries it, so dagster.yaml can allow one at a time
)
# One run per data directory: dagster.yaml limits this tag to 1 per unique value, so runs of two
# code locations with different data dirs may overlap, two runs on one data dir never do.
DATA_DIR_TAG = "evalset/data_dir"


def build_job(max_runtime_s: int | None = None):
    runtime = max_runtime_s if max_runtime_s is not None else environment().max_runtime_s
    return dg.define_asset_job(
        "build_golden_set",
        # every asset and its checks; the external corpus_files is reported by the sensor, never built
        selection=dg.AssetSelection.all(),
        description="Corpus to golden set, every stage, with the blocking checks before publishing.",
        tags={
            "dagster/max_runtime": str(runtime),
            BUILD_TAGS_KEY: "golden_set",
            DATA_DIR_TAG: str(default_data_dir().resolve()),
        },
    )


build_golden_set_job = build_job()


def refresh_selection(skip_baseline: bool) -> list[dg.AssetKey] | None:
    """Assets a scheduled refresh materializes: all (None), or all but baseline_scores."""
    from evalset_pipeline.core.pipeline.graph import STAGES

    return [dg.AssetKey(s) for s in STAGES if s != "baseline_scores"] if skip_baseline else None


def build_refresh_schedule(
    cron: str | None = None, timezone: str | None = None, skip_baseline: bool | None = None
) -> dg.ScheduleDefinition:
    env = environment()
    skip = skip_baseline if skip_baseline is not None else env.refresh_skip_baseline
    selection = refresh_selection(skip)

    @dg.schedule(
        name="golden_set_refresh",
        job=build_golden_set_job,
        cron_schedule=cron or env.refresh_cron,
        execution_timezone=timezone or env.refresh_timezone,
        default_status=dg.DefaultScheduleStatus.STOPPED,
        tags={"evalset/trigger": "schedule"},
        description="Rebuild through the golden set on a cron (EVALSET_REFRESH_CRON; default nightly at 03:00 UTC). "
        "Unchanged pages and cached model calls make a no-change refresh cheap and give the same version. "
        "EVALSET_REFRESH_SKIP_BASELINE=1 leaves baseline_scores out.",
    )
    def golden_set_refresh(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        return dg.RunRequest(tags={"evalset/trigger": "schedule"}, asset_selection=selection)

    return golden_set_refresh


golden_set_refresh = build_refresh_schedule()
