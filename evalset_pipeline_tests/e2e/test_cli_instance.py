"""`evalset build` as a new user meets it: quiet, visible in the UI's instance, staleness that tells
the truth after a sidecar edit, and sentences for expected failures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from evalset_pipeline.definitions import defs
from evalset_pipeline.defs.external import report_to_instance
from evalset_pipeline.defs.instance import instance_home, open_instance
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus
from evalset_pipeline_tests.support.staleness import stale_statuses

EVALSET = str(Path(sys.executable).with_name("evalset"))
MAX_LINES = 40


def _evalset(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(
        [EVALSET, *args], capture_output=True, text=True, env=env, timeout=600, cwd=cwd
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli_instance")
    corpus, data = root / "corpus", root / "data"
    generate_sample_corpus(corpus, entities=2, periods=2)
    done = _evalset("build", "--corpus", str(corpus), "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    return corpus, data, done


def test_the_quiet_build_stays_under_the_line_limit_and_says_what_it_did(built):
    _, _, done = built
    lines = (done.stdout + done.stderr).splitlines()
    assert 0 < len(lines) <= MAX_LINES, "\n".join(lines)
    text = done.stdout
    assert "DEBUG" not in text + done.stderr and "Traceback" not in done.stderr
    assert "pages rendered" in text and "model calls" in text and "cost" in text and "time:" in text
    assert "dagster_home" in text
    assert "distractors one axis away:" in text


def test_json_gives_the_same_numbers_and_a_rebuild_does_no_work(built):
    corpus, data, _ = built
    again = _evalset("build", "--corpus", str(corpus), "--data-dir", str(data), "--json")
    assert again.returncode == 0, again.stderr
    s = json.loads(again.stdout)
    assert not s["new_version"]
    assert (
        s["done"]["pages_rendered"] == 0
        and s["done"]["pages_embedded"] == 0
        and s["done"]["model_calls"] == 0
    )
    assert s["done"]["pages_render_reused"] == s["corpus"]["pages"]
    looks = s["lookalikes"]
    assert looks["items"] == s["by_slice"].get("main", 0)
    assert 0 < looks["one_axis_items"] <= looks["items"]
    assert s["done"]["cache_hits"] > 0 and set(s["seconds"]) >= {
        "page_renders",
        "golden_set",
        "baseline_scores",
    }


def test_a_cli_build_is_visible_in_the_instance_the_ui_reads(built):
    _, data, _ = built
    assert (instance_home(data) / "dagster.yaml").exists()  # created from deploy/dagster.yaml
    instance = open_instance(data)
    try:
        graph = defs.resolve_asset_graph()
        for key in graph.get_all_asset_keys():
            event = instance.get_latest_materialization_event(key)
            assert event is not None, f"{key.to_user_string()} shows 'never materialized'"
        golden = instance.get_latest_materialization_event(
            dg.AssetKey("golden_set")
        ).asset_materialization
        assert str(golden.metadata["version_id"].value).startswith("gs-")
        runs = instance.get_runs(filters=dg.RunsFilter(tags={"evalset/launcher": "cli"}))
        assert runs and {r.job_name for r in runs} == {"build_golden_set"}  # the job the UI lists
        assert all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs)
        checks = instance.event_log_storage.get_latest_asset_check_execution_by_key(
            [dg.AssetCheckKey(dg.AssetKey("candidate_labels"), "candidate_labels_gold_sufficient")]
        )
        assert checks
        statuses = stale_statuses(instance, defs)
        assert {a for a, (status, _) in statuses.items() if status != "FRESH"} == set()
    finally:
        instance.dispose()


def test_a_sidecar_edit_makes_exactly_its_readers_stale(built, tmp_path):
    corpus, data, _ = built
    sidecar = corpus / "metadata.csv"
    lines = sidecar.read_text().splitlines()
    # an entity fix on one row: template_groups comes out byte-identical, hard_negatives must still see it
    header, row = lines[0].split(","), lines[1].split(",")
    row[header.index("entity")] = row[header.index("entity")] + " Holdings"
    sidecar.write_text("\n".join([lines[0], ",".join(row), *lines[2:]]) + "\n")
    instance = open_instance(data)
    try:
        assert report_to_instance(instance, str(corpus), str(data)) == 1  # only the sidecar changed
        statuses = stale_statuses(instance, defs)
        stale = {a for a, (s, _) in statuses.items() if s == "STALE"}
        assert stale == {"page_metadata"}, statuses
        assert statuses["page_metadata"][1] == ["corpus_sidecar"]
        # Re-materialize page_metadata alone, as from the UI: now every stage that reads it is stale.
        result = defs.resolve_job_def("build_golden_set").execute_in_process(
            instance=instance,
            asset_selection=[dg.AssetKey("page_metadata")],
            raise_on_error=False,
            run_config={
                "resources": {
                    "settings": {"config": {"data_dir": str(data), "corpus_dir": str(corpus)}}
                }
            },
        )
        assert result.success
        statuses = stale_statuses(instance, defs)
        stale = {a for a, (s, _) in statuses.items() if s == "STALE"}
        assert stale == {
            "evidence_index",
            "template_groups",
            "hard_negatives",
            "gold_sample",
            "candidate_questions",
            "item_pools",
            "validated_questions",
            "candidate_labels",
            "golden_set",
        }, statuses
        assert "page_embeddings" not in stale and "page_renders" not in stale
    finally:
        instance.dispose()


def test_expected_failures_are_sentences(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no pdf here")
    done = _evalset("build", "--corpus", str(empty), "--data-dir", str(tmp_path / "d"))
    assert (
        done.returncode == 2
        and f"no PDFs under {empty}" in done.stderr
        and "Traceback" not in done.stderr
    )
    done = _evalset("build", "--corpus", "s3://bucket/filings", "--data-dir", str(tmp_path / "d"))
    assert (
        done.returncode == 2 and "remote corpora are not supported; mount or sync it" in done.stderr
    )
    assert len(done.stderr.strip().splitlines()) == 1
