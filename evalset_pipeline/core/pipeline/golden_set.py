"""`golden_set`: items + judgments + units, published as one immutable, fingerprinted version."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from evalset_pipeline.core.checks import verdicts
from evalset_pipeline.core.golden import schema
from evalset_pipeline.core.golden.model import GoldenSetDraft, PublishResult
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.golden.units import unit_row
from evalset_pipeline.core.hashing import canonical_json
from evalset_pipeline.core.pipeline.candidate_labels import load_candidate_labels
from evalset_pipeline.core.pipeline.context import StageContext, config_fingerprint_of
from evalset_pipeline.core.pipeline.documents import load_manifest
from evalset_pipeline.core.pipeline.lineage import LineageMismatch, load_producer
from evalset_pipeline.core.pipeline.model_calls import load_call_stats
from evalset_pipeline.core.pipeline.page_metadata import load_page_metadata
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.template_groups import load_template_groups
from evalset_pipeline.core.pipeline.validated_questions import load_funnel, load_validated_questions
from evalset_pipeline.core.questions.funnel import summarize
from evalset_pipeline.core.tables import read_table


def _without_version(s: pa.Schema) -> pa.Schema:
    return pa.schema([f for f in s if f.name != "version_id"])


@dataclass(frozen=True)
class Lineage:
    """What produced the rows being published, as the producing stages recorded it."""

    backend: dict  # identity of the model that labelled (and, normally, wrote and validated)
    knobs: dict
    embedder: str
    stages: dict  # stage -> backend identity, when the model stages disagree


def load_lineage(ctx: StageContext, labels_sha256: str | None = None) -> Lineage:
    labels = load_producer(ctx, "candidate_labels", labels_sha256)
    stages = {
        "candidate_labels": labels.backend,
        "validated_questions": load_producer(ctx, "validated_questions").backend,
    }
    try:
        stages["candidate_questions"] = load_producer(ctx, "candidate_questions").backend
    except LineageMismatch:
        pass  # golden_set does not read that table; validated_questions vouches for the questions
    emb = (
        read_table(ctx.paths.table("page_embeddings"), producer="page_embeddings")
        .column("model_id")
        .to_pylist()
    )
    mixed = len({canonical_json(b) for b in stages.values()}) > 1
    return Lineage(
        labels.backend,
        labels.knobs,
        emb[0] if emb else ctx.embedder.model_id,
        stages if mixed else {},
    )


def assemble_draft(ctx: StageContext, lineage: Lineage) -> GoldenSetDraft:
    # Identity and provenance come from what produced the rows, never from this run's settings.
    backend_identity = lineage.backend
    validated = load_validated_questions(ctx)
    labels = load_candidate_labels(ctx)
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    meta = load_page_metadata(ctx)
    # The template the negatives were mined with: metadata where given, else the cluster.
    templates = {u: t for u, (t, _) in load_template_groups(ctx).items()}
    items = [
        {
            "item_id": v.item_id,
            "slice": v.slice,
            "question": v.question,
            "answer": v.answer,
            "gold_unit_id": v.gold_unit_id,
            "original_question": v.original_question,
            "language": v.language,
            "qualified_axes": ",".join(v.qualified_axes),
        }
        for v in validated
    ]
    judgments = [
        {
            "item_id": lab.item_id,
            "unit_id": lab.unit_id,
            "role": lab.role,
            "axis": lab.axis,
            "label": lab.label,
            "rationale": lab.rationale,
            "label_source": "model",
        }
        for lab in labels
    ]
    # --- people in the loop (core/review/apply.py): human / adjudicated labels over model labels,
    # regression golds, and the measured model-human agreement for provenance. ---
    from evalset_pipeline.core.review.apply import apply_reviews
    from evalset_pipeline.core.review.regression import funnel_summary, load_regression_rows

    regression_rows = load_regression_rows(ctx.paths)
    review = apply_reviews(
        ctx.paths,
        items,
        judgments,
        backend_identity,
        {r["item_id"]: r["note"] for r in regression_rows if r["status"] == "added"},
    )
    judgments = review.judgments
    # --- end people in the loop ---
    unit_ids = sorted({j["unit_id"] for j in judgments} | {i["gold_unit_id"] for i in items})
    units = [unit_row(u, renders[u], meta.get(u), templates.get(u) or "") for u in unit_ids]
    stats = load_call_stats(ctx)
    kept = sum(1 for v in validated if v.slice == "main")
    provenance = {
        **backend_identity,
        "embedder": lineage.embedder,
        **({"stages": lineage.stages} if lineage.stages else {}),
        "calls_this_build": stats.calls,
        "cache_hits_this_build": stats.cache_hits,
        "tokens": {
            "prompt": stats.total_prompt_tokens,
            "completion": stats.total_completion_tokens,
        },
        "cost_usd": round(stats.total_cost_usd, 6),
        "cost_per_kept_item_usd": round(stats.total_cost_usd / kept, 6) if kept else None,
        "labels_by_source": review.labels_by_source,  # people in the loop
        "model_human_agreement": review.agreement,  # people in the loop
    }
    return GoldenSetDraft(
        items=pa.Table.from_pylist(items, schema=_without_version(schema.GOLDEN_ITEMS)),
        judgments=pa.Table.from_pylist(judgments, schema=_without_version(schema.GOLDEN_JUDGMENTS)),
        units=pa.Table.from_pylist(units, schema=_without_version(schema.GOLDEN_UNITS)),
        corpus=load_manifest(ctx),
        config_fingerprint=config_fingerprint_of(
            lineage.knobs,
            lineage.embedder,
            {"stages": lineage.stages} if lineage.stages else backend_identity,
        ),
        funnel={
            **summarize(load_funnel(ctx)),
            "regression": funnel_summary(regression_rows),
        },  # people in the loop
        provenance=provenance,
    )


def build_golden_set(ctx: StageContext) -> tuple[PublishResult, GoldenSetDraft]:
    """Publish the tables as they are, only if the blocking gates passed on exactly these bytes."""
    tables = verdicts.table_hashes(ctx.paths)
    verdict = verdicts.require_passed(ctx.paths, tables)
    draft = assemble_draft(ctx, load_lineage(ctx, tables["candidate_labels"]))
    if verdicts.table_hashes(ctx.paths) != tables:  # rewritten while we read them: judge them first
        raise verdicts.GatesNotPassed(
            "refusing to publish: validated_questions / candidate_labels changed while "
            "golden_set read them; build again"
        )
    draft.provenance["gates"] = {
        "verdict": verdict.key,
        "judged_at": verdict.judged_at,
        "warnings": {n: r.description for n, r in sorted(verdict.warnings.items())},
    }
    return publish_golden_set(ctx.paths, draft), draft
