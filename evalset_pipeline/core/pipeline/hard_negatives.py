"""`hard_negatives`: per page, one pool per axis holding the other axes fixed; nearest k by appearance.

A page that prints a table is pooled by its table's identity (the same table one axis away,
negatives/table_twins.py), read from the evidence index's cells; other pages by visual template.
Boilerplate pages (metadata/unaskable.py) are never a negative.

Period pools hold the period's kind fixed (quarters against quarters). A period candidate that
prints the gold's period (a comparative column) is not a negative: it goes to the
`comparative_pages` table, one source of each item's pool (`item_pools`; negatives/comparatives.py).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from evalset_pipeline.core.evidence.index import label_key
from evalset_pipeline.core.metadata.filer_identity import filer_of_name
from evalset_pipeline.core.metadata.unaskable import SKIP_REASONS
from evalset_pipeline.core.negatives.comparatives import SCHEMA as COMPARATIVES_SCHEMA
from evalset_pipeline.core.negatives.comparatives import Comparative, split_comparatives
from evalset_pipeline.core.negatives.mining import (
    FALLBACK_AXIS,
    SCHEMA,
    Column,
    MiningInput,
    Negative,
)
from evalset_pipeline.core.negatives.table_signature import page_signatures
from evalset_pipeline.core.negatives.table_twins import mine_by_table
from evalset_pipeline.core.pagetext.periods import period_kind
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.page_embeddings import load_page_embeddings
from evalset_pipeline.core.pipeline.page_metadata import (
    load_document_facts,
    load_page_metadata,
    load_page_profiles,
)
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.pipeline.template_groups import load_template_groups
from evalset_pipeline.core.tables import read_rows, read_table, write_rows, write_table

__all__ = ["SCHEMA", "build_hard_negatives", "load_hard_negatives"]
MAX_LISTED = 20  # page ids listed in asset metadata; counts are always complete
ENTITY_AXIS = "entity"
SPARE = (
    3  # extra candidates mined per axis, so a pool keeps k negatives after comparatives leave it
)


def _distribution(sizes: Sequence[int] | np.ndarray) -> dict[str, Any]:
    a = np.asarray(sizes)
    if not a.size:
        return {"pages": 0}
    return {
        "pages": int(a.size),
        "empty": int((a == 0).sum()),
        "min": int(a.min()),
        "p25": float(np.percentile(a, 25)),
        "median": float(np.median(a)),
        "p75": float(np.percentile(a, 75)),
        "max": int(a.max()),
        "mean": round(float(a.mean()), 2),
    }


def build_hard_negatives(ctx: StageContext) -> StageResult:
    ids, vectors = load_page_embeddings(ctx)
    meta = load_page_metadata(ctx)
    templates = load_template_groups(ctx)
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    axes = list(ctx.config.axes)
    values: dict[str, Column] = {
        a: [meta[u].get(a) if u in meta else "" for u in ids] for a in axes
    }
    if ENTITY_AXIS in values:
        # one filer under two names is one entity: its renamed filing is no other entity's
        filer = filer_of_name(load_document_facts(ctx))
        values[ENTITY_AXIS] = [filer(v) for v in values[ENTITY_AXIS]]
    profiles = load_page_profiles(ctx)
    data = MiningInput(
        unit_ids=ids,
        templates=[templates.get(u, ("", ""))[0] for u in ids],
        axis_values=values,
        embeddings=vectors,
        render_hashes=[renders[u].render_hash for u in ids],
        text_hashes=[renders[u].text_hash for u in ids],
        fixed={
            "period_kind": [period_kind(meta[u].get("period")) if u in meta else "" for u in ids],
            # A filing printing consolidated and separate statements prints each note twice: a
            # distractor keeps the gold's basis, so it differs on its own axis alone.
            "basis": [profiles[u].basis if u in profiles else "" for u in ids],
        },
    )
    k = ctx.config.negatives_per_axis
    signatures = page_signatures(
        read_table(ctx.paths.table("evidence_cells"), producer="evidence_index"),
        {u: p.statement for u, p in profiles.items() if p.statement},
        label_key,
    )
    boilerplate = [u in profiles and profiles[u].skip_reason in SKIP_REASONS for u in ids]
    result = mine_by_table(data, axes, k + SPARE, signatures, boilerplate)
    result, comparatives = split_comparatives(
        result,
        [meta[u].get("period") if u in meta else "" for u in ids],
        {u: p.printed_periods for u, p in profiles.items() if p.printed_periods},
        k,
    )
    write_table(ctx.paths.table("hard_negatives"), result.to_table())
    write_rows(
        ctx.paths.table("comparative_pages"),
        (c.__dict__ for c in comparatives),
        COMPARATIVES_SCHEMA,
    )
    golds = np.unique(result.gold)
    with_template = [u for u in ids if templates.get(u, ("", ""))[0]]
    fallback_rows = np.unique(result.gold[result.axis == result.axis_names.index(FALLBACK_AXIS)])
    fallback = sorted(ids[g] for g in fallback_rows[: MAX_LISTED * 5].tolist())
    return StageResult(
        {
            "negatives": len(result),
            # Period candidates that print the gold's period: judged as evidence, never mined as negatives.
            "comparatives": len(comparatives),
            "comparative_examples": [c.__dict__ for c in comparatives[:MAX_LISTED]],
            "pages": len(ids),
            "pages_with_template": len(with_template),
            "pages_with_negatives": int(golds.size),
            # Pages pooled by their table's identity (the others by visual template), and pages never
            # a negative because they are boilerplate (covers, contents, certifications, ...).
            "table_pages": len(signatures),
            "boilerplate_pages": sum(boilerplate),
            "by_axis": result.counts_by_axis(),
            "pool_sizes": {a: _distribution(s) for a, s in result.pool_sizes.items()},
            "empty_pools": result.empty_pools,
            # Pages whose every axis pool was empty and who got within-template nearest neighbours instead.
            "fallback_pages": result.fallback_pages,
            "fallback_examples": fallback[:MAX_LISTED],
            # No distractor is possible: the page's template has one page (reported, never hidden).
            "single_page_templates": len(result.lonely_pages),
            "single_page_template_pages": result.lonely_pages[:MAX_LISTED],
            # Template siblings exist but every one duplicates the page (same render, or same text + look).
            "pages_without_negatives": len(result.pages_without_negatives),
            "pages_without_negatives_examples": result.pages_without_negatives[:MAX_LISTED],
            "template_sources": dict(
                sorted(Counter(templates.get(u, ("", ""))[1] or "missing" for u in ids).items())
            ),
            "axis_sources": {
                a: dict(
                    sorted(
                        Counter(
                            (meta[u].sources.get(a) if u in meta else None) or "missing"
                            for u in ids
                        ).items()
                    )
                )
                for a in axes
            },
            "k_per_axis": ctx.config.negatives_per_axis,
            "axes": axes,
        },
        tables=("hard_negatives", "comparative_pages"),
    )


def load_comparatives(ctx: StageContext) -> dict[str, list[Comparative]]:
    out: dict[str, list[Comparative]] = defaultdict(list)
    path = ctx.paths.table("comparative_pages")
    for r in read_rows(path, producer="hard_negatives") if path.exists() else []:
        out[r["unit_id"]].append(Comparative(**r))
    return out


def load_hard_negatives(ctx: StageContext) -> dict[str, list[Negative]]:
    out: dict[str, list[Negative]] = defaultdict(list)
    for r in read_rows(ctx.paths.table("hard_negatives"), producer="hard_negatives"):
        out[r["unit_id"]].append(Negative(**r))
    return out
