"""Group `negatives`: hard_negatives."""

import dagster as dg

from evalset_pipeline.core.pipeline.hard_negatives import build_hard_negatives
from evalset_pipeline.defs.assets.metadata import materialization, stage_graph
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
    return materialization(ctx.paths, build_hard_negatives(ctx))
