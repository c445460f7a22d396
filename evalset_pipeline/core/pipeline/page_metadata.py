"""`page_metadata`: axis values per page from the sidecar, else extracted from the page."""
from __future__ import annotations

from collections import Counter

from evalset_pipeline.core.metadata.extraction import TextLayerExtractor
from evalset_pipeline.core.metadata.page_metadata import FIELDS, SCHEMA, PageMetadata, build_page_metadata
from evalset_pipeline.core.metadata.sidecar import read_sidecar
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.documents import load_documents
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.tables import read_rows, write_rows


def build_page_metadata_table(ctx: StageContext) -> dict:
    pages = load_page_renders(ctx)
    docs = load_documents(ctx)
    known = {p: d.page_count for d in docs for p in d.paths}
    sidecar = read_sidecar(ctx.corpus_dir, known, aliases={p: d.path for d in docs for p in d.paths})  # duplicates: any name works
    for issue in sidecar.issues:
        ctx.log.warning("%s", issue)
    meta = build_page_metadata(pages, sidecar, TextLayerExtractor(ctx.paths.root))
    write_rows(ctx.paths.table("page_metadata"), (m.to_row() for m in meta), SCHEMA)
    sources = {f: dict(Counter(m.sources.get(f, "missing") for m in meta)) for f in FIELDS}
    return {"pages": len(meta), "sidecar_rows": len(sidecar.rows), "sidecar_issues": [str(i) for i in sidecar.issues],
            "sources": sources}


def load_page_metadata(ctx: StageContext) -> dict[str, PageMetadata]:
    return {r["unit_id"]: PageMetadata.from_row(r) for r in read_rows(ctx.paths.table("page_metadata"), producer="page_metadata")}
