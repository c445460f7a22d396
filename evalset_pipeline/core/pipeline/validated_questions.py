"""`validated_questions`: keep what only its gold answers; qualify, move to `underspecified`, or drop the rest."""

from __future__ import annotations

from dataclasses import asdict

import pyarrow as pa

from evalset_pipeline.core.backends.factory import backend_identity
from evalset_pipeline.core.evidence.pools import ANSWER, MINED, answer_cells
from evalset_pipeline.core.metadata.filer_identity import filer_of_name
from evalset_pipeline.core.pipeline.candidate_questions import load_candidate_questions
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.evidence_index import load_evidence_index
from evalset_pipeline.core.pipeline.item_pools import load_item_pools
from evalset_pipeline.core.pipeline.lineage import record_producer
from evalset_pipeline.core.pipeline.model_calls import stage_backend
from evalset_pipeline.core.pipeline.page_metadata import (
    load_document_contexts,
    load_document_facts,
    load_page_facts,
    load_page_metadata,
)
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.pages import page_view
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.questions import funnel as funnel_mod
from evalset_pipeline.core.questions.funnel import FINAL, WRITE, FunnelRow
from evalset_pipeline.core.questions.injection import injection_rows  # [bad-input]
from evalset_pipeline.core.questions.validation import (
    BASIS,
    DISTRACTOR,
    POOLED,
    Candidate,
    PoolPage,
    Validated,
    validate,
)
from evalset_pipeline.core.tables import read_rows, write_rows

SCHEMA = pa.schema(
    [
        ("item_id", pa.string()),
        ("gold_unit_id", pa.string()),
        ("slice", pa.string()),
        ("question", pa.string()),
        ("original_question", pa.string()),
        ("answer", pa.string()),
        ("language", pa.string()),
        ("qualified_axes", pa.list_(pa.string())),
        ("acceptable", pa.list_(pa.string())),
        ("revisions", pa.list_(pa.string())),
    ]
)


def build_validated_questions(ctx: StageContext) -> StageResult:
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    meta = load_page_metadata(ctx)
    pools = load_item_pools(ctx)
    index = load_evidence_index(ctx)
    axes = list(ctx.config.axes)
    root = ctx.paths.root
    contexts = load_document_contexts(ctx)
    page_facts = load_page_facts(ctx)
    # A question names its company whenever the corpus holds more than one (a user's would); one
    # filer under two names is one company.
    filer = filer_of_name(load_document_facts(ctx))
    entities = {filer(m.get("entity")) for m in meta.values()} - {""}

    def values(unit: str) -> dict[str, str]:
        m = meta.get(unit)
        if not m:
            return {}
        # The statements' basis is a page fact, not a configured axis: a filing printing
        # consolidated and separate statements prints one row twice with two figures.
        basis = {BASIS: page_facts[unit][BASIS]} if BASIS in page_facts.get(unit, {}) else {}
        return {**{a: m.get(a) for a in {*axes, "entity", "period"}}, **basis}

    funnel: list[FunnelRow] = []
    candidates = []
    for row in load_candidate_questions(ctx):
        if not row["written"]:
            why = row.get("skip_reason") or "page offers no question"
            funnel.append(FunnelRow(row["item_id"], row["gold_unit_id"], WRITE, "skipped", why))
            funnel.append(FunnelRow(row["item_id"], row["gold_unit_id"], FINAL, "skipped", why))
            continue
        funnel.append(
            FunnelRow(row["item_id"], row["gold_unit_id"], WRITE, "pass", "", row["question"])
        )
        unit = row["gold_unit_id"]
        pool = [
            PoolPage(
                page_view(renders[m.unit_id], root, contexts, page_facts),
                DISTRACTOR if MINED in m.sources else POOLED,
                m.axis,
                values(m.unit_id),
                m.sources,
            )
            for m in pools.get(row["item_id"], [])
            if m.unit_id in renders
        ]
        sections = [c.section for c in answer_cells(index, unit, row["answer"]) if c.section]
        candidates.append(
            Candidate(
                row["item_id"],
                page_view(renders[unit], root, contexts, page_facts),
                values(unit),
                row["question"],
                row["answer"],
                row["language"],
                pool,
                name_entity=len(entities) > 1,
                section=sections[0] if len(set(sections)) == 1 else "",
                evidence=frozenset(p.page.unit_id for p in pool if ANSWER in p.sources),
            )
        )
    # [bad-input] Flag items whose gold or distractor pages carry prompt-injection text (core/questions/injection.py).
    flagged = injection_rows(candidates)
    funnel += flagged
    # [/bad-input]
    with stage_backend(ctx, "validated_questions") as backend:
        kept, decisions = validate(
            candidates, backend, axes, ctx.config.max_rewrites, ctx.config.underspecified
        )
        # --- regression slice (core/review/regression.py): production failures, added as asked, never
        # rewritten or validated away; labelled with the gold page's distractors by candidate_labels. ---
        from evalset_pipeline.core.review.regression import add_regression_items

        reg_items, reg_summary = add_regression_items(
            ctx.paths,
            [asdict(r) for r in renders.values()],
            kept,
            judge=backend.judge,
            contexts=contexts,
        )
        kept += reg_items
        # --- end regression slice ---
        stats = backend.stats
    funnel += decisions
    write_rows(ctx.paths.table("validated_questions"), (asdict(v) for v in kept), SCHEMA)
    write_rows(ctx.paths.table("funnel"), (asdict(f) for f in funnel), funnel_mod.SCHEMA)
    record_producer(
        ctx, "validated_questions", backend_identity(backend.backend)
    )  # provenance = what wrote these rows
    summary = funnel_mod.summarize(funnel)
    summary["injection_flagged"] = len(flagged)  # [bad-input]
    return StageResult(
        {
            **summary,
            "regression": reg_summary,  # regression items are counted apart from the sampled funnel
            "model_calls": sum(stats.calls.values()),
            "cache_hits": sum(stats.cache_hits.values()),
        },
        tables=("validated_questions", "funnel"),
        rows=[asdict(f) for f in funnel if f.stage == FINAL],
    )


def load_validated_questions(ctx: StageContext) -> list[Validated]:
    return [
        Validated(**r)
        for r in read_rows(ctx.paths.table("validated_questions"), producer="validated_questions")
    ]


def load_funnel(ctx: StageContext) -> list[FunnelRow]:
    return [
        FunnelRow(**r) for r in read_rows(ctx.paths.table("funnel"), producer="validated_questions")
    ]
