"""`page_embeddings`: an appearance vector per page, cached by (model, render hash)."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa

from evalset_pipeline.core.atomic import write_bytes_atomic
from evalset_pipeline.core.index.embeddings import (
    VECTORS,  # the vectors file, named once
    EmbedInput,
    embed_pages,
)
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.tables import read_table, write_rows

SCHEMA = pa.schema(
    [("unit_id", pa.string()), ("render_hash", pa.string()), ("model_id", pa.string())]
)
CHUNK = 512  # smallest chunk of pages embedded between progress reports


def _embed_in_chunks(ctx: StageContext, inputs: list[EmbedInput]) -> tuple[np.ndarray, int]:
    """embed_pages in a few chunks, so the progress display moves (about ten steps; each chunk
    starts its own worker pool, so not many more)."""
    size = max(CHUNK, -(-len(inputs) // 10))
    parts, computed = [], 0
    for start in range(0, len(inputs), size):
        v, n = embed_pages(
            ctx.embedder, inputs[start : start + size], ctx.paths.embeddings, workers=ctx.workers
        )
        parts.append(v)
        computed += n
        if ctx.progress:
            ctx.progress("page_embeddings", min(start + size, len(inputs)), len(inputs))
    if not parts:
        return embed_pages(ctx.embedder, inputs, ctx.paths.embeddings, workers=ctx.workers)
    return np.vstack(parts), computed


def build_page_embeddings(ctx: StageContext) -> StageResult:
    pages = load_page_renders(ctx)
    root = ctx.paths.root
    inputs = [
        EmbedInput(p.render_hash, root / p.render_path, root / p.text_path, root / p.thumb_path)
        for p in pages
    ]
    vectors, computed = _embed_in_chunks(ctx, inputs)
    buf = io.BytesIO()
    np.save(buf, vectors)
    write_bytes_atomic(ctx.paths.table_file(VECTORS), buf.getvalue())
    write_rows(
        ctx.paths.table("page_embeddings"),
        (
            {"unit_id": p.unit_id, "render_hash": p.render_hash, "model_id": ctx.embedder.model_id}
            for p in pages
        ),
        SCHEMA,
    )
    return StageResult(
        {
            "pages": len(pages),
            "embedded": computed,
            "cached": len(pages) - computed,
            "model_id": ctx.embedder.model_id,
            "dim": int(vectors.shape[1]) if len(vectors) else 0,
        },
        tables=("page_embeddings",),
        files=(VECTORS,),
    )


def load_page_embeddings(ctx: StageContext) -> tuple[list[str], np.ndarray]:
    ids = (
        read_table(ctx.paths.table("page_embeddings"), producer="page_embeddings")
        .column("unit_id")
        .to_pylist()
    )
    return ids, np.load(ctx.paths.table_file(VECTORS))
