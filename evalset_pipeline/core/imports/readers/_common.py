"""What the readers share: the corpus-id mapping file, page numbers, hashing the input."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evalset_pipeline.core.imports.records import GoldRef, ImportFormatError, ImportIssue

# Spellings of "which document page is this corpus row" across BEIR-style corpora (ours first).
DOCUMENT_KEYS = ("document_path", "document", "doc-id", "doc_id", "doc_name", "file_name")
PAGE_KEYS = ("page_number", "page", "page_number_in_doc")


def files_sha256(paths: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.name.encode("utf-8") + b"\0")
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def page_number(value: Any) -> int | None:
    """A 1-based page number, or None when the value is not one."""
    if isinstance(value, bool):
        return None
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return n if n >= 1 and str(value).strip().lstrip("+").isdigit() else None


def ref_from_fields(corpus_id: str, fields: dict[str, Any], file: str, line: int) -> GoldRef:
    """A corpus row's page: its document and page fields when it has them, else its id (mapped later)."""
    document = next((str(fields[k]) for k in DOCUMENT_KEYS if fields.get(k) not in (None, "")), "")
    page = next((fields[k] for k in PAGE_KEYS if fields.get(k) not in (None, "")), None)
    n = page_number(page) if page is not None else None
    if document and n is not None:
        return GoldRef(document, n, corpus_id, file, line)
    return GoldRef("", 0, corpus_id, file, line)


def read_mapping(path: str | Path | None) -> tuple[dict[str, GoldRef], list[ImportIssue]]:
    """`corpus_id,document,page` rows (header required; page 1-based) -> corpus id -> its page."""
    if path is None:
        return {}, []
    path = Path(path)
    if not path.is_file():
        raise ImportFormatError(f"mapping file {path} does not exist")
    out: dict[str, GoldRef] = {}
    issues: list[ImportIssue] = []
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        missing = {"corpus_id", "document", "page"} - set(reader.fieldnames or [])
        if missing:
            raise ImportFormatError(
                f"{path}: the mapping needs columns corpus_id,document,page (missing {sorted(missing)})"
            )
        for line, row in enumerate(reader, start=2):
            cid, doc, page = (
                (row.get("corpus_id") or "").strip(),
                (row.get("document") or "").strip(),
                page_number(row.get("page")),
            )
            if not cid or not doc or page is None:
                issues.append(
                    ImportIssue(
                        path.name,
                        line,
                        f"mapping row needs a corpus_id, a document and a 1-based "
                        f"page (got {row.get('page')!r})",
                    )
                )
                continue
            out[cid] = GoldRef(doc, page, cid, path.name, line)
    return out, issues
