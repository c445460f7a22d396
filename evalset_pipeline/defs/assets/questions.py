"""Group `questions`: gold_sample ──► candidate_questions ──► item_pools ──► validated_questions ──►
candidate_labels."""

import dagster as dg

from evalset_pipeline.core.pipeline.candidate_labels import build_candidate_labels
from evalset_pipeline.core.pipeline.candidate_questions import build_candidate_questions
from evalset_pipeline.core.pipeline.gold_sample import build_gold_sample
from evalset_pipeline.core.pipeline.item_pools import build_item_pools
from evalset_pipeline.core.pipeline.validated_questions import build_validated_questions
from evalset_pipeline.defs.assets.metadata import funnel_md, materialization, md_table, stage_graph
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
    return materialization(ctx.paths, build_gold_sample(ctx))


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
    return materialization(ctx.paths, build_candidate_questions(ctx))


@dg.asset(
    group_name=GROUP,
    **stage_graph("item_pools"),
    description="Every page that might answer each question, TREC-style: mined negatives, "
    "comparatives, every page printing the answer's figure or the same row and period, "
    "near-identical copies, the baselines' top pages; each with the sources that found it.",
)
def item_pools(
    context: dg.AssetExecutionContext, settings: PipelineSettings
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings)
    return materialization(ctx.paths, build_item_pools(ctx))


@dg.asset(
    group_name=GROUP,
    **stage_graph("validated_questions"),
    pool=MODEL_POOL,
    description="Questions judged against their whole pool: every page that answers agrees or is told "
    "apart by a qualifier; else moved to underspecified, or dropped with a reason.",
)
def validated_questions(
    context: dg.AssetExecutionContext, settings: PipelineSettings, vlm: VLMResource
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings, vlm=vlm)
    result = build_validated_questions(ctx)
    return materialization(
        ctx.paths,
        result,
        funnel_table=dg.MetadataValue.md(funnel_md(result.metrics)),
        decisions=dg.MetadataValue.md(
            md_table(result.rows, ["item_id", "decision", "reason", "question"])
        ),
    )


@dg.asset(
    group_name=GROUP,
    **stage_graph("candidate_labels"),
    pool=MODEL_POOL,
    description="sufficient / supporting / irrelevant for the gold and every pool page of each kept question.",
)
def candidate_labels(
    context: dg.AssetExecutionContext, settings: PipelineSettings, vlm: VLMResource
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings, vlm=vlm)
    return materialization(ctx.paths, build_candidate_labels(ctx))
