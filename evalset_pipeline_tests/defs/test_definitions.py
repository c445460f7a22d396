import os

import dagster as dg

from evalset_pipeline.definitions import all_assets, defs

EXPECTED = {
    "documents",
    "page_renders",
    "page_metadata",
    "page_embeddings",
    "template_groups",
    "hard_negatives",
    "gold_sample",
    "candidate_questions",
    "validated_questions",
    "candidate_labels",
    "golden_set",
    "baseline_scores",
}
BLOCKING = {
    "candidate_labels_gold_sufficient",
    "candidate_labels_no_sufficient_distractor",
    "candidate_labels_distractor_coverage",
    "candidate_labels_min_kept_items",
}


def test_definitions_validate_and_hold_the_whole_graph():
    dg.Definitions.validate_loadable(defs)
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert EXPECTED <= keys
    assert defs.resolve_job_def("build_golden_set") is not None


def test_groups_follow_the_design():
    graph = defs.resolve_asset_graph()
    groups = {k.to_user_string(): graph.get(k).group_name for k in graph.get_all_asset_keys()}
    assert groups["documents"] == groups["page_renders"] == groups["page_metadata"] == "corpus"
    assert groups["page_embeddings"] == groups["template_groups"] == "index"
    assert groups["hard_negatives"] == "negatives"
    assert groups["golden_set"] == "golden"


def test_every_asset_has_a_code_version_and_the_corpus_is_external():
    graph = defs.resolve_asset_graph()
    for name in EXPECTED:
        node = graph.get(dg.AssetKey(name))
        assert node.code_version and len(node.code_version) == 12, name
    corpus = graph.get(dg.AssetKey("corpus_files"))
    assert not corpus.is_materializable  # observed by the sensor, never built
    assert dg.AssetKey("corpus_files") in graph.get(dg.AssetKey("documents")).parent_keys


def test_blocking_checks_guard_candidate_labels_and_advisory_ones_do_not_block():
    graph = defs.resolve_asset_graph()
    specs = {k.name: graph.get_check_spec(k) for k in graph.asset_check_keys}
    assert BLOCKING | {"documents_rejected_share", "golden_set_fresh"} <= set(specs)
    for name in BLOCKING:
        assert specs[name].blocking and specs[name].asset_key == dg.AssetKey("candidate_labels"), (
            name
        )
    assert not specs["documents_rejected_share"].blocking and not specs["golden_set_fresh"].blocking
    assert specs["golden_set_fresh"].asset_key == dg.AssetKey("golden_set")
    # `all_assets` (what `evalset build` materializes) carries the checks too.
    checks_in_all_assets = {
        k.name for a in all_assets if isinstance(a, dg.AssetChecksDefinition) for k in a.check_keys
    }
    assert BLOCKING | {"documents_rejected_share", "golden_set_fresh"} <= checks_in_all_assets


def test_job_schedule_sensor_and_executor():
    job = defs.resolve_job_def("build_golden_set")
    assert int(job.tags["dagster/max_runtime"]) > 0
    assert job.executor_def.name == "multiprocess"
    schedule = defs.resolve_schedule_def("golden_set_refresh")
    sensor = defs.resolve_sensor_def("corpus_changed")
    assert schedule.job_name == sensor.job_name == "build_golden_set"
    assert schedule.default_status == dg.DefaultScheduleStatus.STOPPED
    assert sensor.default_status == dg.DefaultSensorStatus.STOPPED
    assert schedule.cron_schedule == os.environ.get(
        "EVALSET_REFRESH_CRON", "0 3 * * *"
    )  # nightly by default
    graph = defs.resolve_asset_graph()
    pooled = {
        k.to_user_string()
        for k in graph.get_all_asset_keys()
        if graph.get(k).pools == {"vlm_endpoint"}
    }
    assert pooled == {"candidate_questions", "validated_questions", "candidate_labels"}


def test_the_executor_is_chosen_by_environment():
    import importlib.util

    import pytest

    from evalset_pipeline.definitions import build_executor

    assert build_executor("multiprocess").name == "multiprocess"
    with pytest.raises(ValueError, match="EVALSET_EXECUTOR"):
        build_executor("celery")
    if (
        importlib.util.find_spec("dagster_k8s") is None
    ):  # not a dependency: the k8s image installs it
        with pytest.raises(ImportError):
            build_executor("k8s")
    else:
        assert build_executor("k8s").name == "k8s"
