"""Group `index`: page_embeddings ──► template_groups; evidence_index."""

import dagster as dg

from evalset_pipeline.core.pipeline.evidence_index import build_evidence_index
from evalset_pipeline.core.pipeline.page_embeddings import build_page_embeddings
from evalset_pipeline.core.pipeline.template_groups import build_template_groups
from evalset_pipeline.defs.assets.metadata import materialization, stage_graph
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, stage_context

GROUP = "index"


@dg.asset(
    group_name=GROUP,
    **stage_graph("page_embeddings"),
    kinds={"numpy"},
    description="Appearance vector per page, cached by (model id, render hash).",
)
def page_embeddings(
    context: dg.AssetExecutionContext, settings: PipelineSettings, embedder: EmbedderResource
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings, embedder=embedder)
    return materialization(ctx.paths, build_page_embeddings(ctx))


@dg.asset(
    group_name=GROUP,
    **stage_graph("template_groups"),
    description="Visual template per page: metadata where present, clustered appearance otherwise.",
)
def template_groups(
    context: dg.AssetExecutionContext, settings: PipelineSettings
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings)
    return materialization(ctx.paths, build_template_groups(ctx))


@dg.asset(
    group_name=GROUP,
    **stage_graph("evidence_index"),
    description="Every figure every page prints (row, column period, unit and scale), read once per "
    "text layer: what pooling searches for the pages that answer a question.",
)
def evidence_index(
    context: dg.AssetExecutionContext, settings: PipelineSettings
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings)
    return materialization(ctx.paths, build_evidence_index(ctx))
