"""`evidence_index`: every figure every page prints, read once per text layer (core/evidence/index.py).

Incremental like the renders: a page whose key (text hash, document facts, reader code) is the
one in the previous table keeps its rows; only new or changed pages are read, on every core.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from evalset_pipeline.core.evidence.index import (
    CELLS_SCHEMA,
    PAGES_SCHEMA,
    EvidenceIndex,
    page_evidence,
    page_key,
)
from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.pipeline import graph
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.page_metadata import load_document_contexts
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.tables import read_table, write_table

STAGE = "evidence_index"
_CHUNK = 64  # pages per task: a progress step, and small enough to spread over the workers
_Job = tuple[str, str, PageContext | None]


def _read_chunk(jobs: Sequence[_Job]) -> list[tuple[list[str], list[dict[str, Any]]]]:
    return [page_evidence(unit, path, context) for unit, path, context in jobs]


def _previous(ctx: StageContext) -> tuple[pa.Table, pa.Table] | None:
    pages, cells = ctx.paths.table("evidence_pages"), ctx.paths.table("evidence_cells")
    if not (pages.exists() and cells.exists()):
        return None
    try:
        return read_table(pages), read_table(cells)
    except Exception:  # an unreadable or older table is only a cache miss: read every page again
        return None


def build_evidence_index(ctx: StageContext) -> StageResult:
    renders = load_page_renders(ctx)
    contexts = load_document_contexts(ctx)
    version = graph.code_version(STAGE)
    keys = {
        r.unit_id: page_key(r.text_hash, contexts.get(r.document_sha256), version) for r in renders
    }
    kept_pages, kept_cells = pa.Table.from_pylist([], PAGES_SCHEMA), None
    previous = _previous(ctx)
    if previous is not None and previous[0].schema.equals(PAGES_SCHEMA):
        old_pages, old_cells = previous
        wanted = pa.array([f"{u}\0{k}" for u, k in keys.items()], pa.string())
        joined = pc.binary_join_element_wise(old_pages["unit_id"], old_pages["page_key"], "\0")
        # Cast back to the declared schema: Parquet reads a list back as list<element>, and the
        # same content must always be the same bytes (the data version hashes them).
        kept_pages = old_pages.filter(pc.is_in(joined, wanted)).cast(PAGES_SCHEMA)
        if old_cells.schema.equals(CELLS_SCHEMA):
            kept_cells = old_cells.filter(
                pc.is_in(old_cells["unit_id"], kept_pages["unit_id"])
            ).cast(CELLS_SCHEMA)
        else:
            kept_pages = kept_pages.slice(0, 0)
    reused = set(kept_pages.column("unit_id").to_pylist())
    jobs: list[_Job] = [
        (r.unit_id, str(ctx.paths.root / r.text_path), contexts.get(r.document_sha256))
        for r in renders
        if r.unit_id not in reused
    ]
    page_rows: list[dict[str, Any]] = []
    cell_rows: list[dict[str, Any]] = []
    chunks = [jobs[i : i + _CHUNK] for i in range(0, len(jobs), _CHUNK)]
    workers = min(ctx.workers or os.cpu_count() or 1, max(len(chunks), 1))
    done = 0

    def collect(
        chunk: Sequence[_Job], results: list[tuple[list[str], list[dict[str, Any]]]]
    ) -> None:
        nonlocal done
        for (unit, _, _), (text_keys, cells) in zip(chunk, results, strict=True):
            page_rows.append({"unit_id": unit, "page_key": keys[unit], "text_keys": text_keys})
            cell_rows.extend(cells)
        done += len(chunk)
        if ctx.progress:
            ctx.progress(STAGE, done, len(jobs))

    if workers <= 1 or len(jobs) < 4 * _CHUNK:
        for chunk in chunks:
            collect(chunk, _read_chunk(chunk))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for chunk, results in zip(chunks, pool.map(_read_chunk, chunks), strict=True):
                collect(chunk, results)
    pages = pa.concat_tables([kept_pages, pa.Table.from_pylist(page_rows, PAGES_SCHEMA)])
    new_cells = pa.Table.from_pylist(cell_rows, CELLS_SCHEMA)
    cells = pa.concat_tables([kept_cells, new_cells]) if kept_cells is not None else new_cells
    order = {r.unit_id: i for i, r in enumerate(renders)}  # corpus order: one content, one file
    pages = _in_page_order(pages, order)
    cells = _in_page_order(cells, order)
    write_table(ctx.paths.table("evidence_pages"), pages)
    write_table(ctx.paths.table("evidence_cells"), cells)
    return StageResult(
        {
            "pages": pages.num_rows,
            "read": len(jobs),
            "reused": len(reused),
            "cells": cells.num_rows,
            "pages_with_cells": len(set(cells.column("unit_id").to_pylist())),
            "text_figures": int(pc.sum(pc.list_value_length(pages["text_keys"])).as_py() or 0),
        },
        tables=("evidence_pages", "evidence_cells"),
    )


def _in_page_order(rows: pa.Table, order: dict[str, int]) -> pa.Table:
    """Rows sorted by page (corpus order), a page's rows in the order they were read: the same
    content is always the same file, whichever pages were reused."""
    pages = [order[u] for u in rows.column("unit_id").to_pylist()]
    idx = sorted(range(len(pages)), key=lambda i: (pages[i], i))
    return rows.take(pa.array(idx, pa.int64())) if idx else rows


def load_evidence_index(ctx: StageContext) -> EvidenceIndex:
    return EvidenceIndex.read(ctx.paths)
