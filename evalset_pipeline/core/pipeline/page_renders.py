"""`page_renders`: PNG + text layer + thumbnail per page, content-addressed; unchanged pages reused."""
from __future__ import annotations

from dataclasses import asdict, fields

import pyarrow as pa

from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.documents import REJECTED, load_documents, load_rejected
from evalset_pipeline.core.render.pages import PageRender, render_corpus
from evalset_pipeline.core.tables import read_rows, write_rows

SCHEMA = pa.schema([(f.name, pa.int64() if f.type in ("int", int) else pa.string()) for f in fields(PageRender)])


def build_page_renders(ctx: StageContext) -> dict:
    documents = load_documents(ctx)
    path = ctx.paths.table("page_renders")
    previous = [PageRender(**r) for r in read_rows(path)] if path.exists() else []
    total = sum(d.page_count for d in documents)
    done = 0

    def progress(n: int) -> None:
        nonlocal done
        done += n
        if ctx.progress:
            ctx.progress("page_renders", done, total)

    out = render_corpus(documents, ctx.corpus_dir, ctx.paths.root, ctx.paths.renders, ctx.config.render,
                        previous=previous, workers=ctx.workers, progress=progress)
    write_rows(path, (asdict(p) for p in out.pages), SCHEMA)
    # Pages that failed to render join the rejected table, so one report lists every loss.
    rejected = [asdict(r) for r in load_rejected(ctx) if r.stage != "render"]
    rejected += [{"path": p.document_path, "sha256": p.document_sha256, "reason": f"page {p.page_number}: {p.reason}",
                  "stage": "render"} for p in out.rejected]
    write_rows(ctx.paths.table("rejected_documents"), rejected, REJECTED)
    return {"pages": len(out.pages), "rendered": out.rendered, "reused": out.reused,
            "rejected_pages": len(out.rejected), "dpi": ctx.config.render.dpi}


def load_page_renders(ctx: StageContext) -> list[PageRender]:
    return [PageRender(**r) for r in read_rows(ctx.paths.table("page_renders"), producer="page_renders")]
