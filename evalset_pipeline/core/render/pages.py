"""Render PDF pages to PNG, content-addressed by (document sha256, page, render settings).

Each page gives three files named by its render key: `<key>.png` (the render), `<key>.json`
(the text layer) and `<key>.thumb.png` (a small grayscale thumbnail the appearance embedding
reads, so embedding never decodes full renders). A key that already has its files is never
rendered again, which is what makes a no-change rebuild cheap.

Faults, and what each one costs:
- A page MuPDF cannot render (it raises, or it renders blank while reporting errors) becomes a
  `RejectedPage`; the other pages of its document go on.
- A worker process that dies (a crash inside MuPDF) loses nothing but the page that killed it:
  the jobs it held are re-run in fresh processes, halved until the one bad page is isolated.
- A file that cannot be written (disk full, read-only folder) stops the run with a
  `RenderWriteError` saying so. Files are written into `<renders>/.tmp/` and renamed into place,
  PNG last, so a page's files are complete or absent; what was finished stays and is picked up
  by the next run, as are the finished pages of a run that was killed. Leftover temp files can
  only belong to a dead run (renders hold an exclusive lock) and are swept at the next start.
- Memory is bounded by the job size (64 pages per job) and the pixel budget, never by the
  document's length or page size.
"""

from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pymupdf

from evalset_pipeline.core.atomic import write_bytes_atomic
from evalset_pipeline.core.corpus.documents import DocumentRecord
from evalset_pipeline.core.hashing import fingerprint, sha256_bytes, sha256_text
from evalset_pipeline.core.pagetext.layer import encode_text_layer, text_layer_of
from evalset_pipeline.core.settings import setting

RENDERER_VERSION = "2"  # 2: PNGs written by `_png` (same pixels as 1, different bytes)
THUMB_WIDTH = 64
THUMB_MAX_PIXELS = (
    THUMB_WIDTH * THUMB_WIDTH * 8
)  # a 1 x 14,400 pt strip must not get a 64 x 900k thumbnail
PAGES_PER_JOB = 64  # large documents are split so memory stays bounded and both cores stay busy
TMP_DIR = ".tmp"  # under the renders folder: work in progress, swept at the next start
LOCK_FILE = ".render.lock"
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class RenderWriteError(RuntimeError):
    """A render could not be written (disk full, read-only, no permission): the run must stop.

    Not a per-page rejection: the page is fine, the storage is not, and skipping it would
    quietly shrink the corpus.
    """


@dataclass(frozen=True)
class RenderSettings:
    dpi: int = setting(96, help="Render resolution of each page, in dots per inch")
    max_pixels: int = setting(
        4_000_000,
        help="Pixel budget of a render: a larger page is scaled down, never rendered huge",
    )

    def key(self) -> str:
        return fingerprint(
            {
                "dpi": self.dpi,
                "max_pixels": self.max_pixels,
                "v": RENDERER_VERSION,
                "mupdf": pymupdf.VersionBind,
            }
        )


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
    return _capped(rect, settings.dpi / 72.0, settings.max_pixels)


def _thumb_zoom(rect: pymupdf.Rect) -> float:
    return _capped(rect, THUMB_WIDTH / max(rect.width, 1.0), THUMB_MAX_PIXELS)


def _capped(rect: pymupdf.Rect, zoom: float, max_pixels: int) -> float:
    """`zoom`, reduced so the pixmap holds at most `max_pixels` (the memory bound of a render).

    MuPDF rounds the pixmap out to whole pixels, up to one more per side, which on a thin strip
    (20,000 x 1 pt) is a large share: the cap solves (w*z + 1) * (h*z + 1) <= max_pixels."""
    w, h = rect.width, rect.height
    if w * zoom * h * zoom <= max_pixels:
        return zoom  # within budget: the render is exactly what the settings ask for
    a, b = w * h, w + h
    return max(0.0, (-b + math.sqrt(b * b + 4 * a * (max_pixels - 1))) / (2 * a))


@dataclass(frozen=True)
class _Job:
    pdf_path: str
    document: DocumentRecord
    pages: tuple[int, ...]
    data_dir: str
    renders_rel: str
    settings: RenderSettings


@dataclass(frozen=True)
class _Rendered:
    png: bytes
    thumb: bytes
    layer: dict
    layer_bytes: bytes  # the layer as stored (core/pagetext/layer.py: encode_text_layer)
    width: int
    height: int


def _render_page(doc: pymupdf.Document, number: int, settings: RenderSettings) -> _Rendered:
    """One page's render, thumbnail and text layer; raises when MuPDF cannot render the page."""
    pymupdf.TOOLS.mupdf_warnings(reset=True)
    page = doc.load_page(number - 1)
    rect = page.rect
    if not (rect.width > 0 and rect.height > 0 and math.isfinite(rect.width * rect.height)):
        raise ValueError(f"page has no usable size ({rect.width} x {rect.height} pt)")
    dl = page.get_displaylist()  # interpret the page once, draw it twice
    zoom = _zoom(rect, settings)
    pix = dl.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
    tz = _thumb_zoom(rect)
    thumb = dl.get_pixmap(matrix=pymupdf.Matrix(tz, tz), colorspace=pymupdf.csGRAY, alpha=False)
    layer, layer_bytes = _storable(text_layer_of(page))
    warnings = pymupdf.TOOLS.mupdf_warnings(reset=True)
    if warnings and not layer["text"].strip() and pix.is_unicolor:
        # MuPDF recovers from most damage by skipping what it cannot read. When that leaves
        # nothing at all, the page is broken, not blank: a blank render must not enter the set.
        first = warnings.strip().splitlines()[0]
        raise ValueError(f"page renders blank and MuPDF reported errors ({first})")
    return _Rendered(_png(pix), _png(thumb), layer, layer_bytes, pix.width, pix.height)


# [perf, benchmarks/render.py] PNG encoding was ~80% of a page's render time: MuPDF's writer
# (Pixmap.tobytes("png")) deflates at the default level, and PyMuPDF offers no setting for it.
# Rows unfiltered + deflate level 1 is ~4x faster for the same pixels; files are ~25% larger.
def _png(pix: pymupdf.Pixmap) -> bytes:
    """Lossless PNG of a gray or RGB pixmap (anything else goes through MuPDF's own writer)."""
    w, h, n = pix.width, pix.height, pix.n
    if pix.alpha or n not in (1, 3) or w * h == 0:
        return pix.tobytes("png")
    raw = np.empty((h, w * n + 1), dtype=np.uint8)
    raw[:, 0] = 0  # filter type 0 (None) on every row
    raw[:, 1:] = np.frombuffer(pix.samples_mv, dtype=np.uint8).reshape(h, pix.stride)[:, : w * n]
    ppm = round(pix.xres / 0.0254), round(pix.yres / 0.0254)
    return b"".join(
        (
            _PNG_SIGNATURE,
            _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2 if n == 3 else 0, 0, 0, 0)),
            _chunk(b"pHYs", struct.pack(">IIB", ppm[0], ppm[1], 1)),
            # an ndarray is a buffer; the 3.11 stubs cannot say so
            _chunk(b"IDAT", zlib.compress(raw, 1)),  # type: ignore[arg-type]
            _chunk(b"IEND", b""),
        )
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data))
        + kind
        + data
        + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))
    )


def _storable(layer: dict) -> tuple[dict, bytes]:
    """The layer and its stored bytes, text as valid UTF-8: a broken ToUnicode map can yield lone
    surrogates, which cannot be stored. Encoded once here, written as is."""
    try:
        return layer, encode_text_layer(layer)
    except UnicodeEncodeError:
        fix = lambda t: t.encode("utf-8", "replace").decode("utf-8")  # noqa: E731
        fixed = {
            **layer,
            "text": fix(layer["text"]),
            "words": [[fix(v) if isinstance(v, str) else v for v in w] for w in layer["words"]],
        }
        return fixed, encode_text_layer(fixed)


def _write_error(exc: OSError, renders_dir: Path, where: str) -> RenderWriteError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return RenderWriteError(
            f"out of disk space writing page renders to {renders_dir} ({where}): {exc.strerror}. "
            "Pages rendered before this one are complete and will be reused; free some space and build again."
        )
    return RenderWriteError(
        f"cannot write page renders to {renders_dir} ({where}): [Errno {exc.errno}] {exc.strerror}"
    )


def _render_job(job: _Job) -> tuple[list[PageRender], list[RejectedPage]]:
    done: list[PageRender] = []
    failed: list[RejectedPage] = []
    data_dir = Path(job.data_dir)
    tmp_dir = data_dir / job.renders_rel / TMP_DIR
    doc_sha = job.document.document_sha256
    try:
        doc = pymupdf.open(job.pdf_path, filetype="pdf")
    except Exception as exc:
        reason = f"cannot open for rendering ({type(exc).__name__}: {exc})".replace(
            job.pdf_path, job.document.path
        )
        return [], [RejectedPage(job.document.path, doc_sha, n, reason) for n in job.pages]
    with doc:
        for number in job.pages:
            key = render_key(doc_sha, number, job.settings)
            rel = Path(job.renders_rel) / key[:2] / key
            try:
                r = _render_page(doc, number, job.settings)
            except (
                Exception
            ) as exc:  # one bad page must not take its document down (MemoryError included)
                failed.append(
                    RejectedPage(
                        job.document.path,
                        doc_sha,
                        number,
                        f"render failed ({type(exc).__name__}: {exc})",
                    )
                )
                continue
            text_json = r.layer_bytes
            files = [
                (data_dir / f"{rel}.thumb.png", r.thumb),
                (data_dir / f"{rel}.json", text_json),
                (data_dir / f"{rel}.png", r.png),
            ]  # PNG last: it marks the page complete
            try:
                for final, data in files:
                    # In the temp folder, then renamed into place: the final path is whole or absent.
                    write_bytes_atomic(final, data, tmp_dir=tmp_dir)
            except OSError as exc:
                for final, _ in files:  # no half-written page: its siblings go too
                    try:
                        final.unlink(missing_ok=True)
                    except OSError:
                        pass
                raise _write_error(
                    exc, data_dir / job.renders_rel, f"{job.document.path} page {number}"
                ) from None
            done.append(
                _page_render(
                    job.document, number, key, rel, r.png, r.layer["text"], r.width, r.height
                )
            )
            del r, text_json
    return done, failed


def _page_render(
    document: DocumentRecord,
    number: int,
    key: str,
    rel: Path,
    png: bytes,
    text: str,
    width: int,
    height: int,
) -> PageRender:
    return PageRender(
        unit_id=unit_id_for(document.document_sha256, number),
        document_sha256=document.document_sha256,
        document_path=document.path,
        page_number=number,
        render_key=key,
        render_path=f"{rel.as_posix()}.png",
        text_path=f"{rel.as_posix()}.json",
        thumb_path=f"{rel.as_posix()}.thumb.png",
        render_hash=sha256_bytes(png),
        text_hash=sha256_text(text),
        width_px=width,
        height_px=height,
    )


def _recover(
    data_dir: Path, renders_rel: str, document: DocumentRecord, number: int, key: str
) -> PageRender | None:
    """A page finished by an earlier run that did not get to record it (it was killed): reuse it."""
    rel = Path(renders_rel) / key[:2] / key
    png_path = data_dir / f"{rel}.png"
    if not png_path.exists() or not (data_dir / f"{rel}.thumb.png").exists():
        return None
    try:
        png = png_path.read_bytes()
        layer = json.loads((data_dir / f"{rel}.json").read_text(encoding="utf-8"))
        text = layer["text"]
        if png[:8] != _PNG_SIGNATURE or png[12:16] != b"IHDR" or not isinstance(text, str):
            return None
        width, height = struct.unpack(">II", png[16:24])
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None
    return _page_render(document, number, key, rel, png, text, width, height)


@dataclass
class RenderOutcome:
    pages: list[PageRender]
    rejected: list[RejectedPage]
    rendered: int  # pages rendered in this run
    reused: int  # pages whose renders already existed
    recovered: int = 0  # of `reused`: finished by an interrupted run, found on disk


@contextmanager
def _exclusive(renders_dir: Path) -> Iterator[None]:
    """One renderer per renders folder; while we hold the lock every temp file is a dead run's."""
    try:
        renders_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(renders_dir / LOCK_FILE, os.O_CREAT | os.O_RDWR, 0o644)
    except OSError as exc:
        raise _write_error(exc, renders_dir, "lock file") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released by the kernel if we are killed
        tmp = renders_dir / TMP_DIR
        if tmp.is_dir():
            for leftover in tmp.iterdir():
                leftover.unlink(missing_ok=True)
        else:
            try:
                tmp.mkdir()
            except OSError as exc:
                raise _write_error(exc, renders_dir, "temp folder") from None
        yield
    finally:
        os.close(fd)


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
    """Render every page not already rendered with these settings; reuse the rest.

    Raises `RenderWriteError` when renders cannot be written; per-page failures are returned.
    """
    data_dir = Path(data_dir)
    renders_rel = Path(renders_dir).relative_to(data_dir).as_posix()
    with _exclusive(data_dir / renders_rel):
        known = {p.render_key: p for p in previous if (data_dir / p.render_path).exists()}
        pages: list[PageRender] = []
        jobs: list[_Job] = []
        recovered = 0
        for doc in documents:
            todo = []
            for number in range(1, doc.page_count + 1):
                key = render_key(doc.document_sha256, number, settings)
                hit = known.get(key)
                if hit is not None:
                    # Same content, maybe a new name: keep the current path.
                    pages.append(PageRender(**{**asdict(hit), "document_path": doc.path}))
                elif (found := _recover(data_dir, renders_rel, doc, number, key)) is not None:
                    pages.append(found)
                    recovered += 1
                else:
                    todo.append(number)
            for i in range(0, len(todo), PAGES_PER_JOB):
                jobs.append(
                    _Job(
                        str(Path(corpus_root) / doc.path),
                        doc,
                        tuple(todo[i : i + PAGES_PER_JOB]),
                        str(data_dir),
                        renders_rel,
                        settings,
                    )
                )
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
    rejected.sort(key=lambda r: (r.document_path, r.page_number))
    return RenderOutcome(
        pages, rejected, rendered=len(pages) - reused, reused=reused, recovered=recovered
    )


def _run_jobs(
    jobs: list[_Job], workers: int | None
) -> Iterator[tuple[list[PageRender], list[RejectedPage]]]:
    workers = workers or os.cpu_count() or 1
    if workers <= 1 or len(jobs) <= 1:
        yield from map(_render_job, jobs)
        return
    # Biggest jobs first so one long document does not finish alone at the end.
    jobs = sorted(jobs, key=lambda j: -len(j.pages))
    crashed: list[_Job] = []
    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)))
    try:
        pending: dict[Future, _Job] = {pool.submit(_render_job, j): j for j in jobs}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                job = pending.pop(fut)
                try:
                    result = fut.result()
                except BrokenProcessPool:
                    crashed.append(job)  # this job, or one beside it, killed a worker
                    continue
                except RenderWriteError as exc:
                    raise RenderWriteError(
                        str(exc)
                    ) from None  # the message, not the worker's traceback
                yield result
    finally:
        pool.shutdown(
            wait=True, cancel_futures=True
        )  # a write error stops the run now, not after every job
    for job in sorted(crashed, key=lambda j: (j.document.path, j.pages)):
        yield _isolated(job)


def _isolated(job: _Job) -> tuple[list[PageRender], list[RejectedPage]]:
    """Run a job in a process of its own; if that dies too, halve it until the bad page is alone."""
    try:
        with ProcessPoolExecutor(max_workers=1) as pool:
            return pool.submit(_render_job, job).result()
    except BrokenProcessPool:
        if len(job.pages) == 1:
            reason = "render failed (the renderer process died on this page)"
            return [], [
                RejectedPage(job.document.path, job.document.document_sha256, job.pages[0], reason)
            ]
    half = len(job.pages) // 2
    out: tuple[list[PageRender], list[RejectedPage]] = ([], [])
    for part in (job.pages[:half], job.pages[half:]):
        done, failed = _isolated(
            _Job(job.pdf_path, job.document, part, job.data_dir, job.renders_rel, job.settings)
        )
        out[0].extend(done)
        out[1].extend(failed)
    return out
