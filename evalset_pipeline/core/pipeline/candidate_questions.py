"""`candidate_questions`: the model writes one question (and its answer) per sampled gold page."""

from __future__ import annotations

import pyarrow as pa

from evalset_pipeline.core.backends.factory import backend_identity
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.gold_sample import load_gold_sample
from evalset_pipeline.core.pipeline.lineage import record_producer
from evalset_pipeline.core.pipeline.model_calls import stage_backend
from evalset_pipeline.core.pipeline.page_metadata import (
    load_document_contexts,
    load_page_facts,
    load_page_profiles,
)
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.pages import page_view
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.tables import read_rows, write_rows

SCHEMA = pa.schema(
    [
        ("item_id", pa.string()),
        ("gold_unit_id", pa.string()),
        ("question", pa.string()),
        ("answer", pa.string()),
        ("language", pa.string()),
        ("written", pa.bool_()),
        ("skip_reason", pa.string()),
    ]
)


def no_question_reason(layout: str) -> str:
    """Why the writer found nothing to ask, by the kind of page (the funnel's skip reason)."""
    return {
        "prose": "prose page: no sentence states a figure for a named period",
        "tabular": "table without a dated column or segment series",
        "mixed": "figures without a dated column or segment series",
        "sparse": "too little text to ask about",
    }.get(layout, "page offers no question")


def item_id_for(gold_unit_id: str) -> str:
    return f"q-{gold_unit_id}"


def build_candidate_questions(ctx: StageContext) -> StageResult:
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    sample = load_gold_sample(ctx)
    # the writer, like the judge, knows the filing a page is from, and what the page adds to it
    # (the statements' basis of a DART note: a question names it where the page is one basis's)
    contexts = load_document_contexts(ctx)
    page_facts = load_page_facts(ctx)
    pages = [page_view(renders[u], ctx.paths.root, contexts, page_facts) for u in sample]
    with stage_backend(ctx, "candidate_questions") as backend:
        written = backend.write_questions(pages)
        stats = backend.stats
    profiles = load_page_profiles(ctx)
    rows = [
        {
            "item_id": item_id_for(p.unit_id),
            "gold_unit_id": p.unit_id,
            "question": w.question if w else "",
            "answer": w.answer if w else "",
            "language": w.language if w else "",
            "written": w is not None,
            "skip_reason": ""
            if w
            else no_question_reason(profiles[p.unit_id].layout if p.unit_id in profiles else ""),
        }
        for p, w in zip(pages, written, strict=False)
    ]
    write_rows(ctx.paths.table("candidate_questions"), rows, SCHEMA)
    record_producer(
        ctx, "candidate_questions", backend_identity(backend.backend)
    )  # provenance = what wrote these rows
    return StageResult(
        {
            "sampled": len(rows),
            "written": sum(r["written"] for r in rows),
            "model_calls": sum(stats.calls.values()),
            "cache_hits": sum(stats.cache_hits.values()),
            "preview": [r["question"] for r in rows if r["written"]][:5],
        },
        tables=("candidate_questions",),
    )


def load_candidate_questions(ctx: StageContext) -> list[dict]:
    return read_rows(ctx.paths.table("candidate_questions"), producer="candidate_questions")
