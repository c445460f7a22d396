"""Group `index`: page_embeddings ──► template_groups."""

import dagster as dg

from evalset_pipeline.core.pipeline.page_embeddings import build_page_embeddings
from evalset_pipeline.core.pipeline.template_groups import build_template_groups
from evalset_pipeline.defs.assets.corpus import page_metadata, page_renders
from evalset_pipeline.defs.assets.metadata import to_metadata
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, stage_context

GROUP = "index"


@dg.asset(group_name=GROUP, deps=[page_renders], code_version="1", kinds={"numpy"},
          description="Appearance vector per page, cached by (model id, render hash).")
def page_embeddings(context: dg.AssetExecutionContext, settings: PipelineSettings, embedder: EmbedderResource) -> dg.MaterializeResult:
    summary = build_page_embeddings(stage_context(context, settings, embedder=embedder))
    return dg.MaterializeResult(metadata=to_metadata(summary))


@dg.asset(group_name=GROUP, deps=[page_embeddings, page_metadata], code_version="1",
          description="Visual template per page: metadata where present, clustered appearance otherwise.")
def template_groups(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    summary = build_template_groups(stage_context(context, settings))
    return dg.MaterializeResult(metadata=to_metadata(summary))
