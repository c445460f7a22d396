"""Group `corpus`: (corpus_files) ──► documents ──► page_renders ──► page_metadata."""

import dagster as dg

from evalset_pipeline.core.pipeline.documents import build_documents
from evalset_pipeline.core.pipeline.page_metadata import build_page_metadata_table
from evalset_pipeline.core.pipeline.page_renders import build_page_renders
from evalset_pipeline.defs.assets.metadata import materialization, md_table, stage_graph
from evalset_pipeline.defs.external import report_corpus_inputs
from evalset_pipeline.defs.resources import PipelineSettings, stage_context

GROUP = "corpus"

# The PDFs themselves: not built here; the `corpus_changed` sensor reports each new state of the
# folder (data version = corpus fingerprint), so the UI marks `documents` stale as soon as it changes.
corpus_files = dg.AssetSpec(
    "corpus_files",
    group_name=GROUP,
    kinds={"pdf"},
    description="The PDFs under the corpus root (external; each change reported by the corpus_changed sensor).",
)


# metadata.csv at the corpus root: reported with the sha256 of its bytes as data version (the
# `documents` step and the corpus_changed sensor report it), so a sidecar edit makes page_metadata
# and everything that reads it stale, and nothing else.
corpus_sidecar = dg.AssetSpec(
    "corpus_sidecar",
    group_name=GROUP,
    kinds={"csv"},
    description="metadata.csv at the corpus root (external; data version = sha256 of its bytes).",
)


@dg.asset(
    group_name=GROUP,
    **stage_graph("documents"),
    kinds={"pdf"},
    description="Every PDF under the corpus root: sha256, page count; rejected files with a reason.",
)
def documents(
    context: dg.AssetExecutionContext, settings: PipelineSettings
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings)
    report_corpus_inputs(context, settings)
    result = build_documents(ctx)
    rejected = md_table(result.rows, ["path", "reason", "stage"]) if result.rows else "*none*"
    return materialization(ctx.paths, result, rejected_table=dg.MetadataValue.md(rejected))


@dg.asset(
    group_name=GROUP,
    **stage_graph("page_renders"),
    kinds={"png"},
    description="PNG per page, content-addressed by (document sha256, page, render settings); text layer beside it.",
)
def page_renders(
    context: dg.AssetExecutionContext, settings: PipelineSettings
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings)
    return materialization(ctx.paths, build_page_renders(ctx))


@dg.asset(
    group_name=GROUP,
    **stage_graph("page_metadata"),
    description="template_id, entity, metric, period, revision, language per page, each with its source.",
)
def page_metadata(
    context: dg.AssetExecutionContext, settings: PipelineSettings
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings)
    return materialization(ctx.paths, build_page_metadata_table(ctx))
