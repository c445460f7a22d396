"""Group `negatives`: hard_negatives."""

import dagster as dg

from evalset_pipeline.core.pipeline.hard_negatives import build_hard_negatives
from evalset_pipeline.defs.assets.metadata import stage_graph, table_version, to_metadata
from evalset_pipeline.defs.resources import PipelineSettings, stage_context


@dg.asset(
    group_name="negatives",
    **stage_graph("hard_negatives"),
    description="Per page, one pool per axis holding the other axes fixed, nearest k by appearance.",
)
def hard_negatives(
    context: dg.AssetExecutionContext, settings: PipelineSettings
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings)
    summary = build_hard_negatives(ctx)
    return dg.MaterializeResult(
        metadata=to_metadata(summary),
        data_version=table_version(ctx.paths, "hard_negatives", "comparative_pages"),
    )
