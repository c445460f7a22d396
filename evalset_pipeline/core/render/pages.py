"""Render PDF pages to PNG, content-addressed by (document sha256, page, render settings).

Each page gives three files named by its render key: `<key>.png` (the render), `<key>.json`
(the text layer) and `<key>.thumb.png` (a small grayscale thumbnail the appearance embedding
reads, so embedding never decodes full renders). A key that already has its files is never
rendered again, which is what makes a no-change rebuild cheap.
"""
from __future__ import annotations

import json
import math
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

import pymupdf

from evalset_pipeline.core.atomic import write_bytes_atomic
from evalset_pipeline.core.corpus.documents import DocumentRecord
from evalset_pipeline.core.hashing import fingerprint, sha256_bytes, sha256_text
from evalset_pipeline.core.render.text_layer import text_layer_of

RENDERER_VERSION = "1"
THUMB_WIDTH = 64
PAGES_PER_JOB = 64  # large documents are split so memory stays bounded and both cores stay busy


@dataclass(frozen=True)
class RenderSettings:
    dpi: int = 96
    max_pixels: int = 4_000_000  # pixel budget: a 20,000 pt page is scaled down, never rendered huge

    def key(self) -> str:
        return fingerprint({"dpi": self.dpi, "max_pixels": self.max_pixels, "v": RENDERER_VERSION, "mupdf": pymupdf.VersionBind})


@dataclass(frozen=True)
class PageRender:
    unit_id: str
    document_sha256: str
    document_path: str
    page_number: int  # 1-based
    render_key: str
    render_path: str  # relative to the data directory
    text_path: str
    thumb_path: str
    render_hash: str  # sha256 of the PNG bytes
    text_hash: str  # sha256 of the extracted plain text
    width_px: int
    height_px: int


@dataclass(frozen=True)
class RejectedPage:
    document_path: str
    document_sha256: str
    page_number: int
    reason: str


def unit_id_for(document_sha256: str, page_number: int) -> str:
    return f"{document_sha256[:12]}-p{page_number:05d}"


def render_key(document_sha256: str, page_number: int, settings: RenderSettings) -> str:
    return sha256_text(f"{document_sha256}:{page_number}:{settings.key()}")[:32]


def _zoom(rect: pymupdf.Rect, settings: RenderSettings) -> float:
    zoom = settings.dpi / 72.0
    pixels = rect.width * zoom * rect.height * zoom
    if pixels > settings.max_pixels:
        zoom *= math.sqrt(settings.max_pixels / pixels)
    return zoom


@dataclass(frozen=True)
class _Job:
    pdf_path: str
    document: DocumentRecord
    pages: tuple[int, ...]
    data_dir: str
    renders_rel: str
    settings: RenderSettings


def _render_job(job: _Job) -> tuple[list[PageRender], list[RejectedPage]]:
    done: list[PageRender] = []
    failed: list[RejectedPage] = []
    data_dir = Path(job.data_dir)
    doc_sha = job.document.document_sha256
    try:
        doc = pymupdf.open(job.pdf_path)
    except Exception as exc:
        reason = f"cannot open for rendering ({type(exc).__name__}: {exc})"
        return [], [RejectedPage(job.document.path, doc_sha, n, reason) for n in job.pages]
    with doc:
        for number in job.pages:
            key = render_key(doc_sha, number, job.settings)
            rel = Path(job.renders_rel) / key[:2] / key
            try:
                page = doc.load_page(number - 1)
                zoom = _zoom(page.rect, job.settings)
                pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
                png = pix.tobytes("png")
                thumb_zoom = THUMB_WIDTH / max(page.rect.width, 1.0)
                thumb = page.get_pixmap(matrix=pymupdf.Matrix(thumb_zoom, thumb_zoom), colorspace=pymupdf.csGRAY, alpha=False)
                layer = text_layer_of(page)
            except Exception as exc:  # one bad page must not take its document down
                failed.append(RejectedPage(job.document.path, doc_sha, number, f"render failed ({type(exc).__name__}: {exc})"))
                continue
            # PNG last: its presence marks the page complete for the next run's reuse check.
            write_bytes_atomic(data_dir / f"{rel}.thumb.png", thumb.tobytes("png"))
            write_bytes_atomic(data_dir / f"{rel}.json", json.dumps(layer, ensure_ascii=False).encode("utf-8"))
            write_bytes_atomic(data_dir / f"{rel}.png", png)
            done.append(
                PageRender(
                    unit_id=unit_id_for(doc_sha, number),
                    document_sha256=doc_sha,
                    document_path=job.document.path,
                    page_number=number,
                    render_key=key,
                    render_path=f"{rel.as_posix()}.png",
                    text_path=f"{rel.as_posix()}.json",
                    thumb_path=f"{rel.as_posix()}.thumb.png",
                    render_hash=sha256_bytes(png),
                    text_hash=sha256_text(layer["text"]),
                    width_px=pix.width,
                    height_px=pix.height,
                )
            )
            del pix, png, thumb
    return done, failed


@dataclass
class RenderOutcome:
    pages: list[PageRender]
    rejected: list[RejectedPage]
    rendered: int  # pages rendered in this run
    reused: int  # pages whose renders already existed


def render_corpus(
    documents: Iterable[DocumentRecord],
    corpus_root: str | Path,
    data_dir: str | Path,
    renders_dir: str | Path,
    settings: RenderSettings = RenderSettings(),
    previous: Iterable[PageRender] = (),
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> RenderOutcome:
    """Render every page not already rendered with these settings; reuse the rest."""
    data_dir = Path(data_dir)
    renders_rel = Path(renders_dir).relative_to(data_dir).as_posix()
    known = {p.render_key: p for p in previous if (data_dir / p.render_path).exists()}
    pages: list[PageRender] = []
    jobs: list[_Job] = []
    for doc in documents:
        todo = []
        for number in range(1, doc.page_count + 1):
            hit = known.get(render_key(doc.document_sha256, number, settings))
            if hit is not None:
                # Same content, maybe a new name: keep the current path.
                pages.append(PageRender(**{**asdict(hit), "document_path": doc.path}))
            else:
                todo.append(number)
        for i in range(0, len(todo), PAGES_PER_JOB):
            jobs.append(_Job(str(Path(corpus_root) / doc.path), doc, tuple(todo[i : i + PAGES_PER_JOB]), str(data_dir), renders_rel, settings))
    reused = len(pages)
    if progress and reused:
        progress(reused)
    rejected: list[RejectedPage] = []
    for done, failed in _run_jobs(jobs, workers):
        pages.extend(done)
        rejected.extend(failed)
        if progress:
            progress(len(done) + len(failed))
    pages.sort(key=lambda p: (p.document_path, p.page_number))
    return RenderOutcome(pages, rejected, rendered=len(pages) - reused, reused=reused)


def _run_jobs(jobs: list[_Job], workers: int | None) -> Iterator[tuple[list[PageRender], list[RejectedPage]]]:
    workers = workers or os.cpu_count() or 1
    if workers <= 1 or len(jobs) <= 1:
        yield from map(_render_job, jobs)
        return
    # Biggest jobs first so one long document does not finish alone at the end.
    jobs = sorted(jobs, key=lambda j: -len(j.pages))
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        yield from pool.map(_render_job, jobs)
