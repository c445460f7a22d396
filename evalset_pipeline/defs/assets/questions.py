"""Group `questions`: gold_sample ──► candidate_questions ──► validated_questions ──► candidate_labels."""

import dagster as dg

from evalset_pipeline.core.pipeline.candidate_labels import build_candidate_labels
from evalset_pipeline.core.pipeline.candidate_questions import build_candidate_questions
from evalset_pipeline.core.pipeline.gold_sample import build_gold_sample
from evalset_pipeline.core.pipeline.validated_questions import build_validated_questions
from evalset_pipeline.defs.assets.metadata import (
    funnel_md,
    md_table,
    stage_graph,
    table_version,
    to_metadata,
)
from evalset_pipeline.defs.resources import PipelineSettings, VLMResource, stage_context

GROUP = "questions"
MODEL_POOL = "vlm_endpoint"  # a Dagster concurrency pool: caps concurrent model steps across runs


@dg.asset(
    group_name=GROUP,
    **stage_graph("gold_sample"),
    description="Seeded sample of gold pages, stratified by template, among pages with distractors.",
)
def gold_sample(
    context: dg.AssetExecutionContext, settings: PipelineSettings
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings)
    return dg.MaterializeResult(
        metadata=to_metadata(build_gold_sample(ctx)),
        data_version=table_version(ctx.paths, "gold_sample"),
    )


@dg.asset(
    group_name=GROUP,
    **stage_graph("candidate_questions"),
    pool=MODEL_POOL,
    description="One question and its answer per gold page, written by the model from that page alone.",
)
def candidate_questions(
    context: dg.AssetExecutionContext, settings: PipelineSettings, vlm: VLMResource
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings, vlm=vlm)
    summary = build_candidate_questions(ctx)
    return dg.MaterializeResult(
        metadata=to_metadata(summary), data_version=table_version(ctx.paths, "candidate_questions")
    )


@dg.asset(
    group_name=GROUP,
    **stage_graph("validated_questions"),
    pool=MODEL_POOL,
    description="Questions only their gold answers; qualified, moved to underspecified, or dropped with a reason.",
)
def validated_questions(
    context: dg.AssetExecutionContext, settings: PipelineSettings, vlm: VLMResource
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings, vlm=vlm)
    summary = build_validated_questions(ctx)
    rows = summary.pop("funnel_rows")
    meta = to_metadata(summary)
    meta["funnel_table"] = dg.MetadataValue.md(funnel_md(summary))
    meta["decisions"] = dg.MetadataValue.md(
        md_table(rows, ["item_id", "decision", "reason", "question"])
    )
    return dg.MaterializeResult(
        metadata=meta, data_version=table_version(ctx.paths, "validated_questions", "funnel")
    )


@dg.asset(
    group_name=GROUP,
    **stage_graph("candidate_labels"),
    pool=MODEL_POOL,
    description="sufficient / supporting / irrelevant for the gold and every distractor of each kept question.",
)
def candidate_labels(
    context: dg.AssetExecutionContext, settings: PipelineSettings, vlm: VLMResource
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings, vlm=vlm)
    summary = build_candidate_labels(ctx)
    return dg.MaterializeResult(
        metadata=to_metadata(summary), data_version=table_version(ctx.paths, "candidate_labels")
    )
