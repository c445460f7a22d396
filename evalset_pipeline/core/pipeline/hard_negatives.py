"""`hard_negatives`: per page, one pool per axis holding the other axes fixed; nearest k by appearance."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict

import numpy as np
import pyarrow as pa

from evalset_pipeline.core.negatives.mining import MiningInput, Negative, mine_hard_negatives
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.page_embeddings import load_page_embeddings
from evalset_pipeline.core.pipeline.page_metadata import load_page_metadata
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.template_groups import load_template_groups
from evalset_pipeline.core.tables import read_rows, write_rows

SCHEMA = pa.schema([("unit_id", pa.string()), ("negative_unit_id", pa.string()), ("axis", pa.string()),
                    ("rank", pa.int64()), ("similarity", pa.float64())])


def _distribution(sizes: list[int]) -> dict:
    if not sizes:
        return {"pages": 0}
    a = np.asarray(sizes)
    return {"pages": int(a.size), "empty": int((a == 0).sum()), "min": int(a.min()), "median": float(np.median(a)),
            "max": int(a.max())}


def build_hard_negatives(ctx: StageContext) -> dict:
    ids, vectors = load_page_embeddings(ctx)
    meta = load_page_metadata(ctx)
    templates = load_template_groups(ctx)
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    axes = list(ctx.config.axes)
    data = MiningInput(
        unit_ids=ids,
        templates=[templates.get(u, ("", ""))[0] for u in ids],
        axis_values={a: [meta[u].get(a) if u in meta else "" for u in ids] for a in axes},
        embeddings=vectors,
        render_hashes=[renders[u].render_hash for u in ids],
        text_hashes=[renders[u].text_hash for u in ids],
    )
    result = mine_hard_negatives(data, axes, ctx.config.negatives_per_axis)
    write_rows(ctx.paths.table("hard_negatives"), (asdict(n) for n in result.negatives), SCHEMA)
    golds = {n.unit_id for n in result.negatives}
    return {
        "negatives": len(result.negatives),
        "pages_with_negatives": len(golds),
        "by_axis": dict(Counter(n.axis for n in result.negatives)),
        "pool_sizes": {a: _distribution(s) for a, s in result.pool_sizes.items()},
        "fallback_pages": result.fallback_pages,
        "single_page_templates": len(result.lonely_pages),
    }


def load_hard_negatives(ctx: StageContext) -> dict[str, list[Negative]]:
    out: dict[str, list[Negative]] = defaultdict(list)
    for r in read_rows(ctx.paths.table("hard_negatives"), producer="hard_negatives"):
        out[r["unit_id"]].append(Negative(**r))
    return out
