"""`gold_sample`: which pages get a question — seeded, stratified by template, only pages with distractors."""
from __future__ import annotations

from collections import Counter

import pyarrow as pa

from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.hard_negatives import load_hard_negatives
from evalset_pipeline.core.pipeline.template_groups import load_template_groups
from evalset_pipeline.core.questions.sampling import stratified_sample
from evalset_pipeline.core.tables import read_rows, write_rows

SCHEMA = pa.schema([("unit_id", pa.string()), ("template_id", pa.string())])


def build_gold_sample(ctx: StageContext) -> dict:
    negatives = load_hard_negatives(ctx)
    templates = load_template_groups(ctx)
    eligible = sorted(u for u in negatives if templates.get(u, ("", ""))[0])
    strata = [templates[u][0] for u in eligible]
    chosen = stratified_sample(eligible, strata, ctx.config.sample_size, ctx.config.seed)
    write_rows(ctx.paths.table("gold_sample"), ({"unit_id": u, "template_id": templates[u][0]} for u in chosen), SCHEMA)
    return {"eligible": len(eligible), "sampled": len(chosen), "seed": ctx.config.seed,
            "by_template": dict(sorted(Counter(templates[u][0] for u in chosen).items()))}


def load_gold_sample(ctx: StageContext) -> list[str]:
    return [r["unit_id"] for r in read_rows(ctx.paths.table("gold_sample"), producer="gold_sample")]
