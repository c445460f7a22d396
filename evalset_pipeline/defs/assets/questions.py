"""Group `questions`: gold_sample ──► candidate_questions ──► validated_questions ──► candidate_labels."""

import dagster as dg

from evalset_pipeline.core.pipeline.candidate_labels import build_candidate_labels
from evalset_pipeline.core.pipeline.candidate_questions import build_candidate_questions
from evalset_pipeline.core.pipeline.gold_sample import build_gold_sample
from evalset_pipeline.core.pipeline.validated_questions import build_validated_questions
from evalset_pipeline.defs.assets.metadata import md_table, to_metadata
from evalset_pipeline.defs.assets.negatives import hard_negatives
from evalset_pipeline.defs.resources import PipelineSettings, VLMResource, stage_context

GROUP = "questions"
MODEL_POOL = "vlm_endpoint"  # a Dagster concurrency pool: caps concurrent model steps across runs


@dg.asset(group_name=GROUP, deps=[hard_negatives], code_version="1",
          description="Seeded sample of gold pages, stratified by template, among pages with distractors.")
def gold_sample(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=to_metadata(build_gold_sample(stage_context(context, settings))))


@dg.asset(group_name=GROUP, deps=[gold_sample], code_version="1", pool=MODEL_POOL,
          description="One question and its answer per gold page, written by the model from that page alone.")
def candidate_questions(context: dg.AssetExecutionContext, settings: PipelineSettings, vlm: VLMResource) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=to_metadata(build_candidate_questions(stage_context(context, settings, vlm=vlm))))


@dg.asset(group_name=GROUP, deps=[candidate_questions], code_version="1", pool=MODEL_POOL,
          description="Questions only their gold answers; qualified, moved to underspecified, or dropped with a reason.")
def validated_questions(context: dg.AssetExecutionContext, settings: PipelineSettings, vlm: VLMResource) -> dg.MaterializeResult:
    summary = build_validated_questions(stage_context(context, settings, vlm=vlm))
    rows = summary.pop("funnel_rows")
    meta = to_metadata(summary)
    meta["funnel"] = dg.MetadataValue.md(md_table(rows, ["item_id", "decision", "reason", "question"]))
    return dg.MaterializeResult(metadata=meta)


@dg.asset(group_name=GROUP, deps=[validated_questions], code_version="1", pool=MODEL_POOL,
          description="sufficient / supporting / irrelevant for the gold and every distractor of each kept question.")
def candidate_labels(context: dg.AssetExecutionContext, settings: PipelineSettings, vlm: VLMResource) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=to_metadata(build_candidate_labels(stage_context(context, settings, vlm=vlm))))
