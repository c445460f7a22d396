"""`gold_sample`: which pages get a question — seeded, stratified by template and spread over documents,
only pages with distractors; never more than `sample_size`."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa

from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.hard_negatives import load_hard_negatives
from evalset_pipeline.core.pipeline.page_metadata import load_page_profiles
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.pipeline.template_groups import load_template_groups
from evalset_pipeline.core.questions.sampling import stratified_sample
from evalset_pipeline.core.tables import read_rows, write_rows

SCHEMA = pa.schema([("unit_id", pa.string()), ("template_id", pa.string())])


def build_gold_sample(ctx: StageContext) -> StageResult:
    negatives = load_hard_negatives(ctx)
    templates = load_template_groups(ctx)
    profiles = load_page_profiles(ctx)
    with_pool = sorted(u for u in negatives if templates.get(u, ("", ""))[0])
    skipped = Counter(
        profiles[u].skip_reason for u in with_pool if u in profiles and profiles[u].skip_reason
    )
    eligible = [u for u in with_pool if not (u in profiles and profiles[u].skip_reason)]
    strata = [templates[u][0] for u in eligible]
    document = {p.unit_id: p.document_sha256 for p in load_page_renders(ctx)}
    chosen = stratified_sample(
        eligible,
        strata,
        ctx.config.sample_size,
        ctx.config.seed,
        groups=[document.get(u, u) for u in eligible],
    )
    write_rows(
        ctx.paths.table("gold_sample"),
        ({"unit_id": u, "template_id": templates[u][0]} for u in chosen),
        SCHEMA,
    )
    return StageResult(
        {
            "eligible": len(eligible),
            "sampled": len(chosen),
            "seed": ctx.config.seed,
            # Pages with distractors that offer nothing to ask (covers, contents, signatures, ...), by reason.
            "skipped_before_sampling": dict(skipped.most_common()),
            "by_template": dict(sorted(Counter(templates[u][0] for u in chosen).items())),
            "documents": len({document.get(u, u) for u in chosen}),
            "largest_document_share": round(
                max(Counter(document.get(u, u) for u in chosen).values()) / len(chosen), 4
            )
            if chosen
            else 0.0,
        },
        tables=("gold_sample",),
    )


def load_gold_sample(ctx: StageContext) -> list[str]:
    return [r["unit_id"] for r in read_rows(ctx.paths.table("gold_sample"), producer="gold_sample")]
