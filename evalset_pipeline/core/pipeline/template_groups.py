"""`template_groups`: one visual template per page (metadata, else clustered appearance)."""
from __future__ import annotations

from collections import Counter
from dataclasses import asdict

import pyarrow as pa

from evalset_pipeline.core.index.templates import assign_templates
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.page_embeddings import load_page_embeddings
from evalset_pipeline.core.pipeline.page_metadata import load_page_metadata
from evalset_pipeline.core.tables import read_rows, write_rows

SCHEMA = pa.schema([("unit_id", pa.string()), ("template_id", pa.string()), ("source", pa.string())])


def build_template_groups(ctx: StageContext) -> dict:
    ids, vectors = load_page_embeddings(ctx)
    meta = load_page_metadata(ctx)
    assigned = assign_templates(ids, [meta[u].get("template_id") if u in meta else "" for u in ids], vectors)
    write_rows(ctx.paths.table("template_groups"), (asdict(a) for a in assigned), SCHEMA)
    sizes = Counter(a.template_id for a in assigned if a.template_id)
    return {
        "templates": len(sizes),
        "template_sizes": dict(sorted(sizes.items())),
        "sources": dict(Counter(a.source or "unassigned" for a in assigned)),
    }


def load_template_groups(ctx: StageContext) -> dict[str, tuple[str, str]]:
    return {r["unit_id"]: (r["template_id"], r["source"]) for r in read_rows(ctx.paths.table("template_groups"), producer="template_groups")}
