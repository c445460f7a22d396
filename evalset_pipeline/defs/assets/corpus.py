"""Group `corpus`: documents ──► page_renders ──► page_metadata."""

import dagster as dg

from evalset_pipeline.core.pipeline.documents import build_documents
from evalset_pipeline.core.pipeline.page_metadata import build_page_metadata_table
from evalset_pipeline.core.pipeline.page_renders import build_page_renders
from evalset_pipeline.defs.assets.metadata import md_table, to_metadata
from evalset_pipeline.defs.resources import PipelineSettings, stage_context

GROUP = "corpus"


@dg.asset(group_name=GROUP, code_version="1", kinds={"pdf"},
          description="Every PDF under the corpus root: sha256, page count; rejected files with a reason.")
def documents(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    summary = build_documents(stage_context(context, settings))
    rejected = summary.pop("rejected_documents")
    meta = to_metadata(summary)
    if rejected:
        meta["rejected_table"] = dg.MetadataValue.md(md_table(rejected, ["path", "reason", "stage"]))
    return dg.MaterializeResult(metadata=meta, data_version=dg.DataVersion(summary["corpus_fingerprint"]))


@dg.asset(group_name=GROUP, deps=[documents], code_version="1", kinds={"png"},
          description="PNG per page, content-addressed by (document sha256, page, render settings); text layer beside it.")
def page_renders(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    summary = build_page_renders(stage_context(context, settings))
    return dg.MaterializeResult(metadata=to_metadata(summary))


@dg.asset(group_name=GROUP, deps=[page_renders], code_version="1",
          description="template_id, entity, metric, period, revision, language per page, each with its source.")
def page_metadata(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    summary = build_page_metadata_table(stage_context(context, settings))
    return dg.MaterializeResult(metadata=to_metadata(summary))
