"""End to end through Dagster on a corpus with no metadata.csv: templates from clusters, axes extracted.

The generator's plan is the oracle: every distractor of a kept item must share the gold page's
true template and differ from it on exactly the axis it was mined for.
"""

from __future__ import annotations

import shutil
from collections import Counter

import dagster as dg
import pytest

from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.index.clustering import adjusted_rand_index
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.tables import read_rows
from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline.samplekit.sample_corpus import plan_sample_corpus
from evalset_pipeline_tests.e2e.oracle import differing_axes, truth_by_unit


@pytest.fixture(scope="module")
def built(small_corpus, tmp_path_factory):
    corpus = tmp_path_factory.mktemp("corpus_without_sidecar")
    shutil.copytree(small_corpus, corpus, dirs_exist_ok=True)
    (corpus / "metadata.csv").unlink()
    data_dir = tmp_path_factory.mktemp("data")
    resources = {
        "settings": PipelineSettings(data_dir=str(data_dir), corpus_dir=str(corpus), workers=2),
        "vlm": VLMResource(),
        "embedder": EmbedderResource(),
    }
    result = dg.materialize(all_assets, resources=resources)
    assert result.success
    return data_dir, result


def _meta(result, asset: str) -> dict:
    return {
        k: v.value for k, v in result.asset_materializations_for_node(asset)[-1].metadata.items()
    }


def test_templates_come_from_clusters_and_axes_from_the_pages(built):
    data_dir, result = built
    paths = DataPaths.at(data_dir)
    groups = read_rows(paths.table("template_groups"))
    assert {g["source"] for g in groups} == {"cluster"}
    assert all(g["template_id"].startswith("cluster-") for g in groups)
    meta = read_rows(paths.table("page_metadata"))
    for field in ("period", "entity", "revision", "language"):
        assert {m[f"{field}_source"] for m in meta} == {"extracted"}, field
    assert Counter(m["metric_source"] for m in meta) == Counter(
        {"extracted": len(meta) - 10, "": 10}
    )  # 10 covers

    templates = _meta(result, "template_groups")
    assert templates["sources"] == {"cluster": len(groups)}
    assert templates["clustering"]["clusters"] == templates["templates"] >= 4
    assert sum(templates["clustering"]["cluster_sizes"]) == len(groups)
    negatives = _meta(result, "hard_negatives")
    assert negatives["template_sources"] == {"cluster": len(groups)}
    assert negatives["axis_sources"]["period"] == {"extracted": len(groups)}
    assert (
        set(negatives["pool_sizes"])
        == set(negatives["empty_pools"])
        == {"period", "metric", "entity"}
    )
    # Every page of a template of two or more gets negatives, except boilerplate (the 10 covers),
    # which is never a gold nor a distractor.
    assert negatives["boilerplate_pages"] == 10
    assert negatives["pages_with_negatives"] == (
        len(groups) - negatives["single_page_templates"] - negatives["boilerplate_pages"]
    )


def test_golden_set_distractors_share_the_true_template_and_differ_on_one_axis(built):
    data_dir, _ = built
    gs = load_golden_set("latest", data_dir)
    truth = truth_by_unit(plan_sample_corpus(entities=5, periods=2), gs.units.to_pylist())
    items = gs.items.to_pylist()
    judgments = gs.judgments.to_pylist()
    main = [i for i in items if i["slice"] == "main"]
    assert len(main) >= 20, gs.info["funnel"]
    for item in main:
        gold = truth[item["gold_unit_id"]]
        distractors = [
            j for j in judgments if j["item_id"] == item["item_id"] and j["role"] == "distractor"
        ]
        assert distractors, item
        for d in distractors:
            other = truth[d["unit_id"]]
            assert other.template_id == gold.template_id, (item["question"], d)
            assert differing_axes(gold, other, ("period", "metric", "entity")) == [d["axis"]], (
                item["question"],
                d,
            )
            assert d["label"] != "sufficient", (item["question"], d)


def test_templates_and_axes_match_the_generator_without_a_sidecar(built):
    """Issue 13's floor for the synthetic corpus: ARI >= 0.9 against the true templates, and the
    document facts (entity, period) right on every page."""
    data_dir, result = built
    paths = DataPaths.at(data_dir)
    units = read_rows(paths.table("page_renders"))
    truth = truth_by_unit(plan_sample_corpus(entities=5, periods=2), units)
    templates = {g["unit_id"]: g["template_id"] for g in read_rows(paths.table("template_groups"))}
    ids = sorted(truth)
    ari = adjusted_rand_index([truth[u].template_id for u in ids], [templates[u] for u in ids])
    assert ari >= 0.9, ari
    meta = {m["unit_id"]: m for m in read_rows(paths.table("page_metadata"))}
    assert all(meta[u]["entity"] == truth[u].entity for u in ids)
    assert all(meta[u]["period"] == truth[u].period for u in ids)
    facts = read_rows(paths.table("document_facts"))
    assert {f["entity_source"] for f in facts} == {"pdf-author"}
    shown = _meta(
        result, "page_metadata"
    )  # what the UI shows: no page had to fall back to its own values
    assert (shown["pages_with_own_entity"], shown["pages_with_own_period"]) == (0, 0)
    assert shown["documents_without_period"] == 0
    assert all(f["period"] for f in facts)
