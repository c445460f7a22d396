"""Group `golden`: golden_set (a new immutable version only when its content changed)."""

import dagster as dg

from evalset_pipeline.core.negatives.lookalikes import golden_lookalikes
from evalset_pipeline.core.pipeline.golden_set import build_golden_set
from evalset_pipeline.defs.assets.metadata import stage_graph
from evalset_pipeline.defs.assets.previews import golden_set_story
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, stage_context


@dg.asset(
    group_name="golden",
    **stage_graph("golden_set"),
    kinds={"duckdb", "parquet"},
    description="Items + judgments + units, written as one fingerprinted version; identical inputs give the "
    "identical version. "
    "Published only from tables whose blocking checks on candidate_labels passed (a verdict stored with "
    "the tables), whichever way it is launched.",
)
def golden_set(
    context: dg.AssetExecutionContext, settings: PipelineSettings, embedder: EmbedderResource
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings, embedder=embedder)
    # Refuses unless the gates passed on these exact tables (core/checks/verdicts.py); backend and
    # knobs come from what produced the tables, so this run's resources cannot relabel them.
    result, draft = build_golden_set(ctx)
    state = (
        "new"
        if result.created
        else "confirmed again, LATEST moved back to it"
        if result.latest_moved
        else "unchanged"
    )
    context.log.info("golden set %s (seq %d, %s)", result.version_id, result.seq, state)
    for warning in result.warnings:
        context.log.warning(warning)
    meta = golden_set_story(ctx, result, draft)
    meta["latest_moved"] = dg.MetadataValue.bool(result.latest_moved)
    meta["publish_event"] = dg.MetadataValue.int(result.event)
    meta["warnings"] = dg.MetadataValue.json(list(result.warnings))
    # share of main items with a distractor one axis away, per axis (appearance never counts)
    meta["lookalikes"] = dg.MetadataValue.json(golden_lookalikes(draft.items, draft.judgments))
    return dg.MaterializeResult(metadata=meta, data_version=dg.DataVersion(result.version_id))
