"""After a full build, every asset materializes alone, reading its upstream from where it was persisted.

In process for each asset (`dg.materialize(all_assets, selection=[name])`: only that asset runs),
and once through the real `dagster asset materialize` CLI in a subprocess, configured only by
EVALSET_DATA_DIR / EVALSET_CORPUS_DIR. Also: a blocking check that fails stops `golden_set`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from evalset_pipeline.core.golden.reader import resolve_version
from evalset_pipeline.definitions import all_assets, defs
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

pytestmark = pytest.mark.build  # materializes the assets in process itself

_GRAPH = defs.resolve_asset_graph()
ASSETS = sorted(
    k.to_user_string() for k in _GRAPH.materializable_asset_keys
)  # every asset the UI can materialize
REPO = Path(__file__).resolve().parents[2]


def data_version(result: dg.ExecuteInProcessResult, name: str) -> str:
    return result.asset_materializations_for_node(name)[-1].tags["dagster/data_version"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("corpus")
    generate_sample_corpus(corpus, entities=1, periods=2)
    data_dir = tmp_path_factory.mktemp("data")
    resources = {
        "settings": PipelineSettings(data_dir=str(data_dir), corpus_dir=str(corpus), workers=2),
        "vlm": VLMResource(),
        "embedder": EmbedderResource(),
    }
    result = dg.materialize(all_assets, resources=resources)
    assert result.success
    return corpus, data_dir, resources, {name: data_version(result, name) for name in ASSETS}


@pytest.mark.parametrize("name", ASSETS)
def test_each_asset_rematerializes_alone_with_the_same_data_version(built, name):
    _, _, resources, versions = built
    result = dg.materialize(all_assets, resources=resources, selection=[name])
    assert result.success
    materialized = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    # `documents` also reports the corpus inputs it read (this ephemeral instance has no record of them)
    assert materialized - (
        {"corpus_files", "corpus_sidecar"} if name == "documents" else set()
    ) == {name}  # nothing upstream re-ran: inputs came from the persisted files
    # Same inputs, same content: the data version is unchanged, so nothing downstream turns stale.
    assert data_version(result, name) == versions[name]


def test_the_dagster_cli_materializes_one_asset_configured_by_environment(built, tmp_path):
    corpus, data_dir, _, versions = built
    home = tmp_path / "dagster_home"
    home.mkdir()
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "EVALSET_DATA_DIR": str(data_dir),
        "EVALSET_CORPUS_DIR": str(corpus),
        "HF_HUB_OFFLINE": "1",
    }
    cli = Path(sys.executable).with_name("dagster")
    proc = subprocess.run(
        [
            str(cli),
            "asset",
            "materialize",
            "-m",
            "evalset_pipeline.definitions",
            "--select",
            "documents",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    with dg.DagsterInstance.from_config(str(home)) as instance:
        event = instance.get_latest_materialization_event(dg.AssetKey("documents"))
        assert event is not None
        mat = event.asset_materialization
        assert mat.tags["dagster/data_version"] == versions["documents"]
        assert mat.metadata["documents"].value > 0
        check = instance.event_log_storage.get_latest_asset_check_execution_by_key(
            [dg.AssetCheckKey(dg.AssetKey("documents"), "documents_rejected_share")]
        )
        assert check, "the asset's check ran with it"


def test_a_failing_blocking_check_stops_golden_set_before_publishing(built):
    _, data_dir, resources, _ = built
    labels_path = Path(data_dir) / "artifacts" / "tables" / "candidate_labels.parquet"
    original = labels_path.read_bytes()
    latest = resolve_version("latest", data_dir)
    table = pq.read_table(labels_path)
    rows = table.to_pylist()
    gold = next(i for i, r in enumerate(rows) if r["role"] == "gold")
    rows[gold]["label"] = "irrelevant"  # a gold that does not answer its own question
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), labels_path)
    try:
        selection = dg.AssetSelection.checks_for_assets(
            dg.AssetKey("candidate_labels")
        ) | dg.AssetSelection.assets("golden_set")
        result = dg.materialize(
            all_assets, resources=resources, selection=selection, raise_on_error=False
        )
    finally:
        labels_path.write_bytes(original)
    assert not result.success
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert not evaluations["candidate_labels_gold_sufficient"].passed
    assert evaluations["candidate_labels_gold_sufficient"].severity == dg.AssetCheckSeverity.ERROR
    assert evaluations["candidate_labels_no_sufficient_distractor"].passed
    assert not result.asset_materializations_for_node("golden_set")
    assert resolve_version("latest", data_dir) == latest  # nothing was published


def test_the_golden_set_materialization_tells_the_story(built):
    _, _, resources, _ = built
    result = dg.materialize(all_assets, resources=resources, selection=["golden_set"])
    meta = result.asset_materializations_for_node("golden_set")[-1].metadata
    assert meta["items"].value >= meta["items_main"].value > 0
    for key in ("funnel", "axis_coverage", "cost_ledger", "preview"):
        assert isinstance(meta[key], dg.MarkdownMetadataValue), key
    preview = meta["preview"].value
    assert preview.count("](data:image/jpeg;base64,") >= 2 * 3  # gold + distractors, several items
    assert "| gold |" in preview and "**sufficient**" in preview
    # The preview page of the version: every item, each page linked to its full render.
    import re
    from pathlib import Path

    page = Path(meta["preview_page"].value)
    assert page.exists() and meta["preview_page_url"].value == page.as_uri()
    text = page.read_text()
    links = re.findall(r'<a href="([^"]+)"><img loading=lazy src="([^"]+)"', text)
    assert len(links) >= 2 * meta["items"].value  # the gold and at least one distractor per item
    for href, src in links:
        assert href == src and href.endswith(".png") and (page.parent / href).resolve().is_file(), (
            href
        )
    assert text.count("class=item ") == meta["items"].value
    assert "| period |" in meta["axis_coverage"].value and "| write |" in meta["cost_ledger"].value
    assert defs.resolve_job_def("build_golden_set")  # the same definitions the UI loads


def test_a_warning_does_not_block_and_thresholds_are_run_config(built):
    _, _, resources, _ = built
    selection = dg.AssetSelection.checks_for_assets(
        dg.AssetKey("candidate_labels")
    ) | dg.AssetSelection.assets("golden_set")
    result = dg.materialize(
        all_assets,
        resources=resources,
        selection=selection,
        run_config={"ops": {"candidate_labels_gates": {"config": {"min_kept_items": 10**6}}}},
    )
    assert result.success
    minimum = next(
        e
        for e in result.get_asset_check_evaluations()
        if e.check_name == "candidate_labels_min_kept_items"
    )
    assert not minimum.passed and minimum.severity == dg.AssetCheckSeverity.WARN
    assert result.asset_materializations_for_node("golden_set")  # a WARN never stops publishing


def test_each_stage_names_the_tables_its_data_version_hashes(built):
    """A stage's StageResult says what its data version is made of: tables the graph says it
    writes, and the asset's data version is exactly their hash (or the stage's own version)."""
    from evalset_pipeline.core.backends.factory import open_cached_backend
    from evalset_pipeline.core.pipeline import graph
    from evalset_pipeline.core.pipeline.candidate_labels import build_candidate_labels
    from evalset_pipeline.core.pipeline.candidate_questions import build_candidate_questions
    from evalset_pipeline.core.pipeline.context import StageContext
    from evalset_pipeline.core.pipeline.documents import build_documents
    from evalset_pipeline.core.pipeline.evidence_index import build_evidence_index
    from evalset_pipeline.core.pipeline.gold_sample import build_gold_sample
    from evalset_pipeline.core.pipeline.hard_negatives import build_hard_negatives
    from evalset_pipeline.core.pipeline.item_pools import build_item_pools
    from evalset_pipeline.core.pipeline.page_embeddings import build_page_embeddings
    from evalset_pipeline.core.pipeline.page_metadata import build_page_metadata_table
    from evalset_pipeline.core.pipeline.page_renders import build_page_renders
    from evalset_pipeline.core.pipeline.result import StageResult
    from evalset_pipeline.core.pipeline.template_groups import build_template_groups
    from evalset_pipeline.core.pipeline.validated_questions import build_validated_questions
    from evalset_pipeline.defs.assets.metadata import table_version

    _, data_dir, resources, versions = built
    builders = {
        "documents": build_documents,
        "page_renders": build_page_renders,
        "page_metadata": build_page_metadata_table,
        "evidence_index": build_evidence_index,
        "page_embeddings": build_page_embeddings,
        "template_groups": build_template_groups,
        "hard_negatives": build_hard_negatives,
        "gold_sample": build_gold_sample,
        "candidate_questions": build_candidate_questions,
        "item_pools": build_item_pools,
        "validated_questions": build_validated_questions,
        "candidate_labels": build_candidate_labels,
    }
    assert set(builders) == set(graph.STAGES) - {"golden_set", "baseline_scores"}
    for stage, build in builders.items():
        paths = graph.stage_paths(data_dir, stage)
        ctx = StageContext(
            paths,
            resources["settings"].build_config(),
            resources["embedder"].spec(),
            open_backend=lambda p=paths: open_cached_backend(resources["vlm"].config(), p),
        )
        result = build(ctx)
        assert isinstance(result, StageResult), stage
        assert set(result.tables) <= graph.writes(stage), stage
        assert all(f.split(".")[0] in graph.writes(stage) for f in result.files), stage
        version = result.version or table_version(paths, *result.tables, files=result.files).value
        assert version == versions[stage], stage
