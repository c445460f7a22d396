"""Find every PDF under the corpus root, identify it by content, and reject what cannot be read.

One broken file never stops the corpus: it becomes a `RejectedDocument` with a reason, and the
scan goes on. Identical files under two names are one document with both paths recorded.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import pymupdf

from evalset_pipeline.core.hashing import sha256_file, sha256_text
from evalset_pipeline.core.golden.model import CorpusManifest


@dataclass(frozen=True)
class DocumentRecord:
    document_sha256: str
    path: str  # first of `paths` in sorted order, relative to the corpus root, forward slashes
    paths: tuple[str, ...]
    page_count: int
    bytes: int
    title: str = ""
    author: str = ""


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
    scanned_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @property
    def pages(self) -> int:
        return sum(d.page_count for d in self.documents)

    def manifest(self) -> CorpusManifest:
        return CorpusManifest(self.fingerprint, self.scanned_at, len(self.documents), self.pages)


def _walk_pdfs(root: Path, rejected: list[RejectedDocument]) -> Iterator[Path]:
    """PDF files under root; symlinks that leave the root are reported, never followed."""
    real_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        for name in sorted(dirnames):
            link = here / name
            if link.is_symlink() and not _inside(link.resolve(), real_root):
                rejected.append(RejectedDocument(_rel(link, root), "", "symlink points outside the corpus root", "scan"))
        dirnames[:] = sorted(d for d in dirnames if not (here / d).is_symlink() and not d.startswith("."))
        for name in sorted(filenames):
            if not name.lower().endswith(".pdf"):
                continue
            path = here / name
            if path.is_symlink() and not _inside(path.resolve(), real_root):
                rejected.append(RejectedDocument(_rel(path, root), "", "symlink points outside the corpus root", "scan"))
                continue
            yield path


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _open_error(path: Path) -> tuple[int, str, str, str | None]:
    """(page_count, title, author, reason-if-unreadable)."""
    if path.stat().st_size == 0:
        return 0, "", "", "empty file (0 bytes)"
    try:
        with pymupdf.open(path, filetype="pdf") as doc:
            if doc.needs_pass:
                return 0, "", "", "password-protected PDF"
            if doc.page_count == 0:
                return 0, "", "", "PDF has no pages"
            meta = doc.metadata or {}
            return doc.page_count, meta.get("title") or "", meta.get("author") or "", None
    except Exception as exc:  # PyMuPDF raises several types for damaged files
        return 0, "", "", f"not a readable PDF ({type(exc).__name__}: {exc})"


def scan_corpus(root: str | Path) -> CorpusScan:
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"corpus root {root} is not a directory")
    scan = CorpusScan(root=root)
    by_sha: dict[str, list[tuple[str, Path]]] = {}
    for path in _walk_pdfs(root, scan.rejected):
        rel = _rel(path, root)
        try:
            sha = sha256_file(path)
        except OSError as exc:
            scan.rejected.append(RejectedDocument(rel, "", f"cannot read file ({exc.strerror})", "scan"))
            continue
        by_sha.setdefault(sha, []).append((rel, path))

    for sha, entries in sorted(by_sha.items(), key=lambda kv: sorted(kv[1])[0][0]):
        entries.sort()
        rel, path = entries[0]
        pages, title, author, reason = _open_error(path)
        if reason:
            scan.rejected.extend(RejectedDocument(r, sha, reason, "open") for r, _ in entries)
            continue
        scan.documents.append(
            DocumentRecord(sha, rel, tuple(r for r, _ in entries), pages, path.stat().st_size, title, author)
        )
    scan.fingerprint = corpus_fingerprint(
        [(p, d.document_sha256) for d in scan.documents for p in d.paths] + [(r.path, r.sha256) for r in scan.rejected]
    )
    return scan


def corpus_fingerprint(path_and_sha: list[tuple[str, str]]) -> str:
    """Order-independent fingerprint of what the corpus holds: names and contents."""
    return sha256_text("\n".join(f"{p}\t{s}" for p, s in sorted(path_and_sha)))
