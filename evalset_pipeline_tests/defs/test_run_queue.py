"""Issue 16 #2 for Dagster-launched runs: one run per data directory through the run queue."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg

from evalset_pipeline.core.checks.verdicts import BLOCKING_GATES
from evalset_pipeline.core.paths import default_data_dir
from evalset_pipeline.defs.checks import _GATES

REPO = Path(__file__).resolve().parents[2]


def test_the_deployed_instance_queues_runs_one_per_data_dir_and_code_location(tmp_path):
    shutil.copy(REPO / "deploy" / "dagster.yaml", tmp_path / "dagster.yaml")
    with dg.DagsterInstance.from_config(str(tmp_path)) as instance:
        limits = instance.get_concurrency_config().run_queue_config.tag_concurrency_limits
    per_value = {
        (lim["key"], lim["limit"])
        for lim in limits
        if isinstance(lim.get("value"), dict) and lim["value"].get("applyLimitPerUniqueValue")
    }
    assert ("evalset/data_dir", 1) in per_value and ("dagster/code_location", 1) in per_value


def test_build_runs_carry_their_data_dir_tag():
    from evalset_pipeline.definitions import defs

    job = defs.resolve_job_def("build_golden_set")
    assert job.tags["evalset/data_dir"] == str(default_data_dir().resolve())
    schedule = defs.resolve_schedule_def("golden_set_refresh")
    assert (
        schedule.job.tags["evalset/data_dir"] == job.tags["evalset/data_dir"]
    )  # schedule and sensor run this job


def test_golden_set_requires_every_blocking_gate_the_checks_define():
    assert tuple(_GATES) == BLOCKING_GATES
