"""Find every PDF under the corpus root, identify it by content, and reject what cannot be read.

One broken file never stops the corpus: it becomes a `RejectedDocument` with a reason, and the
scan goes on. Identical files under two names are one document with both paths recorded, named
by the more plausible one (`names.py`: not a "Copy of" or "~$" name, then the shortest).

A link to a file elsewhere (a corpus folder of symlinks) is read only with `follow_symlinks`:
off, the root is the whole corpus and nothing outside it is read. Folder links are never walked
either way, so no link can loop the walk or pull a whole tree in.

Reasons, by stage. `scan` (not read): symlink points outside the corpus root; cannot read file
(a dangling link or a loop); not a regular file (a FIFO named .pdf); file name is not valid
UTF-8; cannot list folder. `open` (read and hashed, so with a sha256): empty file (0 bytes); not
a readable PDF (no %PDF- header, or MuPDF cannot open it); truncated PDF (MuPDF had to repair
it and the file does not end in %%EOF: a cut-off file would silently lose its tail); password-
protected PDF; PDF has no pages. Pages that fail later are rejected by the renderer (`render`).
Hashing streams the file, so a document's size never sets the memory a scan needs.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import pymupdf

from evalset_pipeline.core.corpus.manifest import CorpusManifest
from evalset_pipeline.core.corpus.names import plausibility
from evalset_pipeline.core.corpus.outline import OutlineEntry, read_outline
from evalset_pipeline.core.hashing import sha256_file, sha256_text


@dataclass(frozen=True)
class DocumentRecord:
    document_sha256: str
    path: str  # the most plausible of `paths` (names.py), relative to the corpus root, forward slashes
    paths: tuple[str, ...]  # every name of these bytes, `path` first, then its aliases
    page_count: int
    bytes: int
    title: str = ""
    author: str = ""
    # the PDF's bookmarks (`outline.read_outline`): the sections its pages sit in
    outline: tuple[OutlineEntry, ...] = ()


@dataclass(frozen=True)
class RejectedDocument:
    path: str
    sha256: str
    reason: str
    stage: str  # "scan" | "open" | "render"


@dataclass
class CorpusScan:
    root: Path
    documents: list[DocumentRecord] = field(default_factory=list)
    rejected: list[RejectedDocument] = field(default_factory=list)
    fingerprint: str = ""
    scanned_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def pages(self) -> int:
        return sum(d.page_count for d in self.documents)

    def manifest(self) -> CorpusManifest:
        return CorpusManifest(self.fingerprint, self.scanned_at, len(self.documents), self.pages)


# The reason, and what to do about it: the pipeline never asks for passwords (a build is unattended
# and a password would end up in logs), so the user supplies an unlocked copy.
PASSWORD_PROTECTED = (
    "password-protected PDF: put a decrypted copy under the corpus root instead (e.g. "
    "`qpdf --decrypt --password=PASSWORD in.pdf out.pdf`) and build again"
)


def _walk_pdfs(
    root: Path, rejected: list[RejectedDocument], follow_symlinks: bool = False
) -> Iterator[Path]:
    """PDF files under root, in sorted order; what cannot be taken is reported, never followed.

    Reported: symlinks that leave the root (or loop; with `follow_symlinks` only folder links
    are, a file link is read wherever it points and a loop fails to stat), names that are not valid UTF-8 (they could
    not be stored or shown faithfully), things named `.pdf` that are not regular files (a FIFO
    would block the hash forever), and folders that cannot be listed.
    """
    real_root = root.resolve()

    def unlistable(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        rejected.append(
            RejectedDocument(_rel(where, root), "", f"cannot list folder ({exc.strerror})", "scan")
        )

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=unlistable):
        here = Path(dirpath)
        keep = []
        for name in sorted(dirnames):
            link = here / name
            if name.startswith("."):
                continue
            if link.is_symlink():
                # Folder links are never walked (that is how loops and escapes are avoided);
                # one that points outside is worth telling the user about.
                if _outside(link, real_root):
                    rejected.append(RejectedDocument(_rel(link, root), "", OUTSIDE_ROOT, "scan"))
                continue
            if not _utf8(name):
                rejected.append(
                    RejectedDocument(_rel(link, root), "", BAD_NAME + " (folder skipped)", "scan")
                )
                continue
            keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            if not name.lower().endswith(".pdf"):
                continue
            path = here / name
            if not follow_symlinks and path.is_symlink() and _outside(path, real_root):
                rejected.append(RejectedDocument(_rel(path, root), "", OUTSIDE_ROOT, "scan"))
                continue
            if not _utf8(name):
                rejected.append(RejectedDocument(_rel(path, root), "", BAD_NAME, "scan"))
                continue
            try:
                mode = path.stat().st_mode  # follows an inside link to its target
            except OSError as exc:
                rejected.append(
                    RejectedDocument(
                        _rel(path, root), "", f"cannot read file ({exc.strerror})", "scan"
                    )
                )
                continue
            if not stat.S_ISREG(mode):
                rejected.append(
                    RejectedDocument(_rel(path, root), "", "not a regular file", "scan")
                )
                continue
            yield path


OUTSIDE_ROOT = "symlink points outside the corpus root"
BAD_NAME = "file name is not valid UTF-8"


def _outside(link: Path, real_root: Path) -> bool:
    """True for a link that leaves the root or cannot be resolved (a loop): it is not followed."""
    try:
        target = Path(os.path.realpath(link, strict=False))
    except (OSError, RuntimeError):
        return True
    return not _inside(target, real_root)


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # os.walk hands back undecodable bytes as surrogates
        return False
    return True


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _rel(path: Path, root: Path) -> str:
    rel = path.relative_to(root).as_posix()
    # Shown and stored as text: undecodable bytes become \xNN escapes, never lone surrogates.
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


def _tail_has_eof(path: Path) -> bool:
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - 1024))
        return b"%%EOF" in f.read()


def _has_pdf_header(path: Path) -> bool:
    with open(path, "rb") as f:
        return b"%PDF-" in f.read(1024)


@dataclass(frozen=True)
class _Opened:
    """What opening a PDF tells: its pages and metadata, or why it cannot be used."""

    page_count: int = 0
    title: str = ""
    author: str = ""
    reason: str | None = None
    outline: tuple[OutlineEntry, ...] = ()


def _open_error(path: Path, rel: str) -> _Opened:
    if path.stat().st_size == 0:
        return _Opened(reason="empty file (0 bytes)")
    if not _has_pdf_header(path):
        return _Opened(reason="not a readable PDF (no %PDF- header in the first 1024 bytes)")
    try:
        with pymupdf.open(path, filetype="pdf") as doc:
            if doc.needs_pass:
                return _Opened(reason=PASSWORD_PROTECTED)
            if doc.is_repaired and not _tail_has_eof(path):
                # MuPDF rebuilds what it can of a cut-off file; the result would silently lack
                # whatever was cut, so the file is reported instead of half-used.
                return _Opened(reason="truncated PDF (no %%EOF at the end; the file was cut off)")
            if doc.page_count == 0:
                return _Opened(reason="PDF has no pages")
            meta = doc.metadata or {}
            return _Opened(
                doc.page_count,
                meta.get("title") or "",
                meta.get("author") or "",
                outline=read_outline(doc),
            )
    except Exception as exc:  # PyMuPDF raises several types for damaged files
        message = str(exc).replace(str(path), rel)  # no absolute paths in reasons
        if not _tail_has_eof(path):
            return _Opened(
                reason=f"truncated or damaged PDF (no %%EOF at the end; {type(exc).__name__}: {message})"
            )
        return _Opened(reason=f"not a readable PDF ({type(exc).__name__}: {message})")


def _text(value: str) -> str:
    """Document metadata as storable text: no lone surrogates, no NULs."""
    return value.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")


def scan_corpus(root: str | Path, follow_symlinks: bool = False) -> CorpusScan:
    """Every PDF under `root` as a document or a rejection; `follow_symlinks` also reads file
    links that point outside the root."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"corpus root {root} is not a directory")
    scan = CorpusScan(root=root)
    by_sha: dict[str, list[tuple[str, Path]]] = {}
    for path in _walk_pdfs(root, scan.rejected, follow_symlinks):
        rel = _rel(path, root)
        try:
            sha = sha256_file(path)
        except OSError as exc:
            scan.rejected.append(
                RejectedDocument(rel, "", f"cannot read file ({exc.strerror})", "scan")
            )
            continue
        by_sha.setdefault(sha, []).append((rel, path))

    for sha, entries in sorted(by_sha.items(), key=lambda kv: sorted(kv[1])[0][0]):
        entries.sort(
            key=lambda e: plausibility(e[0])
        )  # never a "Copy of" name when a plain one exists
        rel, path = entries[0]
        try:
            opened = _open_error(path, rel)
            size = path.stat().st_size
        except OSError as exc:  # removed or made unreadable since it was hashed
            opened, size = _Opened(reason=f"cannot read file ({exc.strerror})"), 0
        if opened.reason:
            scan.rejected.extend(
                RejectedDocument(r, sha, opened.reason, "open") for r, _ in entries
            )
            continue
        scan.documents.append(
            DocumentRecord(
                sha,
                rel,
                tuple(r for r, _ in entries),
                opened.page_count,
                size,
                _text(opened.title),
                _text(opened.author),
                tuple(replace(e, title=_text(e.title)) for e in opened.outline),
            )
        )
    scan.fingerprint = corpus_fingerprint(
        [(p, d.document_sha256) for d in scan.documents for p in d.paths]
        + [(r.path, r.sha256) for r in scan.rejected]
    )
    return scan


def corpus_fingerprint(path_and_sha: list[tuple[str, str]]) -> str:
    """Order-independent fingerprint of what the corpus holds: names and contents."""
    return sha256_text("\n".join(f"{p}\t{s}" for p, s in sorted(path_and_sha)))
