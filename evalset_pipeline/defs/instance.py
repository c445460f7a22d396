"""The one Dagster instance of a data directory: `<data dir>/dagster_home`.

`evalset build`, `make ui` (DAGSTER_HOME=data/dagster_home) and the schedule and sensor the UI's
daemon runs all record into it, so a build from the command line shows in the UI as
materialized, with its metadata, checks and run, in the same history as runs launched there.
Its `dagster.yaml` is copied from deploy/dagster.yaml when the folder has none.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg

from evalset_pipeline.core.paths import DataPaths

INSTANCE_YAML = Path(__file__).resolve().parents[2] / "deploy" / "dagster.yaml"  # in the checkout
HOME = "dagster_home"
LAUNCHER_TAG = "evalset/launcher"
LIVE = (dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.NOT_STARTED)


def instance_home(data_dir: str | Path) -> Path:
    return DataPaths.at(data_dir).root.resolve() / HOME


def ensure_home(data_dir: str | Path) -> Path:
    """The data directory's DAGSTER_HOME, created with deploy/dagster.yaml when missing."""
    home = instance_home(data_dir)
    home.mkdir(parents=True, exist_ok=True)
    target = home / "dagster.yaml"
    if not target.exists() and INSTANCE_YAML.exists():
        shutil.copyfile(INSTANCE_YAML, target)
    return home


def open_instance(data_dir: str | Path) -> dg.DagsterInstance:
    return dg.DagsterInstance.from_config(str(ensure_home(data_dir)))


def fail_dead_cli_runs(instance: dg.DagsterInstance) -> int:
    """Runs an earlier `evalset build` left unfinished (killed): marked failed, their pool slots freed.

    Called while holding the data directory's exclusive build lock, which every `evalset build`
    holds for its whole run: a CLI run still "started" now has no live process behind it, and
    its claimed `vlm_endpoint` slot would otherwise block the next build's model steps forever.
    """
    runs = instance.get_runs(filters=dg.RunsFilter(statuses=list(LIVE), tags={LAUNCHER_TAG: "cli"}))
    for run in runs:
        instance.report_run_failed(
            run, "the `evalset build` process running it ended without finishing it"
        )
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
    return len(runs)
