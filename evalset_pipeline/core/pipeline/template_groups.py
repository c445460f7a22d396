"""`template_groups`: one template per page: metadata, else structure, else clustered page vectors.

Pages are clustered on structure vectors (`index.page_structure`: heading, layout and
appearance), so a template is a kind of page; a primary statement's template is the statement
itself (source `structure`), across filings and companies.

Clustering needs vectors that say what a page looks like. When `page_embeddings` came from an
image model (or the offline appearance default) those are used as they are. A text model's
vectors say what a page is about, not how it is laid out: on the sample corpus they cluster by
entity (ARI against the true templates about 0), so in that case templates are clustered on the
offline appearance vectors (computed from the thumbnails, cached by render hash like every
embedding) while the configured text model still orders candidates inside the pools.
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pyarrow as pa

from evalset_pipeline.core.index import appearance
from evalset_pipeline.core.index.embeddings import EmbedderSpec, EmbedInput, embed_pages
from evalset_pipeline.core.index.template_discovery import PageShape, discover_templates
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.page_embeddings import load_page_embeddings
from evalset_pipeline.core.pipeline.page_metadata import load_page_metadata, load_page_profiles
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.tables import read_rows, read_table, write_rows

SCHEMA = pa.schema(
    [("unit_id", pa.string()), ("template_id", pa.string()), ("source", pa.string())]
)


def _embedding_model(ctx: StageContext) -> str:
    models = (
        read_table(ctx.paths.table("page_embeddings"), producer="page_embeddings")
        .column("model_id")
        .unique()
        .to_pylist()
    )
    return models[0] if models else appearance.MODEL_ID


def _layout_vectors(
    ctx: StageContext, ids: list[str], vectors: np.ndarray
) -> tuple[np.ndarray, str]:
    """Vectors to cluster on, and the model they came from."""
    model_id = _embedding_model(ctx)
    if not model_id.endswith(":text"):
        return vectors, model_id
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    root = ctx.paths.root
    inputs = [
        EmbedInput(
            renders[u].render_hash,
            root / renders[u].render_path,
            root / renders[u].text_path,
            root / renders[u].thumb_path,
        )
        for u in ids
    ]
    layout, _ = embed_pages(EmbedderSpec(), inputs, ctx.paths.embeddings, workers=ctx.workers)
    return layout, appearance.MODEL_ID


def build_template_groups(ctx: StageContext) -> StageResult:
    ids, vectors = load_page_embeddings(ctx)
    meta = load_page_metadata(ctx)
    named = [meta[u].get("template_id") if u in meta else "" for u in ids]
    profiles = load_page_profiles(ctx)
    shapes = [
        PageShape(
            p.document_sha256,
            p.page_number,
            p.heading,
            p.layout,
            p.numeric_share,
            p.statement,
            p.basis,
        )
        if (p := profiles.get(u))
        else None
        for u in ids
    ]
    clustered_on = ""
    if not all(named):
        vectors, clustered_on = _layout_vectors(ctx, ids, vectors)
    groups = discover_templates(ids, named, vectors, shapes, seed=ctx.config.seed)
    write_rows(ctx.paths.table("template_groups"), (asdict(a) for a in groups.assignments), SCHEMA)
    summary = groups.summary()
    if groups.clustering is not None:
        c = groups.clustering
        summary["clustering"]["vectors"] = clustered_on
        ctx.log.info(
            "clustered %d pages into %d templates (%s on %s, threshold %.2f, silhouette %s)",
            len(ids),
            c.count,
            c.method,
            clustered_on,
            c.threshold,
            summary["clustering"]["silhouette"],
        )
    return StageResult(summary, tables=("template_groups",))


def load_template_groups(ctx: StageContext) -> dict[str, tuple[str, str]]:
    return {
        r["unit_id"]: (r["template_id"], r["source"])
        for r in read_rows(ctx.paths.table("template_groups"), producer="template_groups")
    }
