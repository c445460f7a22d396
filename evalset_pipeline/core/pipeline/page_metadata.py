"""`page_metadata`: axis values per page from the sidecar, else read off the page in its document.

Writes three tables: `page_metadata` (the axes and their sources), `document_facts` (registrant,
form, reporting period and fiscal calendar per document, with sources and confidences) and
`page_profiles` (statement, heading, layout and printed periods per page, read by templates and
mining).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.metadata.conflict_hold import HELD_REASON, hold_conflicting
from evalset_pipeline.core.metadata.corpus_facts import read_corpus_facts
from evalset_pipeline.core.metadata.document_facts import SCHEMA as DOCUMENT_FACTS_SCHEMA
from evalset_pipeline.core.metadata.document_facts import DocumentFacts
from evalset_pipeline.core.metadata.page_metadata import (
    FIELDS,
    SCHEMA,
    PageMetadata,
    build_page_metadata,
)
from evalset_pipeline.core.metadata.page_profile import SCHEMA as PROFILE_SCHEMA
from evalset_pipeline.core.metadata.page_profile import PageProfile
from evalset_pipeline.core.metadata.sidecar import SIDECAR_NAME, read_sidecar
from evalset_pipeline.core.pagetext.layer import load_text_layer
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.documents import load_documents
from evalset_pipeline.core.pipeline.memo import memoized
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.tables import read_rows, write_rows

MAX_LISTED = 30  # documents listed one by one in asset metadata


def _distribution(values: Iterable[str | None]) -> dict[str, int]:
    counts = Counter(v or "(none)" for v in values)
    return dict(counts.most_common(MAX_LISTED))


def build_page_metadata_table(ctx: StageContext) -> StageResult:
    """The stage, skipped when its inputs (pages, documents, sidecar), code and knobs are those of
    its last run (core/pipeline/memo.py); the sidecar's problems are reported either way."""
    result, reused = memoized(
        ctx.paths,
        "page_metadata",
        lambda: _build(ctx),
        knobs=ctx.config.knobs(),
        extra_files=[ctx.corpus_dir / SIDECAR_NAME],
    )
    if reused:
        for issue in result.metrics.get("sidecar_issues") or []:
            ctx.log.warning("%s", issue)
        ctx.log.info("page_metadata: inputs unchanged since its last run; reused")
    return result


def _build(ctx: StageContext) -> StageResult:
    pages = load_page_renders(ctx)
    docs = load_documents(ctx)
    known = {p: d.page_count for d in docs for p in d.paths}
    sidecar = read_sidecar(
        ctx.corpus_dir, known, aliases={p: d.path for d in docs for p in d.paths}
    )  # duplicates: any name works
    for issue in sidecar.issues:
        ctx.log.warning("%s", issue)
    root = ctx.paths.root
    facts = read_corpus_facts(
        pages,
        {d.document_sha256: (d.title, d.author) for d in docs},
        lambda p: load_text_layer(str(root / p.text_path)),
        {d.document_sha256: d.outline for d in docs if d.outline},
    )
    meta = build_page_metadata(pages, sidecar, lambda p: facts.fields.get(p.unit_id, {}))
    profiles = hold_conflicting(facts.profiles, {m.unit_id: m for m in meta}, facts.documents)
    write_rows(ctx.paths.table("page_metadata"), (m.to_row() for m in meta), SCHEMA)
    write_rows(
        ctx.paths.table("document_facts"),
        (f.to_row() for f in facts.documents),
        DOCUMENT_FACTS_SCHEMA,
    )
    write_rows(ctx.paths.table("page_profiles"), (p.to_row() for p in profiles), PROFILE_SCHEMA)
    sources = {f: dict(Counter(m.sources.get(f, "missing") for m in meta)) for f in FIELDS}
    return StageResult(
        {
            "pages": len(meta),
            "sidecar_rows": len(sidecar.rows),
            "sidecar_issues": [str(i) for i in sidecar.issues],
            "sources": sources,
            "document_facts": [
                {
                    "path": f.path,
                    "entity": f.entity,
                    "entity_source": f.entity_source,
                    "filer_ids": list(f.filer_ids),
                    "aliases": list(f.aliases),
                    "form": f.form,
                    "period": f.period,
                    "period_end": f.period_end,
                    "period_source": f.period_source,
                    "fiscal_year_end_month": f.fiscal_year_end_month,
                    "calendar_source": f.calendar_source,
                    "conflicts": list(f.conflicts),
                    "flags": list(f.flags),
                }
                for f in facts.documents[:MAX_LISTED]
            ],
            # facts the filer's documents disagree on (their pages held out of the sample until a
            # sidecar row settles them), and facts read with low confidence
            "documents_with_conflicts": sum(1 for f in facts.documents if f.conflicts),
            "documents_with_low_confidence": sum(1 for f in facts.documents if f.flags),
            "pages_held_for_conflicts": sum(1 for p in profiles if p.skip_reason == HELD_REASON),
            "conflicts": [f"{f.path}: {c}" for f in facts.documents for c in f.conflicts][
                :MAX_LISTED
            ],
            "documents_without_entity": sum(1 for f in facts.documents if not f.entity),
            "documents_without_period": sum(1 for f in facts.documents if not f.period),
            # pages that fell back to what they print themselves, their document stating no such fact
            "pages_with_own_entity": facts.fallbacks.get("entity", 0),
            "pages_with_own_period": facts.fallbacks.get("period", 0),
            "distributions": {
                axis: _distribution(m.get(axis) for m in meta)
                for axis in ("entity", "period", "metric")
            },
            "statements": _distribution(p.statement for p in profiles if p.statement),
            "layouts": _distribution(p.layout for p in profiles),
        },
        tables=("page_metadata", "document_facts", "page_profiles"),
    )


def load_page_metadata(ctx: StageContext) -> dict[str, PageMetadata]:
    return {
        r["unit_id"]: PageMetadata.from_row(r)
        for r in read_rows(ctx.paths.table("page_metadata"), producer="page_metadata")
    }


def load_document_facts(ctx: StageContext) -> list[DocumentFacts]:
    """Every document's facts ([] before page_metadata ran with document facts, e.g. a data dir
    from an older version)."""
    if not ctx.paths.table("document_facts").exists():
        return []
    return [
        DocumentFacts.from_row(r)
        for r in read_rows(ctx.paths.table("document_facts"), producer="page_metadata")
    ]


def load_document_contexts(ctx: StageContext) -> dict[str, PageContext]:
    """document sha256 -> the facts a backend is shown beside each of its pages."""
    return {f.document_sha256: f.page_context() for f in load_document_facts(ctx)}


def load_page_facts(ctx: StageContext) -> dict[str, dict[str, str]]:
    """unit id -> what a page adds to its document's context (`PageContext`): the statements'
    basis (documents printing both) and its section in the PDF's outline, where known."""
    out = {}
    for u, p in load_page_profiles(ctx).items():
        facts = {k: v for k, v in (("basis", p.basis), ("section", p.section)) if v}
        if facts:
            out[u] = facts
    return out


def load_page_profiles(ctx: StageContext) -> dict[str, PageProfile]:
    return {
        r["unit_id"]: PageProfile(**r)
        for r in read_rows(ctx.paths.table("page_profiles"), producer="page_metadata")
    }
