import dagster as dg

from evalset_pipeline.definitions import defs

EXPECTED = {
    "documents", "page_renders", "page_metadata", "page_embeddings", "template_groups", "hard_negatives",
    "gold_sample", "candidate_questions", "validated_questions", "candidate_labels", "golden_set",
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
