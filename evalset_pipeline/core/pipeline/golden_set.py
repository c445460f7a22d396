"""`golden_set`: items + judgments + units, published as one immutable, fingerprinted version."""
from __future__ import annotations

import pyarrow as pa

from evalset_pipeline.core.golden import schema
from evalset_pipeline.core.golden.model import GoldenSetDraft, PublishResult
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.pipeline.candidate_labels import load_candidate_labels
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.documents import load_manifest
from evalset_pipeline.core.pipeline.model_calls import load_call_stats
from evalset_pipeline.core.pipeline.page_metadata import load_page_metadata
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.template_groups import load_template_groups
from evalset_pipeline.core.pipeline.validated_questions import load_funnel, load_validated_questions
from evalset_pipeline.core.questions.funnel import summarize


def _without_version(s: pa.Schema) -> pa.Schema:
    return pa.schema([f for f in s if f.name != "version_id"])


def assemble_draft(ctx: StageContext, backend_identity: dict) -> GoldenSetDraft:
    validated = load_validated_questions(ctx)
    labels = load_candidate_labels(ctx)
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    meta = load_page_metadata(ctx)
    # The template the negatives were mined with: metadata where given, else the cluster.
    templates = {u: t for u, (t, _) in load_template_groups(ctx).items()}
    items = [{"item_id": v.item_id, "slice": v.slice, "question": v.question, "answer": v.answer,
              "gold_unit_id": v.gold_unit_id, "original_question": v.original_question, "language": v.language,
              "qualified_axes": ",".join(v.qualified_axes)} for v in validated]
    judgments = [{"item_id": lab.item_id, "unit_id": lab.unit_id, "role": lab.role, "axis": lab.axis,
                  "label": lab.label, "rationale": lab.rationale, "label_source": "model"} for lab in labels]
    # --- people in the loop (core/review/apply.py): human / adjudicated labels over model labels,
    # regression golds, and the measured model-human agreement for provenance. ---
    from evalset_pipeline.core.review.apply import apply_reviews
    from evalset_pipeline.core.review.regression import funnel_summary, load_regression_rows

    regression_rows = load_regression_rows(ctx.paths)
    review = apply_reviews(ctx.paths, items, judgments, backend_identity,
                           {r["item_id"]: r["note"] for r in regression_rows if r["status"] == "added"})
    judgments = review.judgments
    # --- end people in the loop ---
    unit_ids = sorted({j["unit_id"] for j in judgments} | {i["gold_unit_id"] for i in items})
    units = []
    for u in unit_ids:
        r, m = renders[u], meta.get(u)
        get = (lambda f: m.get(f)) if m else (lambda f: "")
        units.append({"unit_id": u, "document_path": r.document_path, "document_sha256": r.document_sha256,
                      "page_number": r.page_number, "render_path": r.render_path, "text_path": r.text_path,
                      "render_hash": r.render_hash, "template_id": templates.get(u) or get("template_id"), "entity": get("entity"),
                      "metric": get("metric"), "period": get("period"), "revision": get("revision"),
                      "language": get("language")})
    stats = load_call_stats(ctx)
    kept = sum(1 for v in validated if v.slice == "main")
    provenance = {
        **backend_identity,
        "embedder": ctx.embedder.model_id,
        "calls_this_build": stats.calls, "cache_hits_this_build": stats.cache_hits,
        "tokens": {"prompt": stats.total_prompt_tokens, "completion": stats.total_completion_tokens},
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
        config_fingerprint=ctx.config_fingerprint(backend_identity),
        funnel={**summarize(load_funnel(ctx)), "regression": funnel_summary(regression_rows)},  # people in the loop
        provenance=provenance,
    )


def build_golden_set(ctx: StageContext, backend_identity: dict) -> tuple[PublishResult, GoldenSetDraft]:
    draft = assemble_draft(ctx, backend_identity)
    return publish_golden_set(ctx.paths, draft), draft
