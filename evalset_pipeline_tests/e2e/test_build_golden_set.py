"""End to end through Dagster on a generated corpus, judged against the generator's ground truth."""

from __future__ import annotations

import dagster as dg
import duckdb
import pytest

from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline.samplekit.sample_corpus import UNANSWERABLE_EVERY, plan_sample_corpus
from evalset_pipeline_tests.e2e.oracle import differing_axes, question_pins_gold, truth_by_unit


def _resources(corpus, data_dir, **settings):
    return {
        "settings": PipelineSettings(
            data_dir=str(data_dir), corpus_dir=str(corpus), workers=2, **settings
        ),
        "vlm": VLMResource(unanswerable_every=UNANSWERABLE_EVERY),  # the sample's own setting
        "embedder": EmbedderResource(),
    }


@pytest.fixture(scope="module")
def built(small_corpus, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("data")
    result = dg.materialize(all_assets, resources=_resources(small_corpus, data_dir))
    assert result.success
    return data_dir, result


def test_golden_set_is_built_and_well_posed_against_ground_truth(built, small_corpus):
    data_dir, _ = built
    gs = load_golden_set("latest", data_dir)
    plan = plan_sample_corpus(entities=5, periods=2)
    truth = truth_by_unit(plan, gs.units.to_pylist())
    items = gs.items.to_pylist()
    judgments = gs.judgments.to_pylist()
    main = [i for i in items if i["slice"] == "main"]
    assert len(main) >= 20
    funnel = gs.info["funnel"]
    assert funnel["qualified"] > 0, (
        "the writer omits period/entity, so some questions must need qualifiers"
    )
    assert funnel["dropped"] + funnel["underspecified"] > 0, (
        "validation must have rejected something"
    )

    for item in main:
        gold = truth[item["gold_unit_id"]]
        mine = [j for j in judgments if j["item_id"] == item["item_id"]]
        golds = [j for j in mine if j["role"] == "gold"]
        assert len(golds) == 1 and golds[0]["label"] == "sufficient"
        distractors = [j for j in mine if j["role"] == "distractor"]
        assert distractors, item
        for d in distractors:
            other = truth[d["unit_id"]]
            assert other.template_id == gold.template_id
            assert differing_axes(gold, other, ("period", "metric", "entity")) == [d["axis"]]
            # Ground truth: the question names something only the gold has, so this page cannot answer it.
            assert question_pins_gold(item["question"], gold, other), (item["question"], d)
            assert d["label"] != "sufficient", (item["question"], d)


def test_rebuild_gives_the_same_version_and_no_new_row(built, small_corpus):
    data_dir, _ = built
    before = load_golden_set("latest", data_dir)
    result = dg.materialize(all_assets, resources=_resources(small_corpus, data_dir))
    assert result.success
    after = load_golden_set("latest", data_dir)
    assert after.version_id == before.version_id
    with duckdb.connect(str(data_dir / "evalsets.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM golden_sets").fetchone()[0] == 1
        latest = con.execute("SELECT count(*) FROM latest_golden_items").fetchone()[0]
    assert latest == after.items.num_rows
    # Nothing re-rendered, nothing re-asked of the model.
    renders = result.asset_materializations_for_node("page_renders")[-1].metadata
    assert renders["rendered"].value == 0
    for stage in ("candidate_questions", "validated_questions", "candidate_labels"):
        assert result.asset_materializations_for_node(stage)[-1].metadata["model_calls"].value == 0


def test_a_different_seed_gives_a_different_version(built, small_corpus):
    data_dir, _ = built
    before = load_golden_set("latest", data_dir)
    result = dg.materialize(all_assets, resources=_resources(small_corpus, data_dir, seed=99))
    assert result.success
    after = load_golden_set("latest", data_dir)
    assert after.version_id != before.version_id
    assert after.info["parent_version"] == before.version_id
