"""`candidate_labels`: sufficient / supporting / irrelevant for the gold and every distractor of a kept question."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict

import pyarrow as pa

from evalset_pipeline.core.golden.schema import GOLDEN_JUDGMENTS
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.hard_negatives import load_comparatives, load_hard_negatives
from evalset_pipeline.core.pipeline.lineage import record_producer
from evalset_pipeline.core.pipeline.model_calls import stage_backend
from evalset_pipeline.core.pipeline.page_metadata import load_document_contexts, load_page_metadata
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.pages import page_view
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.pipeline.template_groups import load_template_groups
from evalset_pipeline.core.pipeline.validated_questions import load_validated_questions
from evalset_pipeline.core.questions.labels import (
    COMPARATIVE,
    CandidateLabel,
    CandidateUnit,
    label_candidates,
    settle_comparatives,
)
from evalset_pipeline.core.questions.siblings import evidence_siblings
from evalset_pipeline.core.tables import read_rows, write_rows
from evalset_pipeline.core.vlm.factory import backend_identity

# golden_judgments before publishing: no version yet, every label the model's.
SCHEMA = pa.schema([f for f in GOLDEN_JUDGMENTS if f.name not in ("version_id", "label_source")])


def build_candidate_labels(ctx: StageContext) -> StageResult:
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    negatives = load_hard_negatives(ctx)
    comparatives = load_comparatives(ctx)
    root = ctx.paths.root
    contexts = load_document_contexts(ctx)
    validated = load_validated_questions(ctx)
    meta = load_page_metadata(ctx)
    templates = {u: t for u, (t, _) in load_template_groups(ctx).items()}
    axes = list(ctx.config.axes)
    siblings = evidence_siblings(
        [v.gold_unit_id for v in validated],
        {u: {a: m.get(a) for a in axes} for u, m in meta.items()},
        templates,
        axes,
    )
    questions, candidates = {}, []
    for v in validated:
        questions[v.item_id] = (v.question, v.answer)
        candidates.append(
            CandidateUnit(v.item_id, page_view(renders[v.gold_unit_id], root, contexts), "gold", "")
        )
        distractors = [n.negative_unit_id for n in negatives.get(v.gold_unit_id, [])]
        candidates += [
            CandidateUnit(
                v.item_id,
                page_view(renders[n.negative_unit_id], root, contexts),
                "distractor",
                n.axis,
            )
            for n in negatives.get(v.gold_unit_id, [])
        ]
        compared = [
            c.comparative_unit_id
            for c in comparatives.get(v.gold_unit_id, [])
            if c.comparative_unit_id not in distractors
        ]
        candidates += [
            CandidateUnit(v.item_id, page_view(renders[u], root, contexts), "pooled", COMPARATIVE)
            for u in compared
        ]
        candidates += [
            CandidateUnit(v.item_id, page_view(renders[u], root, contexts), "pooled", "")
            for u in siblings[v.gold_unit_id]
            if u not in distractors and u not in compared
        ]
    with stage_backend(ctx, "candidate_labels") as backend:
        labels = settle_comparatives(
            label_candidates(questions, candidates, backend),
            questions,
            {c.page.unit_id: c.page for c in candidates},
            backend,
        )
        stats = backend.stats
    write_rows(ctx.paths.table("candidate_labels"), (asdict(lab) for lab in labels), SCHEMA)
    record_producer(
        ctx, "candidate_labels", backend_identity(backend.backend)
    )  # provenance = what wrote these rows
    by_role = Counter(f"{lab.role}:{lab.label}" for lab in labels)
    return StageResult(
        {
            "labels": len(labels),
            "by_role_and_label": dict(sorted(by_role.items())),
            "comparatives": dict(
                sorted(
                    Counter(
                        f"{lab.role}:{lab.axis}:{lab.label}"
                        for lab in labels
                        if lab.axis in (COMPARATIVE, "revision")
                    ).items()
                )
            ),
            "model_calls": sum(stats.calls.values()),
            "cache_hits": sum(stats.cache_hits.values()),
        },
        tables=("candidate_labels",),
    )


def load_candidate_labels(ctx: StageContext) -> list[CandidateLabel]:
    return [
        CandidateLabel(**r)
        for r in read_rows(ctx.paths.table("candidate_labels"), producer="candidate_labels")
    ]
