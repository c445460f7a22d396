"""Snapshot of the asset graph as Dagster loads it: every asset's key, deps, group, checks and kind.

A change to what a stage reads (core/pipeline/graph.py), a new asset or a moved check shows up
here as a diff to review, as dagster-open-platform does for its definitions. Regenerate after a
deliberate change with `EVALSET_UPDATE_SNAPSHOTS=1 pytest evalset_pipeline_tests/defs/test_asset_graph_snapshot.py`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import dagster as dg

from evalset_pipeline.core.pipeline import graph
from evalset_pipeline.definitions import defs

SNAPSHOT = Path(__file__).with_name("asset_graph.snapshot.json")


def current_snapshot() -> dict:
    g = defs.resolve_asset_graph()
    checks: dict[str, list[str]] = {}
    for key in g.asset_check_keys:
        spec = g.get_check_spec(key)
        checks.setdefault(spec.asset_key.to_user_string(), []).append(
            f"{key.name}{' (blocking)' if spec.blocking else ''}"
        )
    out = {}
    for key in sorted(g.get_all_asset_keys(), key=lambda k: k.to_user_string()):
        node = g.get(key)
        name = key.to_user_string()
        out[name] = {
            "deps": sorted(k.to_user_string() for k in node.parent_keys),
            "group": node.group_name,
            "materializable": node.is_materializable,
            "checks": sorted(checks.get(name, [])),
            "pools": sorted(node.pools or []),
        }
    return out


def test_the_asset_graph_matches_its_snapshot():
    now = current_snapshot()
    if os.environ.get("EVALSET_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(json.dumps(now, indent=2) + "\n")
    assert now == json.loads(SNAPSHOT.read_text()), (
        "asset graph changed: review, then regenerate (see module docstring)"
    )


def test_deps_are_exactly_the_producers_of_what_each_stage_reads():
    g = defs.resolve_asset_graph()
    for stage in graph.STAGES:
        parents = {k.to_user_string() for k in g.get(dg.AssetKey(stage)).parent_keys}
        assert parents == set(graph.upstream(stage)), stage
    # the reads the issue found undeclared are declared now
    assert {"page_embeddings", "page_metadata", "page_renders"} <= set(
        graph.upstream("hard_negatives")
    )
    assert "item_pools" in graph.upstream("validated_questions")
    assert {"hard_negatives", "evidence_index"} <= set(graph.upstream("item_pools"))
    assert "corpus_sidecar" in graph.upstream(
        "page_metadata"
    ) and "corpus_sidecar" not in graph.upstream("documents")


def test_code_versions_come_from_the_import_closure():
    g = defs.resolve_asset_graph()
    for stage in graph.STAGES:
        assert g.get(dg.AssetKey(stage)).code_version == graph.code_version(stage), stage
