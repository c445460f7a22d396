"""`page_renders`: PNG + text layer + thumbnail per page, content-addressed; unchanged pages reused.

Pages that cannot be rendered join `rejected_documents` (stage "render") with their page number.
Storage that cannot be written (disk full) fails the step with `RenderWriteError`; the previous
`page_renders` table is left as it was, and finished renders are reused by the next run.
"""

from __future__ import annotations

from dataclasses import asdict, fields

import pyarrow as pa

from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.documents import REJECTED, load_documents, load_rejected
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.render.pages import PageRender, render_corpus
from evalset_pipeline.core.tables import read_rows, write_rows

SCHEMA = pa.schema(
    [(f.name, pa.int64() if f.type in ("int", int) else pa.string()) for f in fields(PageRender)]
)


def build_page_renders(ctx: StageContext) -> StageResult:
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

    out = render_corpus(
        documents,
        ctx.corpus_dir,
        ctx.paths.root,
        ctx.paths.renders,
        ctx.config.render,
        previous=previous,
        workers=ctx.workers,
        progress=progress,
    )
    write_rows(path, (asdict(p) for p in out.pages), SCHEMA)
    # Pages that failed to render join the rejected table, so one report lists every loss.
    rejected = [asdict(r) for r in load_rejected(ctx) if r.stage != "render"]
    rejected += [
        {
            "path": p.document_path,
            "sha256": p.document_sha256,
            "reason": f"page {p.page_number}: {p.reason}",
            "stage": "render",
        }
        for p in out.rejected
    ]
    write_rows(ctx.paths.table("rejected_documents"), rejected, REJECTED)
    for r in out.rejected:
        ctx.log.warning("rejected %s page %d: %s", r.document_path, r.page_number, r.reason)
    return StageResult(
        {
            "pages": len(out.pages),
            "rendered": out.rendered,
            "reused": out.reused,
            "recovered": out.recovered,
            "rejected_pages": len(out.rejected),
            "dpi": ctx.config.render.dpi,
            # Shown in the asset's metadata (first 200); the full list is the rejected_documents table.
            "rejected_page_list": [
                {"path": r.document_path, "page": r.page_number, "reason": r.reason}
                for r in out.rejected[:200]
            ],
        },
        tables=("page_renders",),
    )


def load_page_renders(ctx: StageContext) -> list[PageRender]:
    return [
        PageRender(**r) for r in read_rows(ctx.paths.table("page_renders"), producer="page_renders")
    ]
