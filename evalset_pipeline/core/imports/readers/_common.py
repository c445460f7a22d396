"""What the readers share: the corpus-id mapping file, page numbers, JSON lines, hashing the input.

Duplicate ids, one policy in every reader: **the first row wins**; each later row with the same id
(a query, a corpus row, a mapping row, a JSONL question) is one issue naming its own line and the
line it repeats, and is not used. Input files are opened through `core/inputfile.py`: kind checked
before open, decoded by BOM, one bad line one issue.
"""

from __future__ import annotations

import csv
import hashlib
import math
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evalset_pipeline.core.imports.records import GoldRef, ImportFormatError, ImportIssue
from evalset_pipeline.core.inputfile import (
    InputFileError,
    check_file,
    iter_lines,
    open_checked,
    parse_json_line,
)

# Spellings of "which document page is this corpus row" across BEIR-style corpora (ours first).
DOCUMENT_KEYS = ("document_path", "document", "doc-id", "doc_id", "doc_name", "file_name")
PAGE_KEYS = ("page_number", "page", "page_number_in_doc")


def files_sha256(paths: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.name.encode("utf-8") + b"\0")
        with open_checked(p) as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


_PAGE_TEXT = re.compile(r"\+?(\d{1,9})(?:\.0*)?")


def page_number(value: Any) -> int | None:
    """A 1-based page number, or None when the value is not one. A float that is a whole number
    (2.0) is accepted: pandas stores a page column as float as soon as one row is NaN."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() and value >= 1 else None
    if isinstance(value, int):
        return value if value >= 1 else None
    text = str(value).strip()
    # "2" or "2.0" (a float column written out as text); at most 9 digits, so no page number is
    # ever a 4,300-digit integer that int() refuses.
    match = _PAGE_TEXT.fullmatch(text)
    n = int(match.group(1)) if match else 0
    return n if n >= 1 else None


def ref_from_fields(corpus_id: str, fields: dict[str, Any], file: str, line: int) -> GoldRef:
    """A corpus row's page: its document and page fields when it has them, else its id (mapped later).
    A page field that is there but not a page (2.5, "x") is kept as `bad_page`, so the issue says
    so instead of "no document and page fields"."""
    document = next((str(fields[k]) for k in DOCUMENT_KEYS if fields.get(k) not in (None, "")), "")
    page = next((fields[k] for k in PAGE_KEYS if _given(fields.get(k))), None)
    n = page_number(page) if page is not None else None
    if document and n is not None:
        return GoldRef(document, n, corpus_id, file, line)
    bad = repr(page)[:40] if document and page is not None else ""
    return GoldRef("", 0, corpus_id, file, line, bad_page=bad)


def _given(value: Any) -> bool:
    """A field holds a value: not missing, not empty, not NaN (pandas' empty cell)."""
    if value is None or value == "":
        return False
    return not (isinstance(value, float) and math.isnan(value))


def duplicate_issue(
    file: str, line: int, what: str, key: str, first: int, same: bool, unit: str = "line"
) -> ImportIssue:
    """The one wording of a repeated id, whatever the reader (first wins)."""
    differs = "" if same else ", with different content"
    return ImportIssue(
        file,
        line,
        f"duplicate {what} {key!r}: already on {unit} {first}{differs}; "
        "the first wins, this row is ignored",
    )


def json_rows(path: Path, file: str, issues: list[ImportIssue]) -> Iterator[tuple[int, Any]]:
    """(line, parsed value) of every non-blank line; a line that cannot be decoded or parsed is
    one issue (never the whole file)."""
    try:
        for line in iter_lines(path):
            if line.error:
                issues.append(ImportIssue(file, line.number, line.error))
                continue
            if not line.text.strip():
                continue
            value, why = parse_json_line(line.text)
            if why:
                issues.append(ImportIssue(file, line.number, why))
                continue
            yield line.number, value
    except InputFileError as exc:
        raise ImportFormatError(str(exc)) from None


def text_rows(path: Path, file: str, issues: list[ImportIssue]) -> Iterator[tuple[int, str]]:
    """(line, text) of every line, a line that cannot be decoded one issue."""
    try:
        for line in iter_lines(path):
            if line.error:
                issues.append(ImportIssue(file, line.number, line.error))
                continue
            yield line.number, line.text
    except InputFileError as exc:
        raise ImportFormatError(str(exc)) from None


def read_mapping(path: str | Path | None) -> tuple[dict[str, GoldRef], list[ImportIssue]]:
    """`corpus_id,document,page` rows (header required; page 1-based) -> corpus id -> its page.
    Decoded by BOM (UTF-8 or UTF-16); a repeated corpus_id is an issue (the first row wins)."""
    if path is None:
        return {}, []
    path = Path(path)
    try:
        check_file(path, "mapping file")
    except InputFileError as exc:
        raise ImportFormatError(str(exc)) from None
    out: dict[str, GoldRef] = {}
    issues: list[ImportIssue] = []
    header: list[str] | None = None
    for line, text in text_rows(path, path.name, issues):
        if not text.strip():
            continue
        try:
            fields = next(csv.reader([text]))
        except (csv.Error, StopIteration):
            issues.append(ImportIssue(path.name, line, "not a CSV row"))
            continue
        if header is None:
            header = [f.strip() for f in fields]
            missing = {"corpus_id", "document", "page"} - set(header)
            if missing:
                raise ImportFormatError(
                    f"{path}: the mapping needs columns corpus_id,document,page (missing {sorted(missing)})"
                )
            continue
        row = dict(zip(header, fields, strict=False))
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
        if cid in out:
            first = out[cid]
            same = (first.document, first.page) == (doc, page)
            issues.append(duplicate_issue(path.name, line, "corpus_id", cid, first.line, same))
            continue
        out[cid] = GoldRef(doc, page, cid, path.name, line)
    if header is None:
        raise ImportFormatError(
            f"mapping file {path} is empty (expected a header corpus_id,document,page)"
        )
    return out, issues
